import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { SecretHasher } from '../../../core/kernel/secret-hasher.port.js';
import type { Random } from '../../../core/kernel/random.port.js';

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** HMAC-SHA-256 with a server-side pepper (DESIGN: keys are high-entropy, so no slow hash). */
export class NodeSecretHasher implements SecretHasher {
  constructor(private readonly pepper: Buffer) {
    if (pepper.length < 32) throw new Error('the key pepper must be at least 32 bytes');
  }

  hmac(secret: string): string {
    return createHmac('sha256', this.pepper).update(secret, 'utf8').digest('hex');
  }

  sha256(secret: string): string {
    return createHash('sha256').update(secret, 'utf8').digest('hex');
  }

  equal(a: string, b: string): boolean {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    // Lengths are public (always 64 hex digits); compare a same-length buffer anyway to keep timing flat.
    return timingSafeEqual(x, x.length === y.length ? y : x) && x.length === y.length;
  }

  crc32(text: string): number {
    return crc32(text);
  }
}

export class NodeRandom implements Random {
  bytes(length: number): Uint8Array {
    return randomBytes(length);
  }

  /** Rejection sampling: bytes ≥ 248 are discarded so every character is equally likely. */
  base62(length: number): string {
    let out = '';
    while (out.length < length) {
      for (const b of randomBytes(length * 2)) {
        if (b < 248 && out.length < length) out += B62[b % 62];
      }
    }
    return out;
  }

  /** Time-ordered id: 12 hex digits of milliseconds, then 16 random hex digits. */
  id(): string {
    return Date.now().toString(16).padStart(12, '0') + randomBytes(8).toString('hex');
  }
}
