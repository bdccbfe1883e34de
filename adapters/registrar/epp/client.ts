import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { buildCommand, buildEpp, readGreeting, readResponse, redact, NS, type EppResponse, type Greeting, type XmlNode } from './xml.js';

/**
 * EPP over TLS (RFC 5734): every frame is a 4-byte big-endian length (counting those 4 bytes) and the
 * XML. One command in flight per connection; a small pool of logged-in sessions; reconnect with
 * exponential back-off; `<hello/>` keeps idle sessions alive.
 */
export interface EppTls {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  /** The registry's CA (PEM). */
  readonly ca: string | Buffer;
  /** SNI / certificate name to expect when it differs from host. */
  readonly servername?: string;
}

export interface EppLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EppClientOptions {
  readonly host: string;
  readonly port: number;
  readonly clientId: string;
  readonly password: string;
  readonly tls: EppTls;
  /** Sessions kept open (most registries allow 2–10 per registrar). */
  readonly poolSize: number;
  readonly greetingTimeoutMs: number;
  readonly commandTimeoutMs: number;
  /** Send `<hello/>` on a session idle this long (registries drop idle sessions, often after 10–30 min). */
  readonly keepAliveMs: number;
  /** First reconnect delay; doubles per failure up to maxBackoffMs. */
  readonly backoffMs: number;
  readonly maxBackoffMs: number;
  /** Connection attempts per command before it fails as a registry outage. */
  readonly connectAttempts: number;
  /** Object and extension URIs we want to use (login `<svcs>` is their intersection with the greeting). */
  readonly wantObjURIs: readonly string[];
  readonly wantExtURIs: readonly string[];
  readonly log?: EppLog;
}

/** The session could not carry the command (connection lost, timeout, greeting late, login refused). */
export class EppTransportError extends Error {
  constructor(
    message: string,
    readonly eppCode: number | null = null,
  ) {
    super(message);
    this.name = 'EppTransportError';
  }
}

const MAX_FRAME = 16 * 1024 * 1024;

/** Reads RFC 5734 frames from a byte stream. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): string[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const frames: string[] = [];
    while (this.buf.length >= 4) {
      const total = this.buf.readUInt32BE(0);
      if (total < 5 || total > MAX_FRAME) throw new EppTransportError(`bad EPP frame length ${total}`);
      if (this.buf.length < total) break;
      frames.push(this.buf.subarray(4, total).toString('utf8'));
      this.buf = this.buf.subarray(total);
    }
    return frames;
  }
}

export const frame = (xml: string): Buffer => {
  const body = Buffer.from(xml, 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length + 4, 0);
  return Buffer.concat([head, body]);
};

type Waiter = { resolve: (xml: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

/** One TLS session: greeting, login, then strictly one command at a time. */
export class EppSession {
  private readonly reader = new FrameReader();
  private waiter: Waiter | null = null;
  private pending: string[] = [];
  private closedWith: Error | null = null;
  greeting: Greeting | null = null;
  busy = false;
  lastUsed = Date.now();
  private seq = 0;

