import type { Clock } from '../kernel/clock.port.js';
import { endOfKyivDay } from '../kernel/dates.js';
import { DomainError } from '../kernel/errors.js';
import { cidrContains } from './cidr.js';
import type { ApiKey } from '../kernel/caller.js';
import { checksumOf, parseToken, tokenIdAt } from './key-token.js';
import type { Environment } from '../kernel/environment.js';
import type { KeyRepository } from './ports/key-repository.port.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';

/** last_used_at is written at most this often per key, so the read path is not a write path. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** An HMAC of no real key, compared against when the id is unknown, so timing does not tell. */
const DUMMY_HASH = '0'.repeat(64);

/**
 * A token that matched its key's stored hash is remembered this long, with that hash: the same bytes
 * against the same stored hash need no second checksum and HMAC (what the keyed read spent most on after
 * routing). Only the hash comparison is skipped: the key itself is read on every request (its cache follows
 * revocations across processes within 5 s), and revocation, expiry and the CIDR are checked every time.
 */
export const VERIFIED_TOKEN_MS = 60_000;
/** At most this many remembered tokens (one per key); past it the memory starts again. */
const VERIFIED_TOKEN_MAX = 10_000;

/** Equal strings, in time that depends only on their length (a token's length is public). */
const sameText = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
};

interface Verified {
  readonly token: string;
  readonly id: string;
  readonly environment: Environment;
  /** The stored hash the token matched. */
  readonly secretHash: string;
  readonly at: number;
}

/**
 * Seed A1–A3 and DESIGN: resolves a bearer key, in this order — shape and checksum, lookup by id,
 * constant-time hash comparison (also for unknown ids), revocation, expiry, then the caller's address.
 */
export class AuthenticateKey {
  /** By key id: the last token verified for it, the stored hash it matched, and when (see VERIFIED_TOKEN_MS). */
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly keys: KeyRepository,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  /**
   * `execute` without a promise, for a token verified before whose key is in memory (the repository's
   * cache vouches for it) and whose last_used_at needs no write: the same checks and the same refusals.
   * Undefined when any of that is not so: then `execute` decides.
   */
  known(token: string, clientIp: string): ApiKey | undefined {
    const now = this.clock.now();
    const seen = this.remembered(token, now);
    if (!seen) return undefined;
    const key = this.keys.cachedById?.(seen.id);
    if (!key || key.secretHash !== seen.secretHash || key.environment !== seen.environment || this.touchDue(key, now)) return undefined;
    this.admit(key, now, clientIp);
    return key;
  }

  async execute(token: string, clientIp: string): Promise<ApiKey> {
    const now = this.clock.now();
    const seen = this.remembered(token, now);
    let id: string;
    let environment: Environment;
    if (seen) {
      ({ id, environment } = seen);
    } else {
      const parsed = parseToken(token);
      if (!parsed || checksumOf(parsed.body, (t) => this.hasher.crc32(t)) !== parsed.checksum) {
        throw new DomainError('key_invalid');
      }
      ({ id, environment } = parsed);
    }
    const key = await this.keys.findById(id);
    const matches =
      seen && key !== null && key.secretHash === seen.secretHash
        ? true
        : this.hasher.equal(this.hasher.hmac(token), key?.secretHash ?? DUMMY_HASH);
    if (!key || !matches || key.environment !== environment) throw new DomainError('key_invalid');
    if (!seen) {
      if (this.verified.size >= VERIFIED_TOKEN_MAX) this.verified.clear();
      this.verified.set(key.id, { token, id: key.id, environment, secretHash: key.secretHash, at: now.getTime() });
    }
    this.admit(key, now, clientIp);
    if (this.touchDue(key, now)) {
      key.lastUsedAt = now;
      await this.keys.touchLastUsed(key.id, now);
    }
    return key;
  }

  /** The very bytes verified before, within VERIFIED_TOKEN_MS (compared in constant time): their shape and checksum were right then. */
  private remembered(token: string, now: Date): Verified | undefined {
    const seen = this.verified.get(tokenIdAt(token));
    if (seen === undefined) return undefined;
    const age = now.getTime() - seen.at;
    return age >= 0 && age < VERIFIED_TOKEN_MS && sameText(seen.token, token) ? seen : undefined;
  }

  /** After the hash: revocation, expiry, then the caller's address. */
  private admit(key: ApiKey, now: Date, clientIp: string): void {
    if (key.revokedAt) throw new DomainError('key_revoked', { key_id: key.id });
    if (now.getTime() > endOfKyivDay(key.conditions.expiresOn).getTime()) {
      throw new DomainError('key_expired', { key_id: key.id, expires_on: key.conditions.expiresOn });
    }
    if (key.conditions.cidr && !cidrContains(key.conditions.cidr, clientIp)) {
      throw new DomainError('ip_not_allowed', { ip: clientIp, cidr: key.conditions.cidr });
    }
  }

  private touchDue(key: ApiKey, now: Date): boolean {
    return !key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS;
  }
}
