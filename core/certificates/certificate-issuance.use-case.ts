import type { RecordingDeps } from '../kernel/recording-deps.js';
import { withDefaults } from '../kernel/defaults.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { CaEnvironments } from './ports/certificate-authority.port.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { isDomainError } from '../kernel/errors.js';
import type { Certificate } from './certificate.js';
import { CertificateAuthorityError, type DnsChallengeSolver } from './ports/certificate-authority.port.js';
import type { CertificateKeys } from './ports/certificate-keys.port.js';
import type { CertificateRepository } from './ports/certificate-repository.port.js';

const DAY = 24 * 3600_000;
const LEASE_MS = 10 * 60_000;
const BATCH = 20;
/** Backoff after a retryable failure (CA down, rate limited): 1 min, 5 min, 30 min, 2 h, 6 h. */
const BACKOFF_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 6 * 3600_000];

export interface IssuanceOptions {
  /** Renew this long before expiry (default 30 days; at most a third of the certificate's lifetime). */
  readonly renewBeforeMs: number;
  /** Retryable failures before an issuance is given up as failed (renewals keep trying until expiry). */
  readonly maxAttempts: number;
}

export const DEFAULT_ISSUANCE: IssuanceOptions = { renewBeforeMs: 30 * DAY, maxAttempts: 5 };

export interface IssuanceReport {
  issued: number;
  renewed: number;
  failed: number;
  retried: number;
  expired: number;
  /** Certificates whose run threw something unexpected (reported through onError; retried later). */
  errors: number;
}

/** Builds the DNS-01 solver for one certificate: writes through our own zones as an internal actor. */
export type SolverFactory = (certificate: Certificate) => DnsChallengeSolver;

/** What CertificateIssuance is built from (one object, named, instead of positions). */
export interface CertificateIssuanceDeps extends RecordingDeps {
  readonly certificates: CertificateRepository;
  readonly environments: CaEnvironments;
  readonly solverFor: SolverFactory;
  readonly keys: CertificateKeys;
  readonly box: SecretBox;
  readonly accountTime: AccountClock;
  readonly options?: IssuanceOptions;
  /** Where unexpected errors of one certificate's run go (the worker's log); the pass goes on. */
  readonly onError?: (err: unknown, certificateId: string) => void;
}

/**
 * Runs the CA for certificates: first issuance of pending ones, renewal of issued ones when due
 * (in place: same id, new chain, a new key when we hold the key), and expiry. Work on one certificate
 * is guarded by a lease, so the API process that accepted a request and any number of workers never
 * run one order twice at once. The CA call happens outside any transaction; its outcome is written in
 * one, with an event and an attempt record.
 */
export class CertificateIssuance {
  private readonly deps: Required<CertificateIssuanceDeps>;

  constructor(deps: CertificateIssuanceDeps) {
    this.deps = withDefaults(deps, { options: DEFAULT_ISSUANCE, onError: () => undefined });
  }

  /** Works on one certificate now if it needs work and nobody else holds it (the API's fast path). */
  async process(id: string): Promise<void> {
    const token = this.deps.random.id();
    const now = this.deps.clock.now();
    if (!(await this.deps.certificates.lease(id, token, now, new Date(now.getTime() + LEASE_MS)))) return;
    try {
      const c = await this.deps.certificates.find(id);
      if (c) await this.advance(c, await this.deps.accountTime.now(c.accountId, c.environment));
    } finally {
      await this.deps.certificates.releaseLease(id, token);
    }
  }

