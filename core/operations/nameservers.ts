import { SERVICE_NAMESERVERS } from '../dns/zone/record-set.js';
import { DomainError } from '../kernel/errors.js';
import type { OperationWarning } from './operation.js';

/** RFC 1035 §2.3.1 host names (LDH labels), at least two labels, at most 253 octets. */
const HOST_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Registries take 2 to 13 nameservers (.ua and most gTLDs: at least two, RFC 1034 §4.1 redundancy). */
export const MIN_NAMESERVERS = 2;
export const MAX_NAMESERVERS = 13;

/**
 * Normalises (lower case, no trailing dot) and checks a nameserver list. A nameserver inside the
 * domain itself would need glue addresses (EPP host objects), which this service does not manage yet,
 * so it is refused with the reason rather than left to fail at the registry.
 */
export const normalizeNameservers = (domain: string, input: readonly string[]): string[] => {
  const out: string[] = [];
  for (const raw of input) {
    const ns = raw.trim().toLowerCase().replace(/\.$/, '');
    if (!HOST_RE.test(ns)) throw new DomainError('nameservers_invalid', { domain, nameserver: raw, reason: 'hostname' });
    if (ns === domain || ns.endsWith(`.${domain}`))
      throw new DomainError('nameservers_invalid', { domain, nameserver: raw, reason: 'glue' });
    if (out.includes(ns)) throw new DomainError('nameservers_invalid', { domain, nameserver: raw, reason: 'duplicate' });
    out.push(ns);
  }
  if (out.length < MIN_NAMESERVERS || out.length > MAX_NAMESERVERS) {
    throw new DomainError('nameservers_invalid', { domain, nameserver: out.join(', '), reason: 'count' });
  }
  return out;
};

export const isOurs = (ns: string): boolean => SERVICE_NAMESERVERS.includes(ns.toLowerCase().replace(/\.$/, ''));

/** How a delegation relates to our DNS: all ours, some ours (others must serve the same zone), none. */
export const delegationOf = (nameservers: readonly string[]): 'ours' | 'mixed' | 'outside' => {
  const ours = nameservers.filter(isOurs).length;
  return ours === nameservers.length ? 'ours' : ours === 0 ? 'outside' : 'mixed';
};

/** Warnings a nameserver change carries (in the operation and its notices). */
export const nameserverWarnings = (domain: string, nameservers: readonly string[]): OperationWarning[] => {
  const d = delegationOf(nameservers);
  const ours = SERVICE_NAMESERVERS.join(', ');
  if (d === 'outside') {
    return [
      {
        code: 'nameservers_outside',
        message: {
          uk: `Домен ${domain} буде делеговано на сервери імен поза Domivka (${nameservers.join(', ')}). Наша зона зберігається, але світ її більше не бачитиме: записи DNS, плани та ACME-перевірки через наш DNS не діятимуть, доки домен не повернеться на ${ours}.`,
          en: `${domain} will be delegated to nameservers outside Domivka (${nameservers.join(', ')}). Our zone is kept, but the world will no longer see it: DNS records, plans and ACME checks through our DNS have no effect until the domain is back on ${ours}.`,
        },
      },
    ];
  }
  if (d === 'mixed') {
    const outside = nameservers.filter((n) => !isOurs(n));
    return [
      {
        code: 'nameservers_mixed',
        message: {
          uk: `Серед серверів імен є сторонні (${outside.join(', ')}): вони мають віддавати ту саму зону, що й наші, інакше відповіді різнитимуться.`,
          en: `Some nameservers are not ours (${outside.join(', ')}): they must serve the same zone as ours, or answers will differ.`,
        },
      },
    ];
  }
  return [];
};
