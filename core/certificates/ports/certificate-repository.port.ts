import type { Environment } from '../../kernel/environment.js';
import type { Certificate, CertificateAttempt, CertificateStatus } from '../certificate.js';

export interface DueQuery {
  readonly environment: Environment;
  readonly accountId?: string;
  readonly excludeAccounts?: readonly string[];
  /** The account's time (sandbox time for test): renewals and expiry are judged by it. */
  readonly accountNow: Date;
  /** Real time: retries (next_attempt_at) and leases are judged by it. */
  readonly now: Date;
  readonly leaseUntil: Date;
  readonly token: string;
  readonly limit: number;
}

export interface CertificateRepository {
  insert(c: Certificate): Promise<void>;
  /**
   * Writes every mutable field of `c` (status, chain, key, dates, failure, attempts, times) — only if
   * the stored status is still `expected`; false when it is not (revoked meanwhile, say).
   */
  update(c: Certificate, expected: CertificateStatus): Promise<boolean>;
  find(id: string): Promise<Certificate | null>;
  /** Newest first, keyset pages on (created_at, id); `domains` limits to certificates all of whose domains are listed. */
  list(
    accountId: string,
    environment: Environment,
    q: { before?: string; limit: number; domains?: readonly string[] | null; domain?: string },
  ): Promise<Certificate[]>;
  /** The newest certificates (at most `limit`) linked to any of `domains` (registered domains) in `environment`, newest first. */
  newestForDomains(environment: Environment, domains: readonly string[], limit: number): Promise<Certificate[]>;
  /** Takes the lease on one certificate if free; false when another worker holds it. */
  lease(id: string, token: string, now: Date, until: Date): Promise<boolean>;
  /** Claims certificates needing work (pending and due, issued and due for renewal or past expiry). */
  claimDue(q: DueQuery): Promise<Certificate[]>;
  releaseLease(id: string, token: string): Promise<void>;
  recordAttempt(a: CertificateAttempt): Promise<void>;
  attempts(certificateId: string, limit: number): Promise<CertificateAttempt[]>;
}
