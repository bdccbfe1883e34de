import net from 'node:net';

/**
 * Response rate limiting for UDP answers, after Knot's RRL: a UDP source address is not proven (it may
 * be spoofed), so answers to one network are limited to `rate` per second, a token bucket per source
 * prefix (/24 for IPv4, /56 for IPv6, as Knot's defaults). Past the limit an answer is dropped, except
 * every `slip`-th one, which is sent truncated (TC set, the question only): a real client behind that
 * prefix retries over TCP and is answered there, while a reflection gains nothing (the slipped reply is
 * no larger than the query). TCP is never limited: its source is proven by the handshake. Off unless
 * configured (DNS_RRL_RATE), as in Knot.
 */

export interface RrlConfig {
  /** Answers per second per source prefix (the bucket also holds a second's worth for bursts). */
  readonly rate: number;
  /** Every slip-th limited answer goes out truncated instead of dropped; 0: drop them all (Knot's default: 1). */
  readonly slip: number;
}

export interface RrlStats {
  /** UDP answers sent within the limit. */
  readonly passed: number;
  /** Answers over the limit that were dropped. */
  readonly dropped: number;
  /** Answers over the limit sent truncated instead (TC). */
  readonly slipped: number;
  /** Prefixes with a bucket now. */
  readonly buckets: number;
}

export const Verdict = { Pass: 0, Drop: 1, Slip: 2 } as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

interface Bucket {
  tokens: number;
  at: number;
  limited: number;
}

/** Buckets held at most; past that the idle ones (full again) go, and if none are, all. */
const MAX_BUCKETS = 100_000;

/** The prefix an address counts under: the first 3 octets of IPv4 (IPv4-mapped too), the first 56 bits of IPv6. */
export const sourcePrefix = (address: string): string => {
  const mapped = address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (net.isIPv4(mapped)) return mapped.slice(0, mapped.lastIndexOf('.'));
  // IPv6: the first 3.5 groups of the full form.
  const [head = '', tail] = mapped.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  const g = groups.map((x) => x.padStart(4, '0'));
  return `${g[0]}:${g[1]}:${g[2]}:${(g[3] ?? '0000').slice(0, 2)}`;
};

export class ResponseRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private passed = 0;
  private dropped = 0;
  private slipped = 0;

  constructor(
    private readonly config: RrlConfig,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Whether an answer to `address` goes out (Pass), is dropped, or goes out truncated (Slip). */
  check(address: string): Verdict {
    const key = sourcePrefix(address);
    const t = this.now();
    const { rate, slip } = this.config;
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= MAX_BUCKETS) this.sweep(t);
      b = { tokens: rate, at: t, limited: 0 };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(rate, b.tokens + ((t - b.at) / 1000) * rate);
      b.at = t;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.passed++;
      return Verdict.Pass;
    }
    b.limited++;
    if (slip > 0 && b.limited % slip === 0) {
      this.slipped++;
      return Verdict.Slip;
    }
    this.dropped++;
    return Verdict.Drop;
  }

  stats(): RrlStats {
    return { passed: this.passed, dropped: this.dropped, slipped: this.slipped, buckets: this.buckets.size };
  }

  private sweep(t: number): void {
    const { rate } = this.config;
    for (const [k, b] of this.buckets) if (b.tokens + ((t - b.at) / 1000) * rate >= rate) this.buckets.delete(k);
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }
}

/**
 * Cuts the reply of `len` octets at `at` in `buf` down to its header and question, with TC set and no
 * records (the slipped answer of RRL; the client asks again over TCP). Returns the new length.
 */
export const truncateInPlace = (buf: Buffer, at: number, len: number): number => {
  if (len < 12) return len;
  let end = at + 12;
  if (buf.readUInt16BE(at + 4) === 1) {
    // Our replies copy the question as sent: an uncompressed name, type and class.
    let o = at + 12;
    while (o < at + len && buf[o] !== 0 && buf[o]! <= 63) o += 1 + buf[o]!;
    end = buf[o] === 0 && o + 5 <= at + len ? o + 5 : at + 12;
    if (end === at + 12) buf.writeUInt16BE(0, at + 4);
  }
  buf.writeUInt16BE(buf.readUInt16BE(at + 2) | 0x0200, at + 2);
  buf.writeUInt16BE(0, at + 6);
  buf.writeUInt16BE(0, at + 8);
  buf.writeUInt16BE(0, at + 10);
  return end - at;
};
