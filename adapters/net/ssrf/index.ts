/**
 * Outbound-HTTP SSRF guard: every request we make to a URL a user gave us (webhook endpoints,
 * monitoring targets) goes through here.
 *
 *  - `assertPublicUrl(url, opts)` — syntax, scheme, no credentials, and literal-IP checks (before storing a
 *    URL and again before each request).
 *  - `guardedLookup(opts)` — a `lookup` for `net.connect` / `http.request` / an `Agent`: resolves the name
 *    and refuses the connection when ANY address it resolves to is disallowed. Because it runs at connect
 *    time, a name that resolves to 127.0.0.1 (or rebinds to it after creation) is refused then.
 *  - `guardedFetch(url, opts)` — one request: never follows redirects (a 3xx is returned as the answer),
 *    a hard overall timeout, the response body read up to a cap.
 *
 * Address classification is ipaddr.js's (`range()`); only its `unicast` range is public. IPv6 forms that
 * embed an IPv4 address (IPv4-compatible ::/96, IPv4-mapped, SIIT, NAT64 64:ff9b::/96 and 64:ff9b:1::/48,
 * 6to4 2002::/16, Teredo 2001::/32) are judged by that IPv4 address (see embeddedV4).
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface SsrfOptions {
  /** Allow 127.0.0.0/8 and ::1 (the sandbox with WEBHOOKS_ALLOW_LOOPBACK=1, tests). Nothing else opens. */
  allowLoopback: boolean;
  /** Only `https:` URLs (live). When false, `http:` is allowed as well. */
  requireHttps: boolean;
}

export type SsrfReason = 'invalid_url' | 'scheme' | 'credentials' | 'host' | 'address';

/** Thrown (or passed to the lookup callback) when a URL or an address is refused. */
export class SsrfRefusedError extends Error {
  readonly code = 'ssrf_refused';
  constructor(
    readonly reason: SsrfReason,
    message: string,
  ) {
    super(message);
    this.name = 'SsrfRefusedError';
  }
}

const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', 'fd00:ec2::23']);

function v4Allowed(addr: ipaddr.IPv4, opts: Pick<SsrfOptions, 'allowLoopback'>): boolean {
  if (METADATA.has(addr.toString())) return false;
  const range = addr.range();
  if (range === 'unicast') return true;
  return range === 'loopback' && opts.allowLoopback;
}

const v4At = (hi: number, lo: number): ipaddr.IPv4 => ipaddr.fromByteArray([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]) as ipaddr.IPv4;
const zero = (parts: number[], from: number, to: number): boolean => parts.slice(from, to).every((x) => x === 0);
const within = (addr: ipaddr.IPv6, cidr: string): boolean => addr.match(ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number]);

/**
 * The IPv4 addresses an IPv6 address stands for when its form embeds some (null: it embeds none). A
 * packet to such an address reaches the embedded IPv4 host through a translator or a tunnel, so the
 * address is only as public as what it embeds. An empty list means "embeds an address we cannot place":
 * refused.
 */
function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = addr.parts;
  // IPv4-compatible ::a.b.c.d (deprecated by RFC 4291, still routed by some stacks); :: and ::1 are
  // IPv6's own unspecified and loopback addresses and are judged as such.
  if (zero(p, 0, 6) && !(p[6] === 0 && (p[7] === 0 || p[7] === 1))) return [v4At(p[6]!, p[7]!)];
  // IPv4-mapped ::ffff:a.b.c.d and SIIT's IPv4-translated ::ffff:0:a.b.c.d (RFC 6145).
  if (within(addr, '::ffff:0:0/96') || within(addr, '::ffff:0:0:0/96')) return [v4At(p[6]!, p[7]!)];
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052): the last 32 bits.
  if (within(addr, '64:ff9b::/96')) return [v4At(p[6]!, p[7]!)];
  // NAT64 local-use 64:ff9b:1::/48 (RFC 8215): the operator picks the prefix length, so where the IPv4
  // address sits is not knowable; only the /96 layout (bits 48–95 zero) is judged, anything else refused.
  if (within(addr, '64:ff9b:1::/48')) return zero(p, 3, 6) ? [v4At(p[6]!, p[7]!)] : [];
  // 6to4 2002:AABB:CCDD::/48 (RFC 3056).
  if (within(addr, '2002::/16')) return [v4At(p[1]!, p[2]!)];
  // Teredo 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (RFC 4380): the client's address is the last 32 bits
  // inverted; the Teredo server's address must be public as well.
  if (within(addr, '2001::/32')) return [v4At(~p[6]! & 0xffff, ~p[7]! & 0xffff), v4At(p[2]!, p[3]!)];
  return null;
}

/** Whether we may connect to this literal address. */
export function isAllowedAddress(address: string, opts: Pick<SsrfOptions, 'allowLoopback'>): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return false;
  const addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv4') return v4Allowed(addr as ipaddr.IPv4, opts);
  const v6 = addr as ipaddr.IPv6;
  if (METADATA.has(v6.toNormalizedString()) || METADATA.has(v6.toString())) return false;
  const inner = embeddedV4(v6);
  if (inner) return inner.length > 0 && inner.every((a) => v4Allowed(a, opts));
  const range = v6.range();
  if (range === 'unicast') return true;
  return range === 'loopback' && opts.allowLoopback;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Throws SsrfRefusedError unless `url` is one we may send a request to (before any DNS). */
