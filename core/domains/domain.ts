import type { Environment } from '../kernel/environment.js';

/**
 * A domain held by an account in one environment. Statuses use EPP names (RFC 5731 §2.3, RFC 3915).
 */
export interface Domain {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly name: string;
  readonly labels: readonly string[];
  readonly status: readonly string[];
  readonly expiresOn: string;
  readonly autoRenew: boolean;
  readonly transferLock: boolean;
  readonly nameservers: readonly string[];
  readonly createdAt: Date;
  /** The expiry date for which automatic renewal last failed (so owners hear it once per cycle). */
  readonly autoRenewFailedFor?: string | null;
  /** The key that switched automatic renewal on: its spend limit bounds the renewals that follow while
   * it is valid (null: no key did, or auto-renew was switched off since). */
  readonly autoRenewKeyId?: string | null;
}

/** The read shape (seed 2.5 plus labels, nameservers, transfer_lock, created_at). */
export interface DomainView {
  domain: string;
  status: string[];
  expires_at: string;
  auto_renew: boolean;
  labels: string[];
  nameservers: string[];
  transfer_lock: boolean;
  created_at: string;
}

export const viewDomain = (d: Domain): DomainView => ({
  domain: d.name,
  status: [...d.status],
  expires_at: d.expiresOn,
  auto_renew: d.autoRenew,
  labels: [...d.labels],
  nameservers: [...d.nameservers],
  transfer_lock: d.transferLock,
  created_at: d.createdAt.toISOString(),
});

export { LABEL_RE } from '../kernel/labels.js';
