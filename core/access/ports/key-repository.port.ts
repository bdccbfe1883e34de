import type { ApiKey, TsigCredential } from '../../kernel/caller.js';

export interface KeyListQuery {
  readonly accountId: string;
  /** Members see their own keys only. */
  readonly createdBy?: string;
  readonly after?: string;
  readonly limit: number;
}

export interface KeyRepository {
  insert(key: ApiKey): Promise<void>;
  findById(id: string): Promise<ApiKey | null>;
  /**
   * The key findById would give, when an in-memory copy can be trusted right now (outside a transaction,
   * the cache vouched for: revocations heard); undefined: ask findById. Lets a request with a known key
   * be authenticated without a promise.
   */
  cachedById?(id: string): ApiKey | undefined;
  /** The key whose TSIG credential has this name (compared lower case), revoked or not. */
  findByTsigName(name: string): Promise<ApiKey | null>;
  list(query: KeyListQuery): Promise<ApiKey[]>;
  /** Marks revoked; false when already revoked or unknown. */
  revoke(id: string, at: Date, by: string): Promise<boolean>;
  touchLastUsed(id: string, at: Date): Promise<void>;
  /** Gives a key its TSIG credential; false when it already has one (or is unknown). */
  setTsig(id: string, credential: TsigCredential): Promise<boolean>;
}
