import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../../core/accounts/ports/credentials.port.js';

/**
 * argon2id via @node-rs/argon2 (prebuilt native binding shipped inside the npm package, no install
 * script). Parameters: OWASP's minimum for argon2id (19 MiB, t=2, p=1), overridable for tests.
 */
export interface Argon2Options {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export const OWASP_ARGON2: Argon2Options = { memoryCost: 19456, timeCost: 2, parallelism: 1 };

export class Argon2PasswordHasher implements PasswordHasher {
  constructor(private readonly options: Argon2Options = OWASP_ARGON2) {}

  async hash(password: string): Promise<string> {
    // algorithm 2 = Argon2id
    return hash(password, { ...this.options, algorithm: 2 });
  }

  async verify(hashed: string, password: string): Promise<boolean> {
    try {
      return await verify(hashed, password);
    } catch {
      return false;
    }
  }
}
