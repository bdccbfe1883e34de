import type nodemailer from 'nodemailer';
import type { Mailer } from '../../../core/notices/ports/mailer.port.js';

/** Validated settings of the SMTP mailer (STYLE 4: built by src/, never read from the environment here). */
export interface SmtpMailerConfig {
  /** `smtp://[user:pass@]host[:port]` (STARTTLS when offered) or `smtps://…` (TLS from the first byte). */
  readonly url: string;
  /** The From address, e.g. `Domivka <notices@domivka.example>`. */
  readonly from: string;
  /** Bound on connecting, on the greeting and on any silence of the socket; default 10 s. */
  readonly timeoutMs?: number;
}

export const DEFAULT_SMTP_TIMEOUT_MS = 10_000;

/** A send is never allowed to take longer than this many times `timeoutMs` in all (slow-drip servers). */
const OVERALL_FACTOR = 3;

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;

interface Endpoint {
  host: string;
  port?: number;
  secure: boolean;
  auth?: { user: string; pass: string };
}

const configError = (what: string): Error => new TypeError(`SMTP mailer config: ${what}`);

/** Parses and checks the URL; the password never appears in an error message. */
const endpoint = (raw: string): Endpoint => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw configError('url is not a URL (expected smtp://host:port or smtps://host:port)');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw configError(`url scheme must be smtp: or smtps:, not ${u.protocol}`);
  if (!u.hostname) throw configError('url has no host');
  if ((u.pathname && u.pathname !== '/') || u.search || u.hash) throw configError('url takes no path, query or fragment');
  const out: Endpoint = { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), secure: u.protocol === 'smtps:' };
  if (u.port) out.port = Number(u.port);
  if (u.username || u.password) out.auth = { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) };
  return out;
};

/** One address with an optional display name; no header injection through a line break. */
const checkFrom = (from: string): string => {
  if (typeof from !== 'string' || !/^[^\r\n]*\S+@\S+[^\r\n]*$/.test(from)) throw configError('from must be one e-mail address');
  return from;
};

const describeError = (e: unknown): string => {
  if (!(e instanceof Error)) return String(e);
  const x = e as Error & { code?: string; responseCode?: number; response?: string };
  // nodemailer puts the server's answer in `response`; keep it, it is what an operator needs.
  return [x.code, x.responseCode, x.message].filter((p) => p !== undefined && p !== '').join(' ');
};

/**
 * The Mailer port over SMTP with nodemailer: one plain-text UTF-8 message per call, one connection per
 * message (notices are rare; a pool would only hold idle sockets). It rejects when the server refuses the
 * message or cannot be reached in time, and the outbox retries (seed A5: a mail server that is down
 * delays notices, loses none).
 */
export class SmtpMailer implements Mailer {
  /** nodemailer is loaded on the first send: a process that sends no mail never loads it (start time, memory). */
  private transport: Promise<ReturnType<typeof nodemailer.createTransport>> | null = null;
  private readonly options: Parameters<typeof nodemailer.createTransport>[0];
  private readonly from: string;
  private readonly timeoutMs: number;
  private readonly where: string;

  constructor(config: SmtpMailerConfig) {
    const ep = endpoint(config.url);
    this.from = checkFrom(config.from);
    const t = config.timeoutMs ?? DEFAULT_SMTP_TIMEOUT_MS;
    if (!Number.isInteger(t) || t <= 0) throw configError('timeoutMs must be a positive integer');
    this.timeoutMs = t;
    this.where = `${ep.host}${ep.port ? `:${ep.port}` : ''}`;
    this.options = {
      host: ep.host,
      ...(ep.port ? { port: ep.port } : {}),
      secure: ep.secure,
      ...(ep.auth ? { auth: ep.auth } : {}),
      // Credentials never cross the network in clear: on smtp:// with a user, STARTTLS is required
      // (a relay on the same host is exempt — there is no network to cross).
      requireTLS: !ep.secure && ep.auth !== undefined && !LOOPBACK.test(ep.host),
      connectionTimeout: t,
      greetingTimeout: t,
      socketTimeout: t,
      dnsTimeout: t,
      socketCloseTimeout: Math.min(t, 5_000),
    };
  }

  private transporter(): Promise<ReturnType<typeof nodemailer.createTransport>> {
    this.transport ??= import('nodemailer').then((m) => m.default.createTransport(this.options));
    return this.transport;
  }

  async send(message: { to: string; subject: string; text: string }): Promise<void> {
    try {
      const transport = await this.transporter();
      await transport.sendMail({
        from: this.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        // Notices are machine-made (RFC 3834 §5): auto-responders must not answer them.
        headers: { 'Auto-Submitted': 'auto-generated' },
        // Bodies are ours, never a path or URL for nodemailer to fetch.
        disableFileAccess: true,
        disableUrlAccess: true,
        signal: AbortSignal.timeout(OVERALL_FACTOR * this.timeoutMs),
      });
    } catch (e) {
      throw new Error(`SMTP ${this.where}: ${describeError(e)}`, { cause: e });
    }
  }

  /** Releases the transport (nothing is kept open between sends; this is for symmetry with other adapters). */
  close(): void {
    void this.transport?.then((t) => t.close()).catch(() => undefined);
  }
}
