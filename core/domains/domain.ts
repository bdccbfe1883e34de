import type { Environment } from '../kernel/environment.js';
import { viewHosting, type Hosting, type HostingView } from './hosting.js';

/** Who registered the domain: us (`domivka`), or another registrar while we host its DNS (`external`). */
export type RegistrarKind = 'domivka' | 'external';

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
  /** Null while unknown: a hosted domain's registration is another registrar's business. */
  readonly expiresOn: string | null;
  readonly autoRenew: boolean;
  readonly transferLock: boolean;
  readonly nameservers: readonly string[];
  readonly createdAt: Date;
  /** The expiry date for which automatic renewal last failed (so owners hear it once per cycle). */
  readonly autoRenewFailedFor?: string | null;
  /** The key that switched automatic renewal on: its spend limit bounds the renewals that follow while
   * it is valid (null: no key did, or auto-renew was switched off since). */
  readonly autoRenewKeyId?: string | null;
  /** Absent or `domivka`: registered through us. */
  readonly registrar?: RegistrarKind;
  /** A hosted domain's delegation and verification (null for a registered one). */
  readonly hosting?: Hosting | null;
}

/** A domain registered through us: its expiry is known. */
export type RegisteredDomain = Domain & { readonly expiresOn: string };
export const isRegistered = (d: Domain): d is RegisteredDomain => registrarOf(d) === 'domivka' && d.expiresOn !== null;

export const registrarOf = (d: Pick<Domain, 'registrar'>): RegistrarKind => d.registrar ?? 'domivka';
export const isHosted = (d: Pick<Domain, 'registrar'>): boolean => registrarOf(d) === 'external';

/** The read shape (seed 2.5 plus labels, nameservers, transfer_lock, created_at). */
export interface DomainView {
  domain: string;
  status: string[];
  expires_at: string | null;
  auto_renew: boolean;
  labels: string[];
  nameservers: string[];
  transfer_lock: boolean;
  created_at: string;
  registrar: RegistrarKind;
  hosting?: HostingView;
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
  registrar: registrarOf(d),
  ...(d.hosting ? { hosting: viewHosting(d.name, d.hosting) } : {}),
});

export { LABEL_RE } from '../kernel/labels.js';
