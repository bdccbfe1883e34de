import { DomainError } from '../kernel/errors.js';
import type { Person } from '../kernel/person.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';
import type { AttemptCounter, CredentialAttempts } from './ports/credential-attempts.port.js';

/**
 * The one limiter for every check of a password or a TOTP code (sign-in, signing in again, the first code
 * of a new TOTP secret), for the API and the console alike: they call the same use cases, and each use
 * case asks `admit` before it hashes anything.
 *
 * Three counters of failed checks, kept in the store: the API may run as several processes (npm run
 * cluster), and a per-process count would give an attacker one allowance per process, chosen by the
 * load balancer. A check costs an argon2id hash (tens of milliseconds) anyway, so one short store
 * transaction before it is cheap.
 * - the source address (an IPv6 /64 counts as one: a subscriber gets a whole /64, RFC 6177);
 * - the person's sign-in identity, the e-mail as typed (HMAC'd: a mistyped e-mail is often a password),
 *   whether or not anyone has it, so a refusal looks the same for an unknown e-mail as for a known one;
 * - the pair of both, which says whether this address ever failed for this person.
 * A counter allows `free` failures, then each further try waits 1 s, 2 s, 4 s … up to `capMs` after the
 * last failure. A try is counted as failed before it is checked (so a parallel burst cannot slip through
 * between a check and its count); a success ends the person's burst (see `succeeded`). Refused tries are
 * not counted: they cost nothing and must not extend the wait.
 *
 * Keeping the owners in: the person's wait is capped, and an attacker who keeps failing would keep it
 * at the cap and win every race for the moment it ends. So an address that has not failed for this
 * person gets a slot when it is first refused (`admitAt`, at most the cap away) and, once it comes,
 * one check however the person's counter stands meanwhile. The owner on a clean address waits at most
 * the cap; an attacker with many addresses gets one check per address per `pairMemoryMs`, and each
 * address has its own limit across every person. The owners hear once per burst (a burst ends after
 * `quietMs` without a failure).
 */
export interface CredentialLimit {
  /** Failures allowed before the waits begin. */
  readonly free: number;
  /** The longest wait after the last failure. */
  readonly capMs: number;
}

export interface CredentialPolicy {
  readonly address: CredentialLimit;
  readonly person: CredentialLimit;
  /** An address or person counter with no failure for this long starts from zero: the burst is over. */
  readonly quietMs: number;
  /** How long an address is remembered as having failed for a person. */
  readonly pairMemoryMs: number;
}

export const CREDENTIAL_POLICY: CredentialPolicy = {
  address: { free: 20, capMs: 15 * 60_000 },
  person: { free: 5, capMs: 5 * 60_000 },
  quietMs: 60 * 60_000,
  pairMemoryMs: 24 * 60 * 60_000,
};

/** An admitted check: the counters it was counted on, until `succeeded` or `failed` says how it went. */
export interface AdmittedCheck {
  readonly keys: readonly [address: string, person: string, pair: string];
  /** Counted as failed at `admit` (a costly check), or only once it fails (a cheap one). */
  readonly counted: boolean;
  /** A cheap check admitted with the person's and the pair's counters at zero: a success has nothing to clear. */
  readonly clean: boolean;
}

/**
 * How a check is counted. `before` (passwords and codes, the default): counted as failed before it is
 * checked, because a check costs an argon2id hash and a parallel burst must not slip through between a
 * check and its count. `on_failure` (TSIG: one HMAC, microseconds): only a failure is counted, so a client
 * sending many correctly signed messages at once (a certbot run, a batch of nsupdates) is never refused
 * for its own successes in flight; a burst of bad signatures is still counted, one by one, as each fails.
 */
export type CountMode = 'before' | 'on_failure';

/** What CredentialThrottle is built from (one object, named, instead of positions). */
export interface CredentialThrottleDeps extends RecordingDeps {
  readonly attempts: CredentialAttempts;
  readonly hasher: Pick<SecretHasher, 'hmac'>;
  readonly policy?: CredentialPolicy;
}

