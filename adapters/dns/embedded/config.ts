import type { ZoneSignatureRepository } from '../../../core/dns/ports/zone-signature-repository.port.js';
import type { BulkSigner } from './compiled-zone.js';
import ipaddr from 'ipaddr.js';
import type { NameserverLogger } from './logger.js';
import { DEFAULT_NOTIFY_TIMING, type NotifyTiming, type Secondary } from './notifier.js';

export type { NameserverLogger };

/** Settings of the embedded nameserver (STYLE 4: src/ reads the environment, the constructor validates). */
export interface EmbeddedNameserverConfig {
  /** The address to listen on, UDP and TCP: an IP literal (`127.0.0.1`, `0.0.0.0`, `::`). */
  readonly host: string;
  /** The port, UDP and TCP; 0 picks a free one (see `address()` after `start()`). */
  readonly port: number;
  /** Who may AXFR/IXFR: IP addresses or CIDR networks, IPv4 or IPv6 (`127.0.0.1`, `10.0.0.0/8`, `::1`). */
  readonly axfrAllow: readonly string[];
  /** Secondaries told of every publish by NOTIFY (RFC 1996), e.g. Knot. */
  readonly secondaries: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  readonly logger?: NameserverLogger;
  /** NOTIFY retries; default 5 attempts, waiting 1 s, then 2, 4, 8, 16 s. */
  readonly notify?: Partial<NotifyTiming>;
  /**
   * The UDP answer cache (answer-cache.ts): replies remembered by question, so a repeated question skips
   * parsing, resolution and layout. Default on; `false` answers every query the long way (tests compare the two).
   */
  readonly answerCache?: boolean;
  /** NSID (RFC 5001): what this server calls itself to a query that asks (e.g. a host name); none by default. At most 128 octets of UTF-8. */
  readonly nsid?: string;
  /**
   * Opens the sealed DNSSEC private keys of signed zones (the secret box's `open`): this server is the
   * signer. Without it a signed zone is served only with signatures read from `signatures` (made by the
   * signer); without either, its publish throws and the zone keeps its last version.
   */
  readonly openKey?: (sealed: string) => string;
  /**
   * Where the RRSIGs of signed zones are stored (README "DNSSEC: one signer"): the signer writes what it
   * makes there, every other server serves what it reads there. Without it a signer signs in memory.
   */
  readonly signatures?: ZoneSignatureRepository;
  /** Signs many signatures at once (sign-pool.ts, worker threads); without it they are made in this thread. */
  readonly bulkSigner?: BulkSigner;
  /**
   * NOTIFY secondaries on every publish (default true). False when something else orders the NOTIFY —
   * the DNS cluster sends it only once every worker serves the new serial (adapters/dns/cluster.ts).
   */
  readonly notifyOnPublish?: boolean;
  /**
   * Read and answer UDP in batches through the native addon (udp-batch.ts: recvmmsg/sendmmsg, Linux),
   * default true; where the addon is not built, dgram's per-datagram path serves, with a warning.
   * `false` always uses dgram (tests run both).
   */
  readonly udpBatch?: boolean;
  /**
   * Bind UDP with SO_REUSEPORT, a socket of this process alone (needs the addon, `udpBatch` and a fixed
   * port; default false). For DNS workers on one port: the kernel spreads senders among their sockets instead of
   * waking every worker for each datagram on one shared socket. Any process of the same user can then
   * join the port, as with Knot's and NSD's reuseport.
   */
  readonly reusePort?: boolean;
  /**
   * Diffs kept per zone for incremental IXFR (journal.ts; default 100, 0: none, every IXFR gets the whole
   * zone AXFR-style). Fewer are kept when together they outgrow the zone.
   */
  readonly ixfrJournal?: number;
  /**
   * Small unsigned zones (≤ 100 records) kept compiled at once, the most recently asked (default 1024); the
   * others are held as their record sets and compiled again when asked (embedded.adapter.ts, DormantZone).
   */
  readonly awakeZones?: number;
  /**
   * Response rate limiting of UDP answers (rrl.ts; default off, as in Knot): `rate` answers per second per
   * source /24 (IPv4) or /56 (IPv6), every `slip`-th answer over it sent truncated (default 1: all), the
   * rest dropped; 0 drops them all.
   */
  readonly rrl?: { readonly rate: number; readonly slip?: number } | null;
}

export interface ValidConfig {
  readonly host: string;
  readonly port: number;
  readonly axfrAllow: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  readonly secondaries: readonly Secondary[];
  readonly logger: NameserverLogger;
  readonly notify: NotifyTiming;
  readonly answerCache: boolean;
  readonly nsid: Buffer | null;
  readonly notifyOnPublish: boolean;
  readonly udpBatch: boolean;
  readonly reusePort: boolean;
  readonly ixfrJournal: number;
  readonly awakeZones: number;
  readonly rrl: { readonly rate: number; readonly slip: number } | null;
  readonly openKey: ((sealed: string) => string) | null;
  readonly signatures: ZoneSignatureRepository | null;
  readonly bulkSigner: BulkSigner | null;
}

const configError = (what: string): TypeError => new TypeError(`nameserver config: ${what}`);

const SILENT: NameserverLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** An IP literal; IPv4 only in four-part decimal (ipaddr.js would read "010.1.1.1" as octal). */
const parseIp = (s: unknown): ipaddr.IPv4 | ipaddr.IPv6 | null => {
  if (typeof s !== 'string') return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (s.includes(':') && ipaddr.IPv6.isValid(s)) return ipaddr.IPv6.parse(s);
  return null;
};

