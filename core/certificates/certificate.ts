import type { Environment } from '../kernel/environment.js';

/**
 * A certificate resource. One id for the life of the certificate: a renewal replaces the
 * chain (and, for keys we generated, the key) in place, so clients keep fetching the same URL.
 *
 *   pending ──CA issues──▶ issued ──not_after passes──▶ expired
 *      │                    │  ▲ renewal (30 days before expiry, in place)
 *      └──CA refuses──▶ failed   └──revoke──▶ revoked
 */
export type CertificateStatus = 'pending' | 'issued' | 'failed' | 'expired' | 'revoked';

export interface Certificate {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  /** dNSNames, lower-case A-labels, possibly `*.x`, in the order asked. */
  readonly names: readonly string[];
  /** The registered domains (our zones) the names belong to, sorted. */
  readonly domains: readonly string[];
  readonly status: CertificateStatus;
  /** "sandbox" or "acme". */
  readonly ca: string;
  readonly csrPem: string;
  /** The private key we generated, sealed (SecretBox); null when the client sent a CSR. */
  readonly keySealed: string | null;
  readonly chainPem: string | null;
  readonly notBefore: Date | null;
  readonly notAfter: Date | null;
  readonly issuer: string | null;
  readonly serial: string | null;
  /** The CA's reason for the last failure (of issuance, or of a renewal while still issued). */
  readonly failureReason: string | null;
  /** Failed attempts of the current issuance or renewal (retryable failures are retried with backoff). */
  readonly attempts: number;
  /** When the worker may next try (issuance or renewal), real time. */
  readonly nextAttemptAt: Date | null;
  /** When renewal is due, in the account's time (sandbox time for test). */
  readonly renewAfter: Date | null;
  readonly autoRenew: boolean;
  readonly keyId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly issuedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** One run of the CA for a certificate, kept as its history ("records the outcome"). */
export interface CertificateAttempt {
  readonly id: string;
  readonly certificateId: string;
  readonly kind: 'issue' | 'renew';
  readonly outcome: 'issued' | 'failed' | 'retry';
  readonly reason: string | null;
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

export interface CertificateView {
  id: string;
  status: CertificateStatus;
  domains: string[];
  ca: string;
  issuer: string | null;
  serial: string | null;
  not_before: string | null;
  not_after: string | null;
  renew_after: string | null;
  auto_renew: boolean;
  /** Whether we hold the private key (no CSR was sent): GET …/private-key hands it to cert.issue keys. */
  private_key_held: boolean;
  failure: { reason: string; attempts: number; next_attempt_at: string | null } | null;
  created_at: string;
  issued_at: string | null;
  revoked_at: string | null;
  links: { self: string; chain: string | null; private_key: string | null };
}

const isoOrNull = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const viewCertificate = (c: Certificate): CertificateView => ({
  id: c.id,
  status: c.status,
  domains: [...c.names],
  ca: c.ca,
  issuer: c.issuer,
  serial: c.serial,
  not_before: isoOrNull(c.notBefore),
  not_after: isoOrNull(c.notAfter),
  renew_after: c.status === 'issued' && c.autoRenew ? isoOrNull(c.renewAfter) : null,
  auto_renew: c.autoRenew,
  private_key_held: c.keySealed !== null,
  failure: c.failureReason ? { reason: c.failureReason, attempts: c.attempts, next_attempt_at: isoOrNull(c.nextAttemptAt) } : null,
  created_at: c.createdAt.toISOString(),
  issued_at: isoOrNull(c.issuedAt),
  revoked_at: isoOrNull(c.revokedAt),
  links: {
    self: `/v1/certificates/${c.id}`,
    chain: c.chainPem ? `/v1/certificates/${c.id}/chain` : null,
    private_key: c.keySealed ? `/v1/certificates/${c.id}/private-key` : null,
  },
});