  /** The worker's pass: everything due, each account's test environment on its own sandbox clock. */
  async run(only?: { accountId: string; environment: Environment }): Promise<IssuanceReport> {
    const report: IssuanceReport = { issued: 0, renewed: 0, failed: 0, retried: 0, expired: 0, errors: 0 };
    const real = this.deps.clock.now();
    const travelled = await this.deps.accountTime.travelled();
    const groups: Array<{ environment: Environment; accountId?: string; exclude?: string[]; accountNow: Date }> = only
      ? [{ ...only, accountNow: await this.deps.accountTime.now(only.accountId, only.environment) }]
      : [
          { environment: 'live', accountNow: real },
          { environment: 'test', exclude: travelled.map((t) => t.accountId), accountNow: real },
          ...travelled.map((t) => ({
            environment: 'test' as const,
            accountId: t.accountId,
            accountNow: new Date(real.getTime() + t.offsetMs),
          })),
        ];
    for (const g of groups) {
      if (!this.deps.environments.isAvailable(g.environment)) continue;
      for (let page = 0; page < 50; page++) {
        const token = this.deps.random.id();
        const now = this.deps.clock.now();
        const claimed = await this.deps.certificates.claimDue({
          environment: g.environment,
          ...(g.accountId ? { accountId: g.accountId } : {}),
          ...(g.exclude ? { excludeAccounts: g.exclude } : {}),
          accountNow: g.accountNow,
          now,
          leaseUntil: new Date(now.getTime() + LEASE_MS),
          token,
          limit: BATCH,
        });
        for (const c of claimed) {
          try {
            const outcome = await this.advance(c, g.accountNow);
            if (outcome) report[outcome]++;
          } catch (err) {
            report.errors++;
            this.deps.onError(err, c.id);
          } finally {
            await this.deps.certificates.releaseLease(c.id, token);
          }
        }
        if (claimed.length < BATCH) break;
      }
    }
    return report;
  }

  private async advance(c: Certificate, accountNow: Date): Promise<keyof IssuanceReport | null> {
    const now = this.deps.clock.now();
    const retryDue = !c.nextAttemptAt || c.nextAttemptAt.getTime() <= now.getTime();
    if (c.status === 'pending') return retryDue ? this.attempt(c, 'issue', accountNow) : null;
    if (c.status !== 'issued') return null;
    const renewalDue = c.autoRenew && c.renewAfter !== null && c.renewAfter.getTime() <= accountNow.getTime();
    if (renewalDue && retryDue) {
      const outcome = await this.attempt(c, 'renew', accountNow);
      if (outcome === 'renewed') return outcome;
      c = (await this.deps.certificates.find(c.id)) ?? c;
    }
    if (c.status === 'issued' && c.notAfter && c.notAfter.getTime() <= accountNow.getTime()) return this.expire(c);
    return null;
  }

