/**
 * DNSKEY arithmetic that needs no cryptography (RFC 4034): the RDATA of a key and its key tag. The
 * digests and signatures are the crypto port's (ports/dnssec-keys.port.ts).
 */
export const ALGORITHMS = [13, 15] as const;
export type DnssecAlgorithm = (typeof ALGORITHMS)[number];
export const isAlgorithm = (v: unknown): v is DnssecAlgorithm => v === 13 || v === 15;

/** A CSK: Zone Key (bit 7) and Secure Entry Point (bit 15) (RFC 4034 §2.1.1). */
export const CSK_FLAGS = 257;

const fromBase64 = (b64: string): number[] => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const ch of b64.replace(/=+$/, '')) {
    const v = alphabet.indexOf(ch);
    if (v < 0) throw new TypeError('public key is not base64');
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return out;
};

/** The DNSKEY RDATA: flags, protocol 3, algorithm, public key (RFC 4034 §2.1). */
export const dnskeyRdata = (flags: number, algorithm: number, publicKeyBase64: string): Uint8Array =>
  Uint8Array.from([flags >> 8, flags & 0xff, 3, algorithm, ...fromBase64(publicKeyBase64)]);

/** RFC 4034 Appendix B: the key tag of a DNSKEY RDATA. */
export const keyTag = (rdata: Uint8Array): number => {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
};