export function assertPublicUrl(url: string, opts: SsrfOptions): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SsrfRefusedError('invalid_url', 'not an absolute URL');
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && !opts.requireHttps)) {
    throw new SsrfRefusedError(
      'scheme',
      opts.requireHttps ? 'only https:// URLs are allowed' : 'only http:// and https:// URLs are allowed',
    );
  }
  if (u.username || u.password) throw new SsrfRefusedError('credentials', 'URLs with credentials are not allowed');
  // WHATWG URL has already normalised numeric hosts (2130706433, 0x7f.1, 127.1) to dotted quads.
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw new SsrfRefusedError('host', 'the URL has no host');
  if (isIP(host)) {
    if (!isAllowedAddress(host, opts)) throw new SsrfRefusedError('address', `the address ${host} is not public`);
    return;
  }
  const name = host.replace(/\.$/, '').toLowerCase();
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l)) || name.length > 253) throw new SsrfRefusedError('host', 'the host is not a valid domain name');
  if (labels.length < 2 || name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.internal') || name.endsWith('.local')) {
    // Single-label and special-use names (RFC 6761/6762) only ever reach local machines.
    if (!(opts.allowLoopback && (name === 'localhost' || name.endsWith('.localhost')))) {
      throw new SsrfRefusedError('host', `the host ${name} is not a public name`);
    }
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The shape of `dns.lookup` as net.connect calls it. */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;
/** A resolver to inject in tests (default: dns.lookup with all: true). */
export type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const defaultResolve: Resolve = (hostname, options, cb) => dnsLookup(hostname, options, cb);

/**
 * A connect-time `lookup` that resolves the name and refuses (an SsrfRefusedError with
 * code 'ssrf_refused') when any resolved address is disallowed. Pass it as `lookup` to net.connect,
 * http(s).request or an Agent.
 */
export function guardedLookup(opts: Pick<SsrfOptions, 'allowLoopback'>, resolve: Resolve = defaultResolve): LookupFunction {
  return (hostname, options, callback) => {
    const wantAll = Boolean((options as { all?: boolean } | undefined)?.all);
    const family = typeof options === 'object' && options ? options.family : undefined;
    resolve(hostname, { ...(typeof options === 'object' ? options : {}), all: true }, (err, addresses) => {
      if (err) return callback(err, wantAll ? [] : '', undefined);
      const list = (addresses ?? []).filter((a) => !family || a.family === family);
      const refused = list.find((a) => !isAllowedAddress(a.address, opts));
      if (refused || list.length === 0) {
        const e = new SsrfRefusedError(
          'address',
          refused ? `${hostname} resolves to ${refused.address}, which is not public` : `${hostname} has no address`,
        );
        return callback(e as unknown as NodeJS.ErrnoException, wantAll ? [] : '', undefined);
      }
      if (wantAll) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface GuardedFetchOptions extends SsrfOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overall limit for connect + request + response (default 10 000 ms). */
  timeoutMs?: number;
  /** The response body is read up to this many bytes; the rest is discarded (default 1024). */
  maxBodyBytes?: number;
  /** An agent to reuse connections; it must be built with `lookup: guardedLookup(...)` (see `guardedAgentOptions`). */
  agent?: HttpAgent | HttpsAgent;
  /** Test seam for the connect-time resolver. */
  resolve?: Resolve;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most maxBodyBytes of the body. */
  body: Buffer;
  truncated: boolean;
  latencyMs: number;
}

export type FetchFailureKind = 'timeout' | 'network';
export class GuardedFetchError extends Error {
  constructor(
    readonly kind: FetchFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'GuardedFetchError';
  }
}

/**
 * One HTTP request to a user-supplied URL: the URL checked, the connection's addresses checked at connect
 * time, no redirects followed (a 3xx is the answer), a hard timeout. Rejects with SsrfRefusedError or
 * GuardedFetchError; any HTTP status resolves.
 */
export function guardedFetch(url: string, opts: GuardedFetchOptions): Promise<GuardedResponse> {
  try {
    assertPublicUrl(url, opts);
  } catch (e) {
    return Promise.reject(e);
  }
  const u = new URL(url);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const cap = opts.maxBodyBytes ?? 1024;
  const started = performance.now();
  const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GuardedResponse>((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const req = send(u, {
      method: opts.method ?? 'POST',
      headers: opts.headers,
      lookup: guardedLookup(opts, opts.resolve) as never,
      agent: opts.agent ?? false,
    });
    const timer = setTimeout(() => {
      finish(() => reject(new GuardedFetchError('timeout', `no complete answer within ${timeoutMs} ms`)));
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => {
      finish(() => reject(err instanceof SsrfRefusedError ? err : new GuardedFetchError('network', err.message)));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (size < cap) chunks.push(chunk.subarray(0, cap - size));
        if (size + chunk.length > cap) truncated = true;
        size += chunk.length;
      });
      res.on('end', () =>
        finish(() =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            truncated,
            latencyMs: performance.now() - started,
          }),
        ),
      );
      res.on('error', (err) => finish(() => reject(new GuardedFetchError('network', err.message))));
    });
    req.end(opts.body);
  });
}

/** Options for an http(s).Agent whose every new connection is checked by guardedLookup. */
export function guardedAgentOptions(
  opts: Pick<SsrfOptions, 'allowLoopback'>,
  resolve?: Resolve,
): { lookup: LookupFunction; keepAlive: true } {
  return { lookup: guardedLookup(opts, resolve), keepAlive: true };
}
