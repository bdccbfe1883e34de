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

/**
 * The warning a nameserver change away from us carries while the parent holds our DS (DESIGN: DNSSEC):
 * the new operator's answers are checked against our DS, so validating resolvers refuse the domain unless
 * they are signed with a key our DNSKEY set names. The safe orders: a multi-signer move (RFC 8901), or the
 * DS removed first and its TTL waited.
 */
export const dsAtParentWarning = (domain: string): OperationWarning => ({
  code: 'dnssec_ds_at_parent',
  message: {
    uk: `Батьківська зона містить наш DS домену ${domain}: після зміни серверів імен резолвери, що перевіряють DNSSEC, відкидатимуть відповіді нових серверів, якщо ті не підписані ключем із нашого набору DNSKEY. Безпечний порядок — або перенесення з двома підписувачами (RFC 8901: додайте ключ нового оператора тут, POST /v1/domains/${domain}/dnssec/foreign-keys, а наш — у нього, і його DS — у реєстр: POST /v1/domains/${domain}/dnssec/ds {"ds": [...]}), або спершу вимкніть DNSSEC (DELETE /v1/domains/${domain}/dnssec: DS прибирається, зона підписується, доки не мине його TTL) і лише потім міняйте сервери.`,
    en: `The parent zone holds our DS for ${domain}: once the nameservers change, validating resolvers refuse the new servers' answers unless they are signed with a key our DNSKEY set names. The safe order is either a multi-signer move (RFC 8901: add the new operator's key here with POST /v1/domains/${domain}/dnssec/foreign-keys, ours at theirs, and their DS at the registry with POST /v1/domains/${domain}/dnssec/ds {"ds": [...]}), or switching DNSSEC off first (DELETE /v1/domains/${domain}/dnssec: the DS goes, the zone stays signed until its TTL has passed) and only then changing the nameservers.`,
  },
});