/** The address as counted: IPv4 (also IPv4-mapped IPv6) whole, IPv6 by its /64. */
export const addressKey = (ip: string): string => {
  const v4 = /^(?:::ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (v4) return v4[1]!;
  const bare = ip.split('%')[0]!.toLowerCase();
  if (!bare.includes(':')) return bare;
  const [head = '', tail] = bare.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
};

/** The three counters with one more failure, now (the pair's slot used up). */
const counted = (
  a: AttemptCounter,
  p: AttemptCounter,
  pair: AttemptCounter,
  now: Date,
): [AttemptCounter, AttemptCounter, AttemptCounter] => {
  const count = (c: AttemptCounter): AttemptCounter => ({ ...c, failures: c.failures + 1, lastFailedAt: now });
  return [count(a), count(p), { ...count(pair), admitAt: null }];
};

const zero = (key: string): AttemptCounter => ({ key, failures: 0, lastFailedAt: null, admitAt: null, notifiedAt: null });

export class CredentialThrottle {
  private readonly policy: CredentialPolicy;

  constructor(private readonly deps: CredentialThrottleDeps) {
    this.policy = deps.policy ?? CREDENTIAL_POLICY;
  }

  /**
   * Before any hashing: refuses with 429 too_many_attempts (and how long to wait), or counts the check
   * as failed until `succeeded` takes it back. `identity` is the e-mail as the person signs in with it.
   */
  async admit(address: string, identity: string, mode: CountMode = 'before'): Promise<AdmittedCheck> {
    // Both HMAC'd: fixed-length keys whatever a client sends as its address (X-Forwarded-For behind a
    // proxy), and no address or e-mail kept in the clear.
    const addr = this.deps.hasher.hmac(`credential-address:${addressKey(address)}`);
    const id = this.deps.hasher.hmac(`credential:${identity.trim().toLowerCase()}`);
    const keys = [`addr:${addr}`, `person:${id}`, `pair:${id}:${addr}`] as const;
    const now = this.deps.clock.now();
    if (mode === 'on_failure') {
      // Nothing is written unless the check must wait: one unlocked read decides a check that may go
      // (a TSIG MAC per signed DNS message), without a transaction and its row locks (Postgres) or the
      // one write lock (SQLite). A check that must wait takes the locked path below, which decides again.
      const [a, p, pair] = this.fresh(keys, await this.deps.attempts.peek(keys), now);
      if (this.wait(a, this.policy.address, now) === 0 && this.wait(p, this.policy.person, now) === 0) {
        return { keys, counted: false, clean: p.failures === 0 && pair.failures === 0 && pair.admitAt === null };
      }
    }
    let clean = false;
    const refusal = await this.deps.uow.transaction(async () => {
      const [a, p, pair] = await this.load(keys, now);
      const addressWait = this.wait(a, this.policy.address, now);
      let personWait = this.wait(p, this.policy.person, now);
      let slot = pair.admitAt;
      if (personWait > 0 && pair.failures === 0) {
        // A clean address: its slot, once given, holds however the person's counter moves meanwhile.
        if (slot === null) slot = new Date(now.getTime() + personWait);
        personWait = Math.max(0, slot.getTime() - now.getTime());
      }
      const waitMs = Math.max(addressWait, personWait);
      if (waitMs > 0) {
        if (slot !== pair.admitAt) await this.deps.attempts.save([{ ...pair, admitAt: slot }]);
        return waitMs;
      }
      if (mode === 'on_failure') {
        clean = p.failures === 0 && pair.failures === 0 && pair.admitAt === null;
        return 0;
      }
      await this.deps.attempts.save(counted(a, p, pair, now));
      return 0;
    });
    if (refusal > 0) throw new DomainError('too_many_attempts', { retry_after: Math.max(1, Math.ceil(refusal / 1000)) });
    return { keys, counted: mode === 'before', clean };
  }

  /**
   * The check passed: the person proved both factors, so their burst is over (the person's and the pair's
   * counters start from zero; a later attack is a new burst, told again). The address only gets this
   * check's count back: an attacker signing in to an account of their own must not clear their address.
   */
  async succeeded(check: AdmittedCheck): Promise<void> {
    if (!check.counted && check.clean) return;
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      const [a, p, pair] = await this.load(check.keys, now);
      await this.deps.attempts.save([check.counted ? { ...a, failures: Math.max(0, a.failures - 1) } : a, zero(p.key), zero(pair.key)]);
    });
  }

  /**
   * The check failed (it stays counted). When this failure starts the person's waits, the owners of the
   * person's account are told, once per burst, and never for an e-mail nobody has.
   */
  async failed(check: AdmittedCheck, person: Person | null): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      let [a, p, pair] = await this.load(check.keys, now);
      if (!check.counted) {
        [a, p, pair] = counted(a, p, pair, now);
        await this.deps.attempts.save([a, p, pair]);
      }
      if (p.failures < this.policy.person.free || p.notifiedAt !== null) return;
      await this.deps.attempts.save([{ ...p, notifiedAt: now }]);
      if (!person) return;
      await this.deps.events.record(
        'person.sign_in_throttled',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: 'system:sign-in', occurredAt: now },
        { email: person.email, failures: p.failures },
      );
    });
  }

  /** Housekeeping: drops counters that would start from zero anyway. */
  async prune(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - Math.max(this.policy.quietMs, this.policy.pairMemoryMs));
    return this.deps.attempts.prune(before);
  }

  /** The counters, locked, with a finished burst (or a forgotten pair) read as zero. */
  private async load(keys: readonly [string, string, string], now: Date): Promise<[AttemptCounter, AttemptCounter, AttemptCounter]> {
    return this.fresh(keys, await this.deps.attempts.lock(keys), now);
  }

  /** The three counters from the rows read, with a finished burst (or a forgotten pair) read as zero. */
  private fresh(
    keys: readonly [string, string, string],
    rows: readonly AttemptCounter[],
    now: Date,
  ): [AttemptCounter, AttemptCounter, AttemptCounter] {
    const found = new Map(rows.map((c) => [c.key, c]));
    const fresh = (key: string, memoryMs: number): AttemptCounter => {
      const c = found.get(key) ?? zero(key);
      const last = Math.max(c.lastFailedAt?.getTime() ?? 0, c.admitAt?.getTime() ?? 0);
      return last !== 0 && now.getTime() - last >= memoryMs ? zero(key) : c;
    };
    return [fresh(keys[0], this.policy.quietMs), fresh(keys[1], this.policy.quietMs), fresh(keys[2], this.policy.pairMemoryMs)];
  }

  /** How long a counter makes the next try wait: nothing within `free`, then doubling from 1 s to the cap. */
  private wait(c: AttemptCounter, limit: CredentialLimit, now: Date): number {
    if (c.failures < limit.free || c.lastFailedAt === null) return 0;
    const backoff = Math.min(limit.capMs, 1000 * 2 ** Math.min(30, c.failures - limit.free));
    return Math.max(0, c.lastFailedAt.getTime() + backoff - now.getTime());
  }
}
