import type { Environments } from '../../kernel/environments.port.js';
/**
 * The certificate-authority port. Two adapters answer it and share one contract suite
 * (test/contracts/certificate-authority.contract.ts): adapters/ca/sandbox, an in-process CA with its own
 * sandbox root, and adapters/ca/acme, an ACME client (RFC 8555) proving control by DNS-01 through our
 * own DNS machinery.
 */

/**
 * Publishes DNS-01 proofs. The certificates use case hands the CA one bound to the account and
 * environment of the order; it writes through the same zone-commit path as a plan apply, as an internal
 * actor, additively at `_acme-challenge.<host>`, and resolves once our own DNS server answers with it.
 */
export interface DnsChallengeSolver {
  /**
   * Publishes `value` (the RFC 8555 §8.4 key-authorization digest) at `_acme-challenge.<host>`. `host`
   * is the identifier without any `*.` (a wildcard is proven at its base name). Returns a handle for cleanup.
   */
  present(host: string, value: string): Promise<string>;
  /** Removes what `present` published; a value already gone is fine. */
  cleanup(handle: string): Promise<void>;
}

export interface IssueOrder {
  /** dNSName identifiers, lower-case, IDNA A-labels, possibly `*.x`; the CSR carries exactly these. */
  readonly names: readonly string[];
  /** PKCS#10 request (PEM); the CA never sees the private key. */
  readonly csrPem: string;
  readonly solver: DnsChallengeSolver;
  /**
   * "Now" for this order: the account's sandbox time in the test environment (DESIGN: certificate
   * times follow the account's sandbox clock). The sandbox CA dates certificates from it; a public CA
   * uses its own clock and ignores it.
   */
  readonly at: Date;
}

export interface IssuedCertificate {
  /** The leaf certificate (PEM). */
  readonly certificatePem: string;
  /** The leaf followed by the intermediates up to, not including, the root (PEM, RFC 8555 §7.4.2 order). */
  readonly chainPem: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** The issuer's distinguished name, as printed by the certificate (e.g. "CN=Pebble Intermediate CA 6d3a5b"). */
  readonly issuer: string;
  /** The certificate serial number, lower-case hex. */
  readonly serial: string;
}

/**
 * The CA refused or the order failed validation: `reason` is the CA's own words (an RFC 8555 problem
 * detail where it gave one), shown to the user as the certificate's failure. `retryable` tells whether
 * the same order may succeed later (rate limit, CA down) or needs a change (wrong DNS, CAA forbids it).
 */
export class CertificateAuthorityError extends Error {
  constructor(
    readonly reason: string,
    readonly retryable: boolean,
    readonly problemType?: string,
  ) {
    super(reason);
    this.name = 'CertificateAuthorityError';
  }
}

export interface CertificateAuthority {
  /** "sandbox" or "acme": shown as the certificate's `ca`. */
  readonly kind: 'sandbox' | 'acme';
  /** Runs the whole order: challenges, validation, finalisation. Throws CertificateAuthorityError. */
  issue(order: IssueOrder): Promise<IssuedCertificate>;
  /** Revokes an issued certificate (RFC 8555 §7.6; reason codes of RFC 5280 §5.3.1). */
  revoke(certificatePem: string, reason?: number): Promise<void>;
  /** The root users add to their trust store to verify chains (sandbox), or null for a public CA. */
  rootPem(): Promise<string | null>;
}

/** The CA of each environment: the sandbox CA for test, an ACME CA for live. */
export type CaEnvironments = Environments<{ readonly ca: CertificateAuthority }>;
