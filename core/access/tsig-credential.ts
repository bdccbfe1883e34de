import type { Environment } from '../kernel/environment.js';
import type { TsigAlgorithmName, TsigCredential } from '../kernel/caller.js';
import type { Random } from '../kernel/random.port.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { RightName } from '../kernel/rights.js';

/** Rights that come with a TSIG credential (DNS UPDATE, signed queries and transfers). */
export const DNS_RIGHTS: readonly RightName[] = ['dns.read', 'dns.edit', 'dns.acme_challenge'];

/** Secret length per algorithm: the hash's output length (RFC 8945 §6: no shorter than the output). */
const TSIG_SECRET_BYTES: Record<TsigAlgorithmName, number> = { 'hmac-sha256': 32, 'hmac-sha512': 64 };

/** A fresh credential: what is shown once (the secret in base64) and what is stored (the secret sealed). */
export interface NewTsigCredential {
  readonly shown: { readonly name: string; readonly algorithm: TsigAlgorithmName; readonly secret: string };
  readonly stored: TsigCredential;
}

export const newTsigCredential = (
  deps: { readonly random: Random; readonly secretBox: SecretBox },
  environment: Environment,
  algorithm: TsigAlgorithmName,
): NewTsigCredential => {
  // A DNS name unique per key, lower case (DNS compares names case-insensitively): 80 random bits.
  const name = `dmk-${environment}-${hex(deps.random.bytes(10))}`;
  const secret = base64(deps.random.bytes(TSIG_SECRET_BYTES[algorithm]));
  return { shown: { name, algorithm, secret }, stored: { name, algorithm, sealedSecret: deps.secretBox.seal(secret) } };
};

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const base64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
