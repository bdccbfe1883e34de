import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import type { DnssecAlgorithm } from '../../../core/dnssec/dnskey.js';
import type { DnssecCrypto, GeneratedKey } from '../../../core/dnssec/ports/dnssec-crypto.port.js';

/** The canonical wire form of a name (RFC 4034 §6.2: lower case, uncompressed). */
const nameWire = (domain: string): Buffer => {
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])), Buffer.from([0])]);
};

/**
 * DNSSEC keys with node:crypto: ECDSA P-256 (algorithm 13, RFC 6605) and Ed25519 (15, RFC 8080). The
 * public key goes out in the DNSKEY form; the private key as PKCS#8 DER for the secret box.
 */
export class NodeDnssecCrypto implements DnssecCrypto {
  generate(algorithm: DnssecAlgorithm): GeneratedKey {
    if (algorithm === 13) {
      const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const jwk = publicKey.export({ format: 'jwk' });
      const xy = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
      return {
        algorithm,
        publicKey: xy.toString('base64'),
        privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      };
    }
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    return {
      algorithm,
      publicKey: raw.toString('base64'),
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    };
  }

  isPublicKey(algorithm: DnssecAlgorithm, publicKey: string): boolean {
    const raw = Buffer.from(publicKey, 'base64');
    if (raw.toString('base64').replace(/=+$/, '') !== publicKey.replace(/\s+/g, '').replace(/=+$/, '')) return false;
    try {
      // createPublicKey checks a P-256 point is on the curve; for Ed25519 OpenSSL takes any 32 octets, so only
      // the length is checked there (a foreign key never signs here: a bad one only fails its own operator's answers).
      if (algorithm === 13) {
        if (raw.length !== 64) return false;
        const b64u = (b: Buffer) => b.toString('base64url');
        createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(0, 32)), y: b64u(raw.subarray(32)) }, format: 'jwk' });
        return true;
      }
      if (raw.length !== 32) return false;
      createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
      return true;
    } catch {
      return false;
    }
  }

  dsDigest(domain: string, dnskeyRdata: Uint8Array): string {
    return createHash('sha256').update(nameWire(domain)).update(dnskeyRdata).digest('hex').toUpperCase();
  }
}
