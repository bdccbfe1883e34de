import { axios as acmeAxios } from 'acme-client';
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import https from 'node:https';

/**
 * HTTP for acme-client, per adapter instance. acme-client 5.4 sends every request through one
 * module-wide axios instance with no per-client agent, and retries network errors, 429 and 5xx itself
 * for up to 75 s (5 attempts, 5 s × n) — then loses the original error. So, for requests made inside
 * `Transport.run()` only (AsyncLocalStorage), a request interceptor on that exported instance swaps in
 * this adapter: our https Agent (an extra trust anchor, no NODE_EXTRA_CA_CERTS and no disabled
 * verification), our timeout, our bounded network retries, and acme-client's own retries turned off,
 * so a rate limit or an outage comes back at once as a retryable error for the use case's backoff.
 * Requests made elsewhere in the process through acme-client are untouched.
 */

/** An RFC 7807 / RFC 8555 §6.7 problem document the server sent (or a challenge's `error`). */
export interface AcmeProblem {
  readonly type: string;
  readonly detail: string;
  readonly status: number;
  readonly subproblems?: ReadonlyArray<{ type?: string; detail?: string; identifier?: { value?: string } }>;
}

/** The server could not be reached, or did not answer in time, after our retries. */
export class AcmeNetworkError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'AcmeNetworkError';
  }
}

export interface TransportOptions {
  readonly caPem?: string;
  readonly requestTimeoutMs: number;
  readonly networkRetries: number;
  readonly retryDelayMs: number;
}

/** What one call (issue, revoke) saw: the last problem document, to give errors their ACME type. */
export interface CallContext {
  readonly transport: Transport;
  lastProblem: AcmeProblem | null;
  /** The last HTTP error status that came without a problem document (a proxy's 502 page, say). */
  lastBareStatus: number | null;
}

/** The few axios config fields this adapter reads (axios itself is acme-client's dependency, not ours). */
interface AxiosLikeConfig {
  url?: string;
  method?: string;
  data?: unknown;
  headers?: { toJSON?: () => Record<string, unknown> } & Record<string, unknown>;
  adapter?: unknown;
  retryAttempt?: number;
}

const MAX_BODY = 1024 * 1024;
const scope = new AsyncLocalStorage<CallContext>();
let installed = false;

const install = (): void => {
  if (installed) return;
  installed = true;
  acmeAxios.interceptors.request.use((config) => {
    const ctx = scope.getStore();
    if (!ctx) return config;
    const c = config as unknown as AxiosLikeConfig;
    c.adapter = (cfg: AxiosLikeConfig) => ctx.transport.send(ctx, cfg);
    // acme-client's response interceptor retries while retryAttempt + 1 <= its maximum: never, here.
    c.retryAttempt = Number.POSITIVE_INFINITY;
    return config;
  });
};

const headersOf = (cfg: AxiosLikeConfig): Record<string, string> => {
  const raw = typeof cfg.headers?.toJSON === 'function' ? cfg.headers.toJSON() : (cfg.headers ?? {});
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw))
    if (v !== undefined && v !== null && typeof v !== 'object' && typeof v !== 'function') out[k] = String(v);
  return out;
};

const problemIn = (status: number, body: string): AcmeProblem | null => {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (!json || typeof json !== 'object') return null;
  const o = json as Record<string, unknown>;
  // A problem document (status ≥ 400), or an object that carries one as `error` (an invalid challenge or order).
  const p =
    status >= 400 ? o : o.status === 'invalid' && o.error && typeof o.error === 'object' ? (o.error as Record<string, unknown>) : null;
  if (!p || typeof p.type !== 'string') return null;
  return {
    type: p.type,
    detail: typeof p.detail === 'string' ? p.detail : '',
    status,
    ...(Array.isArray(p.subproblems) ? { subproblems: p.subproblems as AcmeProblem['subproblems'] } : {}),
  };
};

export class Transport {
  private readonly agent: https.Agent;

  constructor(private readonly options: TransportOptions) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 8, ...(options.caPem ? { ca: options.caPem } : {}) });
    install();
  }

  /** Runs `fn` with every acme-client request it makes going through this transport. */
  run<T>(fn: (ctx: CallContext) => Promise<T>): Promise<T> {
    const ctx: CallContext = { transport: this, lastProblem: null, lastBareStatus: null };
    return scope.run(ctx, () => fn(ctx));
  }

  close(): void {
    this.agent.destroy();
  }

  /** The axios adapter: one request, retried on network failure only; resolves with every HTTP answer. */
  async send(ctx: CallContext, cfg: AxiosLikeConfig): Promise<unknown> {
    const url = new URL(String(cfg.url));
    const method = String(cfg.method ?? 'get').toUpperCase();
    const body =
      typeof cfg.data === 'string' ? cfg.data : cfg.data === undefined || cfg.data === null ? undefined : JSON.stringify(cfg.data);
    const headers = headersOf(cfg);
    if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.once(url, method, headers, body);
        const problem = problemIn(res.status, res.body);
        // badNonce is retried by acme-client itself (RFC 8555 §6.5); it is not the call's outcome.
        if (problem && !problem.type.endsWith(':badNonce')) ctx.lastProblem = problem;
        else if (!problem && res.status >= 400) ctx.lastBareStatus = res.status;
        return { data: res.body, status: res.status, statusText: res.statusText, headers: res.headers, config: cfg, request: null };
      } catch (err) {
        if (attempt >= this.options.networkRetries) throw err;
        await new Promise((r) => setTimeout(r, this.options.retryDelayMs * (attempt + 1)));
      }
    }
  }

  private once(url: URL, method: string, headers: Record<string, string>, body: string | undefined) {
    return new Promise<{ status: number; statusText: string; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
      const fail = (err: Error & { code?: string }): void =>
        reject(new AcmeNetworkError(`${method} ${url.origin}${url.pathname}: ${err.message}`, err.code));
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, { method, headers, ...(url.protocol === 'https:' ? { agent: this.agent } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) req.destroy(new Error(`answer larger than ${MAX_BODY} octets`));
          else chunks.push(c);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', fail);
      });
      req.setTimeout(this.options.requestTimeoutMs, () =>
        req.destroy(Object.assign(new Error(`no answer within ${this.options.requestTimeoutMs} ms`), { code: 'ETIMEDOUT' })),
      );
      req.on('error', fail);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
}
