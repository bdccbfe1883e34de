import { labelsOf, normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { RegistrarEnvironments } from './ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import { uah, type Money } from '../kernel/money.js';
import { isRegistrable, PRICE_LIST, tldOf } from './price-list.js';

export interface SearchResult {
  domain: string;
  tld: string;
  available: boolean;
  /** Yearly price for registration and renewal. */
  price: Money;
  /** For a taken name, the date it is registered until (when the registry tells). */
  registered_until: string | null;
  exact: boolean;
}

/**
 * Seed 4 / 7: GET /v1/search?q= — availability of the text across the TLDs on the price list, with
 * yearly prices; an exact match (the full name typed) comes first.
 */
export class SearchDomains {
  constructor(private readonly environments: RegistrarEnvironments) {}

  async execute(environment: Environment, q: string): Promise<{ query: string; results: SearchResult[] }> {
    const text = q.trim().toLowerCase().replace(/\.$/, '');
    if (text === '') throw new DomainError('validation_failed', {}, [{ field: '/q', rule: 'minLength' }]);
    let exact: string | null = null;
    let label: string;
    if (text.includes('.')) {
      const name = normalizeDomain(text);
      const tld = tldOf(name);
      if (!tld || !isRegistrable(name)) throw new DomainError('tld_not_supported', { domain: name, tlds: Object.keys(PRICE_LIST) });
      exact = name;
      label = labelsOf(name)[0]!;
    } else {
      // A bare label: normalise through a dummy TLD so IDN labels turn into punycode the same way.
      label = normalizeDomain(`${text}.com`).split('.')[0]!;
    }
    const names = [...new Set([...(exact ? [exact] : []), ...Object.keys(PRICE_LIST).map((t) => `${label}.${t}`)])];
    const registrar = this.environments.get(environment).registrar;
    const availability = await registrar.check(names);
    const byName = new Map(availability.map((a) => [a.domain, a]));
    return {
      query: q,
      results: names.map((n) => {
        const a = byName.get(n);
        const tld = tldOf(n)!;
        return {
          domain: n,
          tld,
          available: a?.available ?? false,
          price: uah(PRICE_LIST[tld]!),
          registered_until: a?.registeredUntil ?? null,
          exact: n === exact,
        };
      }),
    };
  }
}