const parseRange = (s: unknown): [ipaddr.IPv4 | ipaddr.IPv6, number] | null => {
  if (typeof s !== 'string') return null;
  const slash = s.indexOf('/');
  const ip = parseIp(slash === -1 ? s : s.slice(0, slash));
  if (!ip) return null;
  const max = ip.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return [ip, max];
  const bits = s.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(bits) || Number(bits) > max) return null;
  return [ip, Number(bits)];
};

const isPort = (p: unknown, min: number): p is number => Number.isInteger(p) && (p as number) >= min && (p as number) <= 65535;

export const validateConfig = (c: EmbeddedNameserverConfig): ValidConfig => {
  if (typeof c !== 'object' || c === null) throw configError('expected an object');
  const host = parseIp(c.host);
  if (!host) throw configError(`host must be an IP address, not ${JSON.stringify(c.host)}`);
  if (!isPort(c.port, 0)) throw configError(`port must be an integer 0–65535, not ${JSON.stringify(c.port)}`);
  if (!Array.isArray(c.axfrAllow)) throw configError('axfrAllow must be an array of IP addresses or CIDR networks');
  const axfrAllow = c.axfrAllow.map((s) => {
    const r = parseRange(s);
    if (!r) throw configError(`axfrAllow entry ${JSON.stringify(s)} is not an IP address or CIDR network`);
    return r;
  });
  if (!Array.isArray(c.secondaries)) throw configError('secondaries must be an array of { host, port }');
  const secondaries = c.secondaries.map((s, i) => {
    const ip = parseIp(s?.host);
    if (!ip) throw configError(`secondaries[${i}].host must be an IP address`);
    if (!isPort(s.port, 1)) throw configError(`secondaries[${i}].port must be an integer 1–65535`);
    return { host: ip.toString(), port: s.port };
  });
  const logger = c.logger ?? SILENT;
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    if (typeof logger[level] !== 'function') throw configError(`logger.${level} must be a function`);
  }
  const notify = { ...DEFAULT_NOTIFY_TIMING, ...(c.notify ?? {}) };
  if (!Number.isInteger(notify.attempts) || notify.attempts < 1 || notify.attempts > 20)
    throw configError('notify.attempts must be an integer 1–20');
  if (!Number.isInteger(notify.firstTimeoutMs) || notify.firstTimeoutMs < 1 || notify.firstTimeoutMs > 60_000)
    throw configError('notify.firstTimeoutMs must be an integer 1–60000');
  if (c.answerCache !== undefined && typeof c.answerCache !== 'boolean') throw configError('answerCache must be true or false');
  if (c.nsid !== undefined && (typeof c.nsid !== 'string' || c.nsid === '' || Buffer.byteLength(c.nsid) > 128))
    throw configError('nsid must be a string of 1–128 octets');
  if (c.notifyOnPublish !== undefined && typeof c.notifyOnPublish !== 'boolean') throw configError('notifyOnPublish must be true or false');
  if (c.udpBatch !== undefined && typeof c.udpBatch !== 'boolean') throw configError('udpBatch must be true or false');
  if (c.reusePort !== undefined && typeof c.reusePort !== 'boolean') throw configError('reusePort must be true or false');
  if (c.ixfrJournal !== undefined && (!Number.isInteger(c.ixfrJournal) || c.ixfrJournal < 0 || c.ixfrJournal > 10_000))
    throw configError('ixfrJournal must be an integer 0–10000');
  if (c.awakeZones !== undefined && (!Number.isInteger(c.awakeZones) || c.awakeZones < 1 || c.awakeZones > 1_000_000))
    throw configError('awakeZones must be an integer 1–1000000');
  if (c.rrl && (!Number.isInteger(c.rrl.rate) || c.rrl.rate < 1 || c.rrl.rate > 1_000_000))
    throw configError('rrl.rate must be an integer 1–1000000 (answers per second per prefix)');
  if (c.rrl && c.rrl.slip !== undefined && (!Number.isInteger(c.rrl.slip) || c.rrl.slip < 0 || c.rrl.slip > 100))
    throw configError('rrl.slip must be an integer 0–100');
  if (notify.verifyMs !== undefined && (!Number.isInteger(notify.verifyMs) || notify.verifyMs < 0 || notify.verifyMs > 60_000))
    throw configError('notify.verifyMs must be an integer 0–60000');
  return {
    host: host.toString(),
    port: c.port,
    axfrAllow,
    secondaries,
    logger,
    notify,
    answerCache: c.answerCache ?? true,
    nsid: c.nsid === undefined ? null : Buffer.from(c.nsid, 'utf8'),
    notifyOnPublish: c.notifyOnPublish ?? true,
    udpBatch: c.udpBatch ?? true,
    reusePort: c.reusePort ?? false,
    ixfrJournal: c.ixfrJournal ?? 100,
    awakeZones: c.awakeZones ?? 1024,
    rrl: c.rrl ? { rate: c.rrl.rate, slip: c.rrl.slip ?? 1 } : null,
    openKey: typeof c.openKey === 'function' ? c.openKey : null,
    signatures: c.signatures ?? null,
    bulkSigner: typeof c.bulkSigner === 'function' ? c.bulkSigner : null,
  };
};

/** Whether a peer address (IPv4-mapped IPv6 counts as IPv4) is in one of the ranges. */
export const allowed = (ranges: ValidConfig['axfrAllow'], address: string): boolean => {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return false;
  }
  return ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net as never, bits));
};
