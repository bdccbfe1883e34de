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
  const alphabet = ALPHABET;
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

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Octets as padded base64 (RFC 4648 §4), the form our keys are stored and shown in. */
const toBase64 = (octets: readonly number[]): string => {
  let out = '';
  for (let i = 0; i < octets.length; i += 3) {
    const [a, b, c] = [octets[i]!, octets[i + 1], octets[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]!;
    out += b === undefined ? '=' : ALPHABET[(n >> 6) & 63]!;
    out += c === undefined ? '=' : ALPHABET[n & 63]!;
  }
  return out;
};

/** One spelling per key: decoded and encoded again (padding restored, no stray characters), so equal keys compare equal. */
export const canonicalBase64 = (b64: string): string => toBase64(fromBase64(b64));

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