  private async attempt(c: Certificate, kind: 'issue' | 'renew', accountNow: Date): Promise<keyof IssuanceReport> {
    const startedAt = this.deps.clock.now();
    const ca = this.deps.environments.get(c.environment).ca;
    // A renewal of a certificate whose key we hold gets a fresh key; a client's CSR is used again.
    const fresh = kind === 'renew' && c.keySealed ? await this.deps.keys.generate(c.names) : null;
    const csrPem = fresh ? fresh.csrPem : c.csrPem;
    let issued;
    try {
      issued = await ca.issue({ names: c.names, csrPem, solver: this.deps.solverFor(c), at: accountNow });
    } catch (err) {
      const known = err instanceof CertificateAuthorityError;
      // Our own DNS refusing the proof (zone gone, too busy) is ours to say, and worth another try.
      const reason = known
        ? err.reason
        : isDomainError(err)
          ? `Our DNS could not publish the DNS-01 proof (${err.code}${err.fact('domain') ? `: ${String(err.fact('domain'))}` : ''}).`
          : 'The certificate authority could not be reached or answered unexpectedly.';
      const retryable = known ? err.retryable : true;
      await this.failed(c, kind, reason, retryable, startedAt);
      if (!known && !isDomainError(err)) throw err; // the caller reports what it was
      return retryable && (kind === 'renew' || c.attempts + 1 < this.deps.options.maxAttempts) ? 'retried' : 'failed';
    }
    const now = this.deps.clock.now();
    const lifetime = issued.notAfter.getTime() - issued.notBefore.getTime();
    const renewAfter = new Date(issued.notAfter.getTime() - Math.min(this.deps.options.renewBeforeMs, Math.floor(lifetime / 3)));
    const next: Certificate = {
      ...c,
      status: 'issued',
      ca: ca.kind,
      csrPem,
      keySealed: fresh ? this.deps.box.seal(fresh.privateKeyPem) : c.keySealed,
      chainPem: issued.chainPem,
      notBefore: issued.notBefore,
      notAfter: issued.notAfter,
      issuer: issued.issuer,
      serial: issued.serial,
      failureReason: null,
      attempts: 0,
      nextAttemptAt: null,
      renewAfter,
      updatedAt: now,
      issuedAt: now,
    };
    const written = await this.deps.uow.transaction(async () => {
      // Only if nobody revoked it while the CA worked: a revocation must never be undone.
      if (!(await this.deps.certificates.update(next, c.status))) return false;
      await this.deps.certificates.recordAttempt({
        id: this.deps.random.id(),
        certificateId: c.id,
        kind,
        outcome: 'issued',
        reason: null,
        startedAt,
        finishedAt: now,
      });
      await this.deps.events.record(
        kind === 'issue' ? 'certificate.issued' : 'certificate.renewed',
        {
          accountId: c.accountId,
          environment: c.environment,
          subject: `certificate:${c.id}`,
          actor: 'system:certificates',
          occurredAt: now,
        },
        { names: [...c.names], serial: issued.serial, issuer: issued.issuer, not_after: issued.notAfter.toISOString() },
      );
      return true;
    });
    if (!written) {
      // Superseded (RFC 5280 reason 4); best effort, it is never handed out, so a failure is only reported.
      await ca.revoke(issued.chainPem, 4).catch((err: unknown) => this.deps.onError(err, c.id));
      return 'failed';
    }
    return kind === 'issue' ? 'issued' : 'renewed';
  }

  private async failed(c: Certificate, kind: 'issue' | 'renew', reason: string, retryable: boolean, startedAt: Date): Promise<void> {
    const now = this.deps.clock.now();
    const attempts = c.attempts + 1;
    const giveUp = kind === 'issue' && (!retryable || attempts >= this.deps.options.maxAttempts);
    // A failed renewal leaves the certificate issued and tries again (daily after a refusal) until it expires.
    const wait = retryable ? BACKOFF_MS[Math.min(attempts - 1, BACKOFF_MS.length - 1)]! : DAY;
    const next: Certificate = {
      ...c,
      status: giveUp ? 'failed' : c.status,
      failureReason: reason,
      attempts,
      nextAttemptAt: giveUp ? null : new Date(now.getTime() + wait),
      updatedAt: now,
    };
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.certificates.update(next, c.status))) return; // revoked meanwhile: nothing to record
      await this.deps.certificates.recordAttempt({
        id: this.deps.random.id(),
        certificateId: c.id,
        kind,
        outcome: giveUp || !retryable ? 'failed' : 'retry',
        reason,
        startedAt,
        finishedAt: now,
      });
      if (giveUp || kind === 'renew') {
        await this.deps.events.record(
          giveUp ? 'certificate.failed' : 'certificate.renewal_failed',
          {
            accountId: c.accountId,
            environment: c.environment,
            subject: `certificate:${c.id}`,
            actor: 'system:certificates',
            occurredAt: now,
          },
          { names: [...c.names], domains: [...c.domains], reason, attempts, retryable, not_after: c.notAfter?.toISOString() ?? null },
        );
      }
    });
  }

  private async expire(c: Certificate): Promise<'expired'> {
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.certificates.update({ ...c, status: 'expired', nextAttemptAt: null, updatedAt: now }, 'issued'))) return;
      await this.deps.events.record(
        'certificate.expired',
        {
          accountId: c.accountId,
          environment: c.environment,
          subject: `certificate:${c.id}`,
          actor: 'system:certificates',
          occurredAt: now,
        },
        { names: [...c.names], domains: [...c.domains], not_after: c.notAfter?.toISOString() ?? null },
      );
    });
    return 'expired';
  }
}
