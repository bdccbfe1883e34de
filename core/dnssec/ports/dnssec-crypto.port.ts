import type { DnssecAlgorithm } from '../dnskey.js';

/** A new key pair. `privateKey` is secret: sealed at once with the secret box, never logged or answered. */
export interface GeneratedKey {
  readonly algorithm: DnssecAlgorithm;
  /** The DNSKEY public key field, base64 (RFC 6605 §4: X‖Y for P-256; RFC 8080 §3: 32 octets for Ed25519). */
  readonly publicKey: string;
  /** PKCS#8 DER, base64. */
  readonly privateKey: string;
}

/** Key generation and digests for DNSSEC (node:crypto in adapters/crypto/node). */
export interface DnssecCrypto {
  generate(algorithm: DnssecAlgorithm): GeneratedKey;
  /** Whether `publicKey` (the DNSKEY field, base64) is a usable public key of the algorithm (a point on the curve). */
  isPublicKey(algorithm: DnssecAlgorithm, publicKey: string): boolean;
  /** SHA-256 (DS digest type 2, RFC 4509) of the owner's canonical wire name ‖ the DNSKEY RDATA, upper-case hex. */
  dsDigest(domain: string, dnskeyRdata: Uint8Array): string;
}
