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

/** A domain's creation time as text: Date#toISOString costs about a microsecond, and the read path asks on every request. */
const createdText = new Map<number, string>();
const isoOf = (at: Date): string => {
  const t = at.getTime();
  let text = createdText.get(t);
  if (text === undefined) {
    text = at.toISOString(); // throws on an invalid date, as before, and nothing is kept
    if (createdText.size >= 10_000) createdText.clear();
    createdText.set(t, text);
  }
  return text;
};

export const viewDomain = (d: Domain): DomainView => {
  const view: DomainView = {
    domain: d.name,
    status: d.status.slice(),
    expires_at: d.expiresOn,
    auto_renew: d.autoRenew,
    labels: d.labels.slice(),
    nameservers: d.nameservers.slice(),
    transfer_lock: d.transferLock,
    created_at: isoOf(d.createdAt),
    registrar: registrarOf(d),
  };
  // Assigned, not spread into the literal: the read path builds this on every request.
  if (d.hosting) view.hosting = viewHosting(d.name, d.hosting);
  return view;
};

export { LABEL_RE } from '../kernel/labels.js';
