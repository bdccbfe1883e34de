import { createServer, type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP peer for tests (the smtp-server package), not a mock: it listens on 127.0.0.1 (on a
 * given port when asked, so a "restarted" mail server answers the same SMTP_URL), accepts every
 * message unless told to refuse a recipient, and keeps what it received, readable as a standard
 * message: envelope, headers, decoded Subject, decoded plain text.
 *
 * The MIME reader below is small and independent of nodemailer on purpose: it proves the message is
 * standard, not just readable by the library that wrote it. It reads what the SmtpMailer sends (one
 * text/plain UTF-8 part, 7bit / quoted-printable / base64) and throws on anything else.
 */

// ---- the MIME reader ----

/** Header names lower-cased, folded lines unfolded (RFC 5322 §2.2.3); the body as it came. */
export const splitMessage = (raw: string): { headers: Map<string, string>; body: string } => {
  const at = raw.indexOf('\r\n\r\n');
  if (at < 0) throw new Error('message has no header/body separator');
  const head = raw.slice(0, at).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i < 0) throw new Error(`malformed header line: ${JSON.stringify(line)}`);
    headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body: raw.slice(at + 4) };
};

const latin1Bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

export const decodeQuotedPrintable = (s: string): Buffer =>
  latin1Bytes(s.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))));

/** RFC 2047 encoded words (=?UTF-8?B?…?= / =?UTF-8?Q?…?=); whitespace between two of them is dropped. Only UTF-8. */
export const decodeWords = (v: string): string =>
  v.replace(/\?=\s+=\?/g, '?==?').replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_m, charset: string, enc: string, text: string) => {
    if (charset.toLowerCase() !== 'utf-8') throw new Error(`encoded word in charset ${charset}, expected UTF-8`);
    const bytes = enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : decodeQuotedPrintable(text.replace(/_/g, ' '));
    return bytes.toString('utf8');
  });

/** The text of a single-part text/plain; charset=utf-8 body, line ends as \n, without the final one. */
export const decodeBody = (headers: Map<string, string>, body: string): string => {
  const type = headers.get('content-type') ?? '';
  if (!/^text\/plain;\s*charset="?utf-8"?/i.test(type))
    throw new Error(`content-type ${JSON.stringify(type)}, expected text/plain; charset=utf-8`);
  const cte = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes =
    cte === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64')
      : cte === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : cte === '7bit' || cte === '8bit'
          ? latin1Bytes(body)
          : (() => {
              throw new Error(`content-transfer-encoding ${cte}`);
            })();
  return bytes.toString('utf8').replace(/\r\n/g, '\n').replace(/\n$/, '');
};

// ---- the peer ----

/** One message as the peer received it. `headers`, `subject` and `text` are read on first use (and throw if not standard). */
export class ReceivedMail {
  private parsed: { headers: Map<string, string>; body: string } | null = null;

  constructor(
    /** Envelope MAIL FROM. */
    readonly from: string,
    /** Envelope RCPT TO, in order. */
    readonly to: readonly string[],
    /** The DATA as it came over the wire (latin1, so every octet is one char). */
    readonly raw: string,
  ) {}

  get headers(): Map<string, string> {
    return (this.parsed ??= splitMessage(this.raw)).headers;
  }

  /** The Subject header, RFC 2047-decoded. */
  get subject(): string {
    return decodeWords(this.headers.get('subject') ?? '');
  }

  /** The body, transfer-decoded and read as UTF-8. */
  get text(): string {
    return decodeBody(this.headers, (this.parsed ??= splitMessage(this.raw)).body);
  }
}

export interface SmtpPeerOptions {
  /** Listen on this port (a restarted server on the same address); 0 or absent picks a free one. */
  readonly port?: number;
  /** Refuse these recipients with 550 at RCPT TO. */
  readonly refuse?: (rcpt: string) => boolean;
}

export interface SmtpPeer {
  readonly port: number;
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  readonly url: string;
  readonly received: ReceivedMail[];
  /** Logins (AUTH) the peer accepted, percent-decoded by the client already. */
  readonly logins: Array<{ user: string; pass: string }>;
  /** Every envelope recipient received, one entry per recipient per message, sorted. */
  recipients(): string[];
  close(): Promise<void>;
}

/** Starts a real SMTP server on 127.0.0.1 (no TLS; AUTH optional and accepted when offered). */
export const startSmtpPeer = async (opts: SmtpPeerOptions = {}): Promise<SmtpPeer> => {
  const received: ReceivedMail[] = [];
  const logins: Array<{ user: string; pass: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      logins.push({ user: auth.username ?? '', pass: auth.password ?? '' });
      cb(null, { user: auth.username });
    },
    onRcptTo(address, _session, cb) {
      if (opts.refuse?.(address.address)) {
        return cb(Object.assign(new Error(`<${address.address}>: mailbox unavailable`), { responseCode: 550 }));
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push(
          new ReceivedMail(
            session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            session.envelope.rcptTo.map((r) => r.address),
            Buffer.concat(chunks).toString('latin1'),
          ),
        );
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    received,
    logins,
    recipients: () => received.flatMap((m) => m.to).sort(),
    // Idempotent, so a test may close a peer early and still leave it to a shared cleanup.
    close: () => (closed ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
};

/** A port nobody listens on: bind one, then let it go. */
export const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
};
