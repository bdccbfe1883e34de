import type { Environment } from './environment.js';
import type { DangerClass, RightName } from './rights.js';

/**
 * Seed 2.2 / A4: a policy pairs one right with a selection of domains — named domains, or every domain
 * carrying a label. Rights and selections are separate axes.
 */
export type Selection = { readonly domains: readonly string[] } | { readonly label: string };

export interface Policy {
  readonly right: RightName;
  readonly resources: Selection;
}

/** Whole-key conditions (seed 2.3). */
export interface KeyConditions {
  /** IPv4 network in CIDR notation, normalised to its network address; null = any address. */
  readonly cidr: string | null;
  /** Last calendar day (Europe/Kyiv) on which the key works. */
  readonly expiresOn: string;
  /** Monthly spend limit in kopiykas; null = no spending rights. */
  readonly spendLimit: number | null;
}

/** TSIG algorithms a key's DNS credential may use (RFC 8945 §6). */
export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha512'] as const;
export type TsigAlgorithmName = (typeof TSIG_ALGORITHMS)[number];

/**
 * A key's TSIG credential (DNS UPDATE, signed queries and transfers): its DNS name (lower case, unique
 * among keys), the algorithm chosen at issuance and the secret sealed by the secret box.
 */
export interface TsigCredential {
  readonly name: string;
  readonly algorithm: TsigAlgorithmName;
  readonly sealedSecret: string;
}

/** An access key as stored: the secret itself is never kept, only its HMAC (DESIGN: Fixed names). */
export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly createdBy: string;
  readonly policies: readonly Policy[];
  readonly conditions: KeyConditions;
  readonly class: DangerClass;
  readonly secretHash: string;
  readonly createdAt: Date;
  lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revokedBy: string | null;
  /** Keys holding dns.read, dns.edit or dns.acme_challenge have one; null for the others. */
  readonly tsig?: TsigCredential | null;
  /** The console's transient key of a signed-in person (core/access/person-key.ts): never stored; what it
   * does, the person did (`createdBy`), and the events and the audit say so. */
  readonly person?: true;
}

/** Who acted, as events and records name them: the key, or the person behind the console's transient key. */
export const actorOf = (key: Pick<ApiKey, 'id' | 'createdBy' | 'person'>): string =>
  key.person ? `person:${key.createdBy}` : `key:${key.id}`;

export type KeyStatus = 'active' | 'expired' | 'revoked';
