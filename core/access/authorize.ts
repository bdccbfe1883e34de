import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { ApiKey } from '../kernel/caller.js';
import { allows, heldRights, namesDomain, type Policy } from './policy.js';

/**
 * DESIGN: a domain.register policy that selects a label may register any name (the new domain carries the
 * label); a domain.host one may add any name to host (the new domain carries no label: labels need domain.labels).
 */
const addsByLabel = (policies: readonly Policy[], right: RightName): boolean =>
  (right === 'domain.register' || right === 'domain.host') && policies.some((p) => p.right === right && 'label' in p.resources);
import type { DomainDirectory, ScopedDomain } from './ports/domain-directory.port.js';
import { RIGHTS, type RightName } from '../kernel/rights.js';

/**
 * Policy evaluation for one (right, domain) pair. The domain's labels come from the store, so a label
 * added later widens a label-scoped key at once (hence domain.labels is class 3).
 * A domain that does not exist in the account is allowed only when a policy names it, so the caller
 * can answer 404; a label-scoped key probing unknown names gets right_missing and learns nothing.
 */
export class Authorizer<D extends ScopedDomain = ScopedDomain> {
  constructor(private readonly domains: DomainDirectory<D>) {}

  /**
   * Resolves to the domain (or null when absent / not a domain right), or throws right_missing. Several
   * rights: any one of them will do (dns.edit or the narrower dns.acme_challenge); the refusal names the
   * last, the narrowest asked.
   */
  async check(key: ApiKey, right: RightName | readonly RightName[], domainInput?: string): Promise<D | null> {
    const rights: readonly RightName[] = typeof right === 'string' ? [right] : right;
    let last: Decision<D> = { ok: false, domain: null };
    for (const r of rights) {
      last = await this.evaluate(key, r, domainInput);
      if (last.ok) return last.domain;
    }
    return refuse(rights, last);
  }

  /**
   * `check` without a promise, when the domain (if the right needs one) can be read from memory right now:
   * the same answer and the same refusal. Undefined when it cannot: then `check` decides.
   */
  checkKnown(key: ApiKey, right: RightName | readonly RightName[], domainInput?: string): D | null | undefined {
    const rights: readonly RightName[] = typeof right === 'string' ? [right] : right;
    let last: Decision<D> = { ok: false, domain: null };
    for (const r of rights) {
      const d = this.decideKnown(key, r, domainInput);
      if (d === undefined) return undefined;
      last = d;
      if (last.ok) return last.domain;
    }
    return refuse(rights, last);
  }

  /** The same decision as `check`, as a yes or no: for a use case that shows only what the key may see. */
  async allows(key: ApiKey, right: RightName, domainInput?: string): Promise<boolean> {
    return (await this.evaluate(key, right, domainInput)).ok;
  }

  private async evaluate(key: ApiKey, right: RightName, domainInput?: string): Promise<Decision<D>> {
    const without = this.withoutDomain(key, right, domainInput);
    if (without) return without;
    const name = normalizeDomain(domainInput!);
    return this.decide(key, right, name, await this.domains.find(key.accountId, key.environment, name));
  }

  private decideKnown(key: ApiKey, right: RightName, domainInput?: string): Decision<D> | undefined {
    const without = this.withoutDomain(key, right, domainInput);
    if (without) return without;
    const name = normalizeDomain(domainInput!);
    const domain = this.domains.cached?.(key.accountId, key.environment, name);
    return domain === undefined ? undefined : this.decide(key, right, name, domain);
  }

  /** The decision when no domain is to be read: a test-only right for a live key, an account right, a list. */
  private withoutDomain(key: ApiKey, right: RightName, domainInput?: string): Decision<D> | null {
    // Issuing refuses a test-only right to a live key; a stored row that says otherwise still grants nothing.
    if (RIGHTS[right].testOnly && key.environment !== 'test') return { ok: false, domain: null };
    if (RIGHTS[right].scope === 'account' || domainInput === undefined) {
      // Account rights ignore the selection; a domain right asked without a domain (a list) needs only
      // to be held somewhere — the list itself is then filtered to the key's domains.
      return { ok: heldRights(key.policies).has(right), domain: null };
    }
    return null;
  }

  private decide(key: ApiKey, right: RightName, name: string, domain: D | null): Decision<D> {
    const ok = domain
      ? allows(key.policies, right, { kind: 'domain', name, labels: domain.labels })
      : namesDomain(key.policies, right, name) || addsByLabel(key.policies, right);
    return { ok, domain, name };
  }
}

interface Decision<D> {
  readonly ok: boolean;
  readonly domain: D | null;
  readonly name?: string;
}

/** right_missing, naming the last right asked (the narrowest) and the domain when one was named. */
const refuse = (rights: readonly RightName[], last: Decision<unknown>): never => {
  const named = rights.at(-1)!;
  throw new DomainError('right_missing', last.name === undefined ? { right: named } : { right: named, domain: last.name });
};
