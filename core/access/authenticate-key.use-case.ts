import type { Clock } from '../kernel/clock.port.js';
import { endOfKyivDay } from '../kernel/dates.js';
import { DomainError } from '../kernel/errors.js';
import { cidrContains } from './cidr.js';
import type { ApiKey } from '../kernel/caller.js';
import { checksumOf, parseToken } from './key-token.js';
import type { KeyRepository } from './ports/key-repository.port.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';

/** last_used_at is written at most this often per key, so the read path is not a write path. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** An HMAC of no real key, compared against when the id is unknown, so timing does not tell. */
const DUMMY_HASH = '0'.repeat(64);

/**
 * Seed A1–A3 and DESIGN: resolves a bearer key, in this order — shape and checksum, lookup by id,
 * constant-time hash comparison (also for unknown ids), revocation, expiry, then the caller's address.
 */
export class AuthenticateKey {
  constructor(
    private readonly keys: KeyRepository,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async execute(token: string, clientIp: string): Promise<ApiKey> {
    const parsed = parseToken(token);
    if (!parsed || checksumOf(parsed.body, (t) => this.hasher.crc32(t)) !== parsed.checksum) {
      throw new DomainError('key_invalid');
    }
    const key = await this.keys.findById(parsed.id);
    const presented = this.hasher.hmac(token);
    const matches = this.hasher.equal(presented, key?.secretHash ?? DUMMY_HASH);
    if (!key || !matches || key.environment !== parsed.environment) throw new DomainError('key_invalid');
    if (key.revokedAt) throw new DomainError('key_revoked', { key_id: key.id });
    const now = this.clock.now();
    if (now > endOfKyivDay(key.conditions.expiresOn)) {
      throw new DomainError('key_expired', { key_id: key.id, expires_on: key.conditions.expiresOn });
    }
    if (key.conditions.cidr && !cidrContains(key.conditions.cidr, clientIp)) {
      throw new DomainError('ip_not_allowed', { ip: clientIp, cidr: key.conditions.cidr });
    }
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      key.lastUsedAt = now;
      await this.keys.touchLastUsed(key.id, now);
    }
    return key;
  }
}