  private constructor(
    private readonly socket: TLSSocket,
    private readonly opts: EppClientOptions,
  ) {
    socket.on('data', (chunk: Buffer) => {
      let frames: string[];
      try {
        frames = this.reader.push(chunk);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      for (const f of frames) {
        const w = this.waiter;
        if (w) {
          this.waiter = null;
          clearTimeout(w.timer);
          w.resolve(f);
        } else this.pending.push(f);
      }
    });
    socket.on('error', (err) => this.fail(new EppTransportError(`EPP connection error: ${err.message}`)));
    socket.on('close', () => this.fail(new EppTransportError('EPP connection closed by the registry')));
  }

  get alive(): boolean {
    return this.closedWith === null;
  }

  static async open(opts: EppClientOptions): Promise<EppSession> {
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const s = connect({
        host: opts.host,
        port: opts.port,
        cert: opts.tls.cert,
        key: opts.tls.key,
        ca: opts.tls.ca,
        minVersion: 'TLSv1.2',
        ...(opts.tls.servername || !isIP(opts.host) ? { servername: opts.tls.servername ?? opts.host } : {}),
      });
      const onError = (err: Error) => reject(new EppTransportError(`EPP connect to ${opts.host}:${opts.port} failed: ${err.message}`));
      s.once('error', onError);
      s.once('secureConnect', () => {
        s.off('error', onError);
        resolve(s);
      });
    });
    socket.setNoDelay(true);
    const session = new EppSession(socket, opts);
    try {
      const greetingXml = await session.next(opts.greetingTimeoutMs, 'greeting');
      session.greeting = readGreeting(greetingXml);
      await session.login();
    } catch (err) {
      session.destroy();
      throw err instanceof EppTransportError ? err : new EppTransportError(`EPP session setup failed: ${(err as Error).message}`);
    }
    return session;
  }

  private next(timeoutMs: number, what: string): Promise<string> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const ready = this.pending.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        const err = new EppTransportError(`no EPP ${what} within ${timeoutMs} ms`);
        reject(err);
        this.fail(err);
      }, timeoutMs);
      this.waiter = { resolve, reject, timer };
    });
  }

  private fail(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    const w = this.waiter;
    this.waiter = null;
    if (w) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.socket.destroy();
  }

  destroy(): void {
    this.fail(new EppTransportError('EPP session closed'));
  }

  /** Sends one frame and waits for the answer (the caller holds the session exclusively). */
  async exchange(xml: string): Promise<string> {
    if (this.closedWith) throw this.closedWith;
    this.lastUsed = Date.now();
    this.opts.log?.debug({ epp: redact(xml) }, 'EPP →');
    this.socket.write(frame(xml));
    const answer = await this.next(this.opts.commandTimeoutMs, 'response');
    this.opts.log?.debug({ epp: redact(answer) }, 'EPP ←');
    this.lastUsed = Date.now();
    return answer;
  }

  async command(xml: string): Promise<EppResponse> {
    return readResponse(await this.exchange(xml));
  }

  /** A session-local transaction id for commands that are not one of our writes. */
  nextTrid(prefix: string): string {
    return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++this.seq}`;
  }

  private async login(): Promise<void> {
    const g = this.greeting!;
    const objURIs = this.opts.wantObjURIs.filter((u) => g.objURIs.includes(u));
    const extURIs = this.opts.wantExtURIs.filter((u) => g.extURIs.includes(u));
    if (!objURIs.includes(NS.domain)) throw new EppTransportError(`the registry (${g.svID}) does not offer the domain object`);
    const xml = buildCommand(
      'login',
      {
        clID: this.opts.clientId,
        pw: this.opts.password,
        options: { version: '1.0', lang: g.langs.includes('en') || g.langs.length === 0 ? 'en' : g.langs[0]! },
        svcs: { objURI: objURIs, ...(extURIs.length > 0 ? { svcExtension: { extURI: extURIs } } : {}) },
      },
      this.nextTrid('login'),
    );
    const res = await this.command(xml);
    const code = res.results[0]?.code ?? 0;
    if (code !== 1000) {
      throw new EppTransportError(`EPP login refused: ${code} ${res.results[0]?.message ?? ''}`.trim(), code);
    }
  }

  async hello(): Promise<Greeting> {
    const g = readGreeting(await this.exchange(buildEpp({ hello: '' } as XmlNode)));
    return g;
  }

  async logout(): Promise<void> {
    try {
      await this.command(buildCommand('logout', null, this.nextTrid('logout')));
    } catch {
      /* closing anyway */
    }
    this.destroy();
  }
}

/** A small pool of EPP sessions, each used by one command at a time. */
export class EppPool {
  private readonly sessions: EppSession[] = [];
  private opening = 0;
  private readonly queue: Array<{ resolve: (s: EppSession) => void; reject: (e: Error) => void }> = [];
  private failures = 0;
  private nextAttemptAt = 0;
  private keepAlive: NodeJS.Timeout | null = null;
  private closed = false;
  /** The greeting of the latest session (for feature decisions: host objects, fee extension). */
  greeting: Greeting | null = null;

  constructor(private readonly opts: EppClientOptions) {
    this.keepAlive = setInterval(() => void this.sendKeepAlives(), Math.max(250, Math.floor(opts.keepAliveMs / 4)));
    this.keepAlive.unref();
  }

  /** Runs fn with a session held exclusively; a transport failure discards the session. */
  async use<T>(fn: (s: EppSession) => Promise<T>): Promise<T> {
    const session = await this.acquire();
    try {
      return await fn(session);
    } catch (err) {
      if (err instanceof EppTransportError || !session.alive) session.destroy();
      throw err;
    } finally {
      this.release(session);
    }
  }

  private async acquire(): Promise<EppSession> {
    if (this.closed) throw new EppTransportError('EPP client closed');
    for (let i = this.sessions.length - 1; i >= 0; i--) if (!this.sessions[i]!.alive) this.sessions.splice(i, 1);
    const idle = this.sessions.find((s) => !s.busy);
    if (idle) {
      idle.busy = true;
      return idle;
    }
    if (this.sessions.length + this.opening < this.opts.poolSize) {
      const s = await this.openWithBackoff();
      s.busy = true;
      this.sessions.push(s);
      return s;
    }
    return new Promise((resolve, reject) => this.queue.push({ resolve, reject }));
  }

  private release(session: EppSession): void {
    session.busy = false;
    if (!session.alive) {
      const i = this.sessions.indexOf(session);
      if (i >= 0) this.sessions.splice(i, 1);
      const waiter = this.queue.shift();
      if (waiter) this.acquire().then(waiter.resolve, waiter.reject);
      return;
    }
    const waiter = this.queue.shift();
    if (waiter) {
      session.busy = true;
      waiter.resolve(session);
    }
  }

  private async openWithBackoff(): Promise<EppSession> {
    this.opening++;
    try {
      let lastErr: Error | null = null;
      for (let attempt = 0; attempt < this.opts.connectAttempts; attempt++) {
        const wait = this.nextAttemptAt - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          const s = await EppSession.open(this.opts);
          this.failures = 0;
          this.nextAttemptAt = 0;
          this.greeting = s.greeting;
          return s;
        } catch (err) {
          lastErr = err as Error;
          this.failures++;
          const delay = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** (this.failures - 1));
          this.nextAttemptAt = Date.now() + delay;
          this.opts.log?.warn({ attempt: attempt + 1, delayMs: delay, err: lastErr.message }, 'EPP session failed to open; backing off');
        }
      }
      throw lastErr instanceof EppTransportError ? lastErr : new EppTransportError(lastErr?.message ?? 'EPP connection failed');
    } finally {
      this.opening--;
    }
  }

  /** The greeting, opening a session when none was seen yet. */
  async ensureGreeting(): Promise<Greeting> {
    if (!this.greeting) await this.use(async () => undefined);
    return this.greeting!;
  }

  private async sendKeepAlives(): Promise<void> {
    const now = Date.now();
    for (const s of [...this.sessions]) {
      if (s.busy || !s.alive || now - s.lastUsed < this.opts.keepAliveMs) continue;
      s.busy = true;
      try {
        this.greeting = await s.hello();
      } catch {
        s.destroy();
      } finally {
        this.release(s);
      }
    }
  }

  get size(): number {
    return this.sessions.filter((s) => s.alive).length;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.keepAlive) clearInterval(this.keepAlive);
    for (const w of this.queue.splice(0)) w.reject(new EppTransportError('EPP client closed'));
    await Promise.all(this.sessions.splice(0).map((s) => (s.busy ? Promise.resolve(s.destroy()) : s.logout())));
  }
}
