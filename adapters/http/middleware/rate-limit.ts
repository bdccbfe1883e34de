/**
 * Token buckets per caller (per key, or per client address for calls without a key). In-process:
 * with several API processes each enforces its own share (documented in the README).
 * Headers follow the IETF RateLimit header fields draft: RateLimit-Limit (bucket size),
 * RateLimit-Remaining (whole tokens left), RateLimit-Reset (seconds until the bucket is full again).
 */
export interface BucketConfig {
  /** Burst size: requests that may arrive at once. DESIGN: at least 100. */
  readonly burst: number;
  /** Sustained requests per second. */
  readonly perSecond: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
  readonly retryAfterSeconds: number;
}

/** The bucket a key spends: its API calls, and the DNS UPDATEs and signed transfers of its TSIG credential. */
export const keyBucketId = (keyId: string): string => `key:${keyId}`;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly config: BucketConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `cost` tokens at once, or none: a refused request spends nothing. */
  take(id: string, cost = 1): RateDecision {
    const t = this.now();
    const { burst, perSecond } = this.config;
    const b = this.buckets.get(id) ?? { tokens: burst, at: t };
    b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * perSecond);
    b.at = t;
    const allowed = b.tokens >= cost;
    if (allowed) b.tokens -= cost;
    this.buckets.set(id, b);
    if (this.buckets.size > 100_000) this.evict(t);
    return {
      allowed,
      limit: burst,
      remaining: Math.floor(b.tokens),
      resetSeconds: Math.ceil((burst - b.tokens) / perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((cost - b.tokens) / perSecond)),
    };
  }

  /** Full buckets carry no information; drop them. */
  private evict(t: number): void {
    for (const [id, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.config.perSecond >= this.config.burst) this.buckets.delete(id);
    }
  }
}
