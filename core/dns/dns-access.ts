import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import { DomainError } from '../kernel/errors.js';
import type { Change } from './plans/plan.js';
import { isAcmeName, resolveName } from './zone/names.js';

export { isAcmeName };

/**
 * Seed 2.4: dns.acme_challenge is deliberately narrow — a key holding only it may change nothing but
 * TXT records at _acme-challenge.<name> inside its domains.
 */
export type DnsAccess = 'full' | 'acme-only';

export const dnsAccess = async (authorizer: Authorizer, key: ApiKey, domain: string): Promise<DnsAccess> => {
  if (await authorizer.allows(key, 'dns.edit', domain)) return 'full';
  await authorizer.check(key, 'dns.acme_challenge', domain);
  return 'acme-only';
};

/** Refuses, naming the first offending change, any change an ACME-only key may not make. */
export const assertAcmeOnly = (changes: readonly Change[], zone: string, domain: string): void => {
  for (const c of changes) {
    if (c.type !== 'TXT' || !isAcmeName(c.name, zone)) {
      throw new DomainError('right_missing', { right: 'dns.edit', domain, change: `${c.action} ${c.name} ${c.type}` });
    }
  }
};

/**
 * The same refusal on the plan's input, before any value is parsed: each change's name resolved as the
 * plan would resolve it (bounded work on a bounded name), its type TXT.
 */
export const assertAcmeOnlyInput = (changes: ReadonlyArray<{ action: string; name: string; type: string }>, domain: string): void => {
  for (const c of changes) {
    const resolved = typeof c.name === 'string' ? resolveName(c.name, domain) : null;
    if (c.type !== 'TXT' || !resolved?.ok || !isAcmeName(resolved.name, domain)) {
      throw new DomainError('right_missing', {
        right: 'dns.edit',
        domain,
        change: `${String(c.action)} ${String(c.name).slice(0, 300)} ${String(c.type)}`,
      });
    }
  }
};
