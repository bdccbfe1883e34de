import type { Policy, Selection } from '../kernel/caller.js';
import { grants, RIGHTS, type RightName } from '../kernel/rights.js';

export type { Policy, Selection };

/** What a check is about: a domain (its name and the labels it carries now), or the account. */
export type Subject = { readonly kind: 'domain'; readonly name: string; readonly labels: readonly string[] } | { readonly kind: 'account' };

export const selects = (selection: Selection, name: string, labels: readonly string[]): boolean =>
  'domains' in selection ? selection.domains.includes(name) : labels.includes(selection.label);

/**
 * A call is allowed when some policy pairs the needed right (or one implying it) with a selection that
 * contains the domain. Account-scoped rights (billing.*, webhook.manage) ignore the selection.
 */
export const allows = (policies: readonly Policy[], needed: RightName, subject: Subject): boolean =>
  policies.some((p) => {
    if (!grants(p.right, needed)) return false;
    if (RIGHTS[needed].scope === 'account' || subject.kind === 'account') return RIGHTS[needed].scope === 'account';
    return selects(p.resources, subject.name, subject.labels);
  });

/** Whether the key names this domain explicitly for the right (used to tell "not found" from "not yours"). */
export const namesDomain = (policies: readonly Policy[], needed: RightName, name: string): boolean =>
  policies.some((p) => grants(p.right, needed) && 'domains' in p.resources && p.resources.domains.includes(name));

/** The rights a set of policies holds, implications included. */
export const heldRights = (policies: readonly Policy[]): Set<RightName> => {
  const out = new Set<RightName>();
  for (const p of policies) for (const x of Object.keys(RIGHTS) as RightName[]) if (grants(p.right, x)) out.add(x);
  return out;
};

/** The labels selected by the policies that grant `right` (a new domain registered by label carries them). */
export const labelsGranting = (policies: readonly Policy[], right: RightName): string[] => [
  ...new Set(policies.flatMap((p) => (grants(p.right, right) && 'label' in p.resources ? [p.resources.label] : []))),
];
