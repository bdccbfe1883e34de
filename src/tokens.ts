import { ACCESS_TOKENS } from './modules/access.tokens.js';
import { ACCOUNTS_TOKENS } from './modules/accounts.tokens.js';
import { DNS_TOKENS } from './modules/dns.tokens.js';
import { DNSSEC_TOKENS } from './modules/dnssec.tokens.js';
import { BILLING_TOKENS } from './modules/billing.tokens.js';
import { DOMAINS_TOKENS } from './modules/domains.tokens.js';
import { SANDBOX_TOKENS } from './modules/sandbox.tokens.js';
import { NOTICES_TOKENS } from './modules/notices.tokens.js';
import { CERTIFICATES_TOKENS } from './modules/certificates.tokens.js';
import { OPERATIONS_TOKENS } from './modules/operations.tokens.js';
import { CONSOLE_TOKENS } from './modules/console.tokens.js';
import { EVENTS_TOKENS } from './modules/events.tokens.js';
import { WEBHOOKS_TOKENS } from './modules/webhooks.tokens.js';
import { MONITORING_TOKENS } from './modules/monitoring.tokens.js';
import { PLATFORM_TOKENS } from './modules/platform.tokens.js';

/** Every injection token, each declared beside its capability's module (src/modules/<capability>.tokens.ts). */
export const TOKENS = {
  ...ACCESS_TOKENS,
  ...ACCOUNTS_TOKENS,
  ...DNS_TOKENS,
  ...DNSSEC_TOKENS,
  ...BILLING_TOKENS,
  ...DOMAINS_TOKENS,
  ...SANDBOX_TOKENS,
  ...NOTICES_TOKENS,
  ...CERTIFICATES_TOKENS,
  ...OPERATIONS_TOKENS,
  ...CONSOLE_TOKENS,
  ...EVENTS_TOKENS,
  ...WEBHOOKS_TOKENS,
  ...MONITORING_TOKENS,
  ...PLATFORM_TOKENS,
} as const;

export type { EnvironmentAdapters } from './modules/platform.tokens.js';
