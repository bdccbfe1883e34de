/**
 * Key pairs, requests and certificate inspection (adapters/crypto/x509). Core never parses ASN.1 itself.
 */
export interface GeneratedKey {
  /** PKCS#8 PEM of a new ECDSA P-256 private key. */
  readonly privateKeyPem: string;
  /** A PKCS#10 request signed by it, carrying `names` as subjectAltName dNSNames (CN = the first). */
  readonly csrPem: string;
}

export interface CsrInfo {
  /** subjectAltName dNSNames, plus the CN when it is a host name missing from them; lower-case, deduplicated. */
  readonly names: readonly string[];
  /** subjectAltName entries that are not dNSNames ("ip:192.0.2.1", "email:a@b", "url:…"): a CA for web
   * certificates refuses them, so a request carrying any is refused before it reaches one. */
  readonly otherNames: readonly string[];
  /** "EC P-256", "RSA 2048", ... */
  readonly keyAlgorithm: string;
  /** Whether the request's self-signature verifies. */
  readonly signatureValid: boolean;
}

export interface CertificateInfo {
  readonly names: readonly string[];
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly issuer: string;
  readonly serial: string;
}

export class MalformedCertificateInput extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'MalformedCertificateInput';
  }
}

export interface CertificateKeys {
  generate(names: readonly string[]): Promise<GeneratedKey>;
  /** Throws MalformedCertificateInput when `pem` is not one PKCS#10 request. */
  inspectCsr(pem: string): Promise<CsrInfo>;
  /** The first certificate of a PEM chain. Throws MalformedCertificateInput. */
  inspectCertificate(pem: string): Promise<CertificateInfo>;
}
