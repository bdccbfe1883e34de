export { DEFAULT_SMTP_TIMEOUT_MS, SmtpMailer, type SmtpMailerConfig } from './smtp.adapter.js';
