import type { ApiKey } from './caller.js';
import type { RightName } from './rights.js';

/** Which domains a caller may see: all of them, or those named or carrying one of the labels. */
export interface DomainScope {
  readonly all: boolean;
  readonly names: readonly string[];
  readonly labels: readonly string[];
}

/** A person sees the whole account (people are not scoped like keys). */
export const EVERY_DOMAIN: DomainScope = { all: true, names: [], labels: [] };

/**
 * "Which domains can this key see": one answer, from the access capability, for every list and feed
 * (domains, events, operations, notices, monitors, certificates). Capabilities below access or beside
 * it ask through this port; only access evaluates policies.
 */
export interface Visibility {
  /** A store prefilter: domains named by, or labelled as in, a policy granting any of `rights`. */
  scope(key: ApiKey, rights: readonly RightName[]): DomainScope;
  /**
   * The account's domains the key sees with any of `rights`, by name (labels read from the store now);
   * with `among`, only those of these names. Read through the store's prefilter, so it costs what the key
   * sees, not what the account holds.
   */
  visibleDomains(key: ApiKey, rights: readonly RightName[], opts?: { readonly among?: readonly string[] }): Promise<ReadonlySet<string>>;
  /** The same set when it holds at most `max` names; null when the key sees more (then filter by `scope`). */
  visibleDomainsUpTo(key: ApiKey, rights: readonly RightName[], max: number): Promise<ReadonlySet<string> | null>;
  /** Whether a policy granting any of `rights` selects this domain (by name, or by a label it carries now). */
  sees(key: ApiKey, rights: readonly RightName[], domain: { readonly name: string; readonly labels: readonly string[] }): boolean;
  /** Whether one of the key's policies grants `right` (account rights, or a domain right anywhere). */
  holds(key: ApiKey, right: RightName): boolean;
}
