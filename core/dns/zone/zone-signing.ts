/**
 * What the nameserver needs to sign a zone (DNSSEC, RFC 4033–4035): the keys to publish and sign with, and
 * the validity window of the signatures. Signatures are made when the zone is compiled for serving (every
 * write path — plans, ACME values, imports, DNS UPDATE — ends in a publish, so each re-signs), never per
 * query. The window is chosen by the dnssec capability in real time (never the sandbox clock), and the same
 * for every process that serves the zone, so equal RRsets get equal signatures where the algorithm is
 * deterministic (Ed25519).
 */
export interface ZoneSigningKey {
  /** Key tag (RFC 4034 Appendix B). */
  readonly tag: number;
  /** 13: ECDSA P-256 with SHA-256 (RFC 6605); 15: Ed25519 (RFC 8080). */
  readonly algorithm: 13 | 15;
  /** DNSKEY flags: 257 for a CSK (Zone Key + Secure Entry Point). */
  readonly flags: number;
  /** The DNSKEY public key field, base64 (RFC 6605 §4: X‖Y; RFC 8080 §3: the 32-octet key). */
  readonly publicKey: string;
  /** The PKCS#8 private key, sealed with the secret box; only the signer opens it, and never logs it. */
  readonly sealedPrivateKey: string;
  /** Published in the apex DNSKEY set. */
  readonly published: boolean;
  /** Makes the RRSIGs. */
  readonly signing: boolean;
}

export interface ZoneSigning {
  readonly keys: readonly ZoneSigningKey[];
  /** Signature inception and expiration, seconds since 1970 (RFC 4034 §3.1.5). */
  readonly inception: number;
  readonly expiration: number;
  /** Publish CDS and CDNSKEY for the signing keys (RFC 7344 §4, RFC 8078). */
  readonly cds: boolean;
  /**
   * Other operators' DNSKEYs published beside ours (RFC 8901 model 2: a signed zone moving between
   * operators); in the DNSKEY set only, signed by our keys, never signing.
   */
  readonly foreign?: ReadonlyArray<{ readonly flags: number; readonly algorithm: number; readonly publicKey: string }>;
}

/** Types that belong to the service on a signed zone (RFC 4034, RFC 5155, RFC 7344): never in a plan. */
export const DNSSEC_TYPES = ['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY', 'DS'] as const;
export type DnssecType = (typeof DNSSEC_TYPES)[number];
export const isDnssecType = (v: unknown): v is DnssecType => typeof v === 'string' && (DNSSEC_TYPES as readonly string[]).includes(v);

/**
 * Signature validity (Knot's defaults, knot.conf(5) `rrsig-lifetime`: 14 days, inception 90 minutes in
 * the past for clocks that lag). Knot refreshes a signature `propagation-delay + zone-max-ttl` before it
 * expires; we start a new window once half the lifetime is gone — a worker that is down for days must not
 * let a zone expire, and a week of margin costs one re-signing a week.
 */
export const SIGNATURE_LIFETIME_S = 14 * 86400;
export const INCEPTION_OFFSET_S = 5400;
export const REFRESH_AFTER_S = 7 * 86400;

/** The signatures' inception and expiration for a window started at `start` (real time). */
export const signingWindow = (start: Date): { inception: number; expiration: number } => {
  const t = Math.floor(start.getTime() / 1000);
  return { inception: t - INCEPTION_OFFSET_S, expiration: t + SIGNATURE_LIFETIME_S };
};
