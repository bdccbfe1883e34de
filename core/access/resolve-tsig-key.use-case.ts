import type { ApiKey, TsigAlgorithmName } from '../kernel/caller.js';
import type { Clock } from '../kernel/clock.port.js';
import { endOfKyivDay } from '../kernel/dates.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { KeyRepository } from './ports/key-repository.port.js';
import type { TsigReplays } from './ports/tsig-replays.port.js';

/** Longer than any accepted message's window (fudge up to 65535 s either side is refused above 300 s by the adapter). */
export const REPLAY_MEMORY_MS = 20 * 60_000;

/** Opened TSIG secrets kept per process (one per key that signed lately; the map starts over past this). */
const OPENED_MAX = 10_000;

/** A usable TSIG credential: its key (policies, conditions) and the secret, opened for checking a MAC. */
export interface ResolvedTsigKey {
  readonly ok: true;
  readonly key: ApiKey;
  readonly name: string;
  readonly algorithm: TsigAlgorithmName;
  /** Base64, as issued. Never logged. */
  readonly secret: string;
}

export type TsigKeyLookup =
  ResolvedTsigKey | { readonly ok: false; readonly reason: 'unknown' | 'revoked' | 'expired'; readonly keyId?: string };

/**
 * The TSIG credential named in a signed DNS message (RFC 8945 §5.2.1). The credential IS the key: a
 * revoked or expired key has no usable credential, at once in this process and within 5 seconds in every
 * other (the key comes through the key repository's cache, which follows revocations across processes).
 */
export class ResolveTsigKey {
  constructor(
    private readonly keys: KeyRepository,
    private readonly box: SecretBox,
    private readonly clock: Clock,
    private readonly replays: TsigReplays,
  ) {}

  /**
   * A verified message's first use: false when the same (key, time signed, MAC) was accepted before,
   * here or in another DNS worker. What is older than twice the widest window is forgotten now and then.
   */
  async firstUse(keyId: string, timeSigned: number, mac: string): Promise<boolean> {
    const now = this.clock.now();
    if (++this.claims % 1000 === 1) await this.replays.purge(new Date(now.getTime() - REPLAY_MEMORY_MS));
    return this.replays.claim(keyId, timeSigned, mac, now);
  }

  private claims = 0;

  /**
   * Sealed secret → opened (base64): opening costs an AEAD decryption per signed message otherwise. Only a
   * cache of the decryption: the key itself (revocation, expiry) is read through the key repository on every
   * message, and a credential is never changed in place (a new one is sealed anew), so an entry is never stale.
   */
  private readonly opened = new Map<string, string>();

  async execute(name: string): Promise<TsigKeyLookup> {
    const key = await this.keys.findByTsigName(name);
    if (!key || !key.tsig) return { ok: false, reason: 'unknown' };
    if (key.revokedAt) return { ok: false, reason: 'revoked', keyId: key.id };
    if (this.clock.now() > endOfKyivDay(key.conditions.expiresOn)) return { ok: false, reason: 'expired', keyId: key.id };
    return { ok: true, key, name: key.tsig.name, algorithm: key.tsig.algorithm, secret: this.open(key.tsig.sealedSecret) };
  }

  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.box.open(sealed);
      if (this.opened.size >= OPENED_MAX) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }
}
