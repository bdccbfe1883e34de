import type { ApiKey, TsigAlgorithmName, TsigCredential } from '../../../core/kernel/caller.js';
import type { Policy } from '../../../core/access/policy.js';
import type { KeyListQuery, KeyRepository } from '../../../core/access/ports/key-repository.port.js';
import type { DangerClass } from '../../../core/kernel/rights.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, dateOrNull, iso, json, parse } from '../rows.js';
import type { ChangeAnnouncer } from '../../../core/kernel/change-feed.port.js';
import type { FeedCache } from '../change-feed.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type KeyRow = {
  id: string;
  account_id: string;
  environment: string;
  name: string;
  created_by: string;
  policies: string;
  cidr: string | null;
  expires_on: string;
  spend_limit: string | number | null;
  class: number;
  secret_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_by: string | null;
  tsig_name?: string | null;
  tsig_algorithm?: string | null;
  tsig_secret?: string | null;
};

const toKey = (r: KeyRow): ApiKey => ({
  id: r.id,
  accountId: r.account_id,
  environment: r.environment as Environment,
  name: r.name,
  createdBy: r.created_by,
  policies: parse<Policy[]>(r.policies),
  conditions: { cidr: r.cidr, expiresOn: r.expires_on, spendLimit: r.spend_limit === null ? null : Number(r.spend_limit) },
  class: Number(r.class) as DangerClass,
  secretHash: r.secret_hash,
  createdAt: date(r.created_at),
  lastUsedAt: dateOrNull(r.last_used_at),
  revokedAt: dateOrNull(r.revoked_at),
  revokedBy: r.revoked_by,
  tsig:
    r.tsig_name && r.tsig_algorithm && r.tsig_secret
      ? { name: r.tsig_name, algorithm: r.tsig_algorithm as TsigAlgorithmName, sealedSecret: r.tsig_secret }
      : null,
});

/**
 * Keys, with a read-through cache for the authentication hot path. DESIGN: revocation takes effect at
 * once in the process that revokes (the entry is dropped here) and within 5 seconds everywhere else:
 * the revocation is announced in its transaction and every process drops the entry when it hears it
 * (the change feed, ~1 s at most); while the feed is not live nothing is served from the cache.
 * Without a feed (a store of its own), entries live KEY_CACHE_TTL_MS as before.
 */
export const KEY_CACHE_TTL_MS = 4_000;

export class SqlKeyRepository implements KeyRepository {
  private readonly cache = new Map<string, { key: ApiKey; at: number }>();
  private readonly tsigIds = new Map<string, string>();

  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly now: () => number = Date.now,
    private readonly shared: FeedCache<ApiKey> | null = null,
    private readonly announcer: ChangeAnnouncer | null = null,
  ) {}

  async insert(k: ApiKey): Promise<void> {
    await this.uow
      .db()('api_keys')
      .insert({
        id: k.id,
        account_id: k.accountId,
        environment: k.environment,
        name: k.name,
        created_by: k.createdBy,
        policies: json(k.policies),
        cidr: k.conditions.cidr,
        expires_on: k.conditions.expiresOn,
        spend_limit: k.conditions.spendLimit,
        class: k.class,
        secret_hash: k.secretHash,
        created_at: iso(k.createdAt),
        last_used_at: null,
        revoked_at: null,
        revoked_by: null,
        tsig_name: k.tsig?.name ?? null,
        tsig_algorithm: k.tsig?.algorithm ?? null,
        tsig_secret: k.tsig?.sealedSecret ?? null,
      });
  }

  cachedById(id: string): ApiKey | undefined {
    // Inside a transaction the row may be about to change: never from the cache.
    if (this.uow.inTransaction()) return undefined;
    if (this.shared) return this.shared.get(id);
    const hit = this.cache.get(id);
    return hit && this.now() - hit.at < KEY_CACHE_TTL_MS ? hit.key : undefined;
  }

  async findById(id: string): Promise<ApiKey | null> {
    // Inside a transaction the row may be about to change: read it, never cache it.
    const inTx = this.uow.inTransaction();
    if (this.shared) {
      if (inTx) {
        const r = await this.uow.db()('api_keys').where({ id }).first();
        return r ? toKey(r) : null;
      }
      const cached = this.shared.get(id);
      if (cached) return cached;
      const begun = this.shared.begin();
      const r = await this.uow.db()('api_keys').where({ id }).first();
      if (!r) return null;
      const key = toKey(r);
      this.shared.set(id, key, begun);
      return key;
    }
    const hit = inTx ? undefined : this.cache.get(id);
    if (hit && this.now() - hit.at < KEY_CACHE_TTL_MS) return hit.key;
    const r = await this.uow.db()('api_keys').where({ id }).first();
    if (inTx) return r ? toKey(r) : null;
    if (!r) {
      this.cache.delete(id);
      return null;
    }
    const key = toKey(r);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(id, { key, at: this.now() });
    return key;
  }

  /**
   * The key whose TSIG credential has this name (lower case). The name never changes, so name → id is
   * remembered; the key itself comes through findById, whose cache follows revocations across processes.
   */
  async findByTsigName(name: string): Promise<ApiKey | null> {
    const lower = name.toLowerCase();
    let id = this.tsigIds.get(lower);
    if (id === undefined) {
      const r = (await this.uow.db()('api_keys').where({ tsig_name: lower }).first('id')) as { id: string } | undefined;
      if (!r) return null;
      id = r.id;
      if (this.tsigIds.size > 50_000) this.tsigIds.clear();
      this.tsigIds.set(lower, id);
    }
    return this.findById(id);
  }

  async list(q: KeyListQuery): Promise<ApiKey[]> {
    const query = this.uow.db()('api_keys').where({ account_id: q.accountId }).orderBy('id').limit(q.limit);
    if (q.createdBy) query.andWhere({ created_by: q.createdBy });
    if (q.after) query.andWhere('id', '>', q.after);
    return (await query).map(toKey);
  }

  async revoke(id: string, at: Date, by: string): Promise<boolean> {
    this.cache.delete(id);
    this.shared?.delete(id);
    // Again once committed: a lookup between here and the commit may have cached the old row.
    this.uow.afterCommit(() => {
      this.cache.delete(id);
      this.shared?.delete(id);
    });
    const n = await this.uow
      .db()('api_keys')
      .where({ id })
      .whereNull('revoked_at')
      .update({ revoked_at: iso(at), revoked_by: by });
    // Every other process drops it once this commits.
    if (n > 0) await this.announcer?.announce('key', id);
    return n > 0;
  }

  async setTsig(id: string, credential: TsigCredential): Promise<boolean> {
    const drop = () => {
      this.cache.delete(id);
      this.shared?.delete(id);
    };
    drop();
    this.uow.afterCommit(drop);
    const n = await this.uow
      .db()('api_keys')
      .where({ id })
      .whereNull('tsig_name')
      .update({ tsig_name: credential.name.toLowerCase(), tsig_algorithm: credential.algorithm, tsig_secret: credential.sealedSecret });
    // Every other process drops its copy of the key once this commits (the DNS workers then find the credential).
    if (n > 0) await this.announcer?.announce('key', id);
    return n > 0;
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.uow
      .db()('api_keys')
      .where({ id })
      .update({ last_used_at: iso(at) });
  }
}
