/**
 * Where the RRSIGs of signed zones are kept. A zone version is signed once, by one signer (the process
 * that holds the opened keys; see adapters/dns/embedded/README.md, "DNSSEC: one signer"), and every DNS
 * server reads the signatures from here: ECDSA signatures (algorithm 13) are randomized, so servers that
 * signed for themselves would serve different RRSIGs for one serial, and an IXFR from one would not match
 * an AXFR from another. Signatures are public data (they travel in every signed answer); the private keys
 * stay sealed in the DNSSEC state and only the signer opens them.
 */
export interface StoredSignature {
  /** The RRset covered: its owner (lower case, no trailing dot) and type code, `${owner}/${type}`. */
  readonly rrset: string;
  readonly keyTag: number;
  /**
   * The first 16 octets of SHA-256 over the data signed (RRSIG RDATA without the signature, then the RRset in
   * canonical form), base64: a server uses a stored signature only for an RRset whose digest is the same.
   */
  readonly digest: string;
  /** The RRSIG RDATA, base64. */
  readonly rdata: string;
}

export interface StoredSignatures {
  /** Grows by one with every write; a reader asks for the rows written after the generation it holds. */
  readonly generation: number;
  /** The zone serial the last write signed. */
  readonly serial: number;
  readonly signatures: readonly StoredSignature[];
}

export interface ZoneSignatureRepository {
  /** The zone's signatures: every one, or (`after`) those written after that generation. Null: none stored. */
  read(zoneId: string, after?: number): Promise<StoredSignatures | null>;
  /**
   * Stores the signatures of version `serial`: `put` written (replacing the same RRset and key), `drop`
   * removed, in one transaction, if the stored generation is still `expected` (-1: nothing stored).
   * Returns the new generation, or null when another signer wrote first (read again and use its).
   * Announces a zone change, so that every DNS server loads the version now signed.
   */
  store(
    zoneId: string,
    expected: number,
    serial: number,
    put: readonly StoredSignature[],
    drop: ReadonlyArray<{ rrset: string; keyTag: number }>,
  ): Promise<number | null>;
  /** Forgets the zone's signatures (signing stopped). */
  clear(zoneId: string): Promise<void>;
}
