import { DomainError } from '../kernel/errors.js';

/**
 * A hosted domain (DESIGN "Domains born elsewhere"): registered at another registrar, its DNS served by
 * us once a proof that does not come from our own servers says its holder wants it here.
 *
 * The proof: the TXT value at `_domivka-challenge.<domain>`, served by the nameservers the parent
 * delegates the domain to *while those are not ours*. Every zone shares our nameservers, so a parent
 * that delegates to us proves nothing by itself (a dangling delegation left by a deleted zone could be
 * claimed by anyone): a delegation to us counts only for a claim whose TXT proof was already seen on the
 * previous, outside nameservers.
 */
export type HostingStatus = 'pending_delegation' | 'active';

export interface HostingProblem {
  readonly code: string;
  readonly message: { readonly uk: string; readonly en: string };
}

export interface Hosting {
  readonly status: HostingStatus;
  /** The value the TXT record must hold (not a secret: it is published in DNS). */
  readonly token: string;
  readonly checkedAt: Date | null;
  readonly problem: HostingProblem | null;
  /** The outside nameservers that served the TXT proof, and when (null: never seen). */
  readonly proof: { readonly nameservers: readonly string[]; readonly at: string } | null;
}

export interface HostingView {
  status: HostingStatus;
  nameservers: string[];
  verification: { type: 'txt'; name: string; value: string; checked_at: string | null };
  problem: { code: string; message: { uk: string; en: string } } | null;
}

/** Our nameservers: the delegation a hosted domain must end with. */
export const OUR_NAMESERVERS = ['ns1.domivka.net', 'ns2.domivka.net'] as const;

export const challengeName = (domain: string): string => `_domivka-challenge.${domain}`;

export const viewHosting = (domain: string, h: Hosting): HostingView => ({
  status: h.status,
  nameservers: [...OUR_NAMESERVERS],
  verification: { type: 'txt', name: challengeName(domain), value: h.token, checked_at: h.checkedAt ? h.checkedAt.toISOString() : null },
  problem: h.problem ? { code: h.problem.code, message: { ...h.problem.message } } : null,
});

/**
 * A name that is itself a public suffix (`com`, `com.ua`, `github.io`): nobody holds it, so nobody may host it.
 * The list (tldts, some 140 KB of code) is loaded by the first call, not by every start.
 */
export const isPublicSuffix = async (name: string): Promise<boolean> => {
  const { getPublicSuffix } = await import('tldts');
  const ascii = name.toLowerCase().replace(/\.$/, '');
  const icann = getPublicSuffix(ascii, { allowPrivateDomains: false });
  const priv = getPublicSuffix(ascii, { allowPrivateDomains: true });
  return ascii === icann || ascii === priv;
};

/** The names above `name`, nearest first, down to (not including) the top-level label. */
export const ancestorsOf = (name: string): string[] => {
  const labels = name.split('.');
  const out: string[] = [];
  for (let i = 1; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
};

/** Whether `name` is `zone` itself or a name under it (both lower case, no trailing dot). */
export const isAtOrUnder = (name: string, zone: string): boolean => name === zone || name.endsWith(`.${zone}`);

/** A zone the service answers for itself, and why (domain_reserved's `role`). */
export interface ServiceZone {
  readonly zone: string;
  readonly role: 'catalog' | 'nameservers';
}

/**
 * The zones the service itself answers for, which no account may host, nor any name under them:
 *  - the catalog zone (DNS_CATALOG_ZONE, RFC 9432): every secondary follows it (Knot: catalog-role:
 *    interpret), so an account's zone in its place would tell them which zones to serve, and drop ours;
 *  - the zone each of our nameservers' names sits in (its registrable domain: ns1.domivka.net → domivka.net):
 *    an account's zone there would answer for the names every hosted delegation points at.
 */
export const serviceZones = async (catalog: string | null, nameservers: readonly string[]): Promise<ServiceZone[]> => {
  const { getDomain } = await import('tldts');
  const bare = (n: string): string => n.toLowerCase().replace(/\.$/, '');
  const out: ServiceZone[] = [];
  if (catalog) out.push({ zone: bare(catalog), role: 'catalog' });
  for (const ns of nameservers) {
    const name = bare(ns);
    // An unlisted suffix has no registrable domain: the name's parent is the zone then.
    const zone = getDomain(name, { allowPrivateDomains: true }) ?? name.split('.').slice(1).join('.');
    if (zone && !out.some((z) => z.zone === zone)) out.push({ zone, role: 'nameservers' });
  }
  return out;
};

/** Refuses `name` (normalized) when it is one of the service's own zones or under one (domain_reserved). */
export const refuseServiceZone = async (
  name: string,
  catalog: string | null,
  nameservers: readonly string[] = OUR_NAMESERVERS,
): Promise<void> => {
  const reserved = (await serviceZones(catalog, nameservers)).find((z) => isAtOrUnder(name, z.zone));
  if (reserved) throw new DomainError('domain_reserved', { domain: name, zone: reserved.zone, role: reserved.role });
};

export const isOurNameserver = (ns: string, ours: readonly string[] = OUR_NAMESERVERS): boolean =>
  ours.includes(ns.toLowerCase().replace(/\.$/, ''));

export const problem = (code: string, uk: string, en: string): HostingProblem => ({ code, message: { uk, en } });

/** The problems a check can find, in words the owner can act on. */
export const PROBLEMS = {
  notDelegated: (d: string) =>
    problem(
      'not_delegated',
      `Батьківська зона не делегує ${d}: домен не зареєстровано або в нього немає серверів імен.`,
      `The parent zone does not delegate ${d}: the domain is not registered or has no nameservers.`,
    ),
  txtMissing: (d: string, ns: readonly string[]) =>
    problem(
      'verification_txt_missing',
      `Сервери імен ${ns.join(', ')} не віддають TXT-запис ${challengeName(d)} з потрібним значенням. Додайте його в поточного DNS-провайдера й перевірте знову.`,
      `The nameservers ${ns.join(', ')} do not serve the TXT record ${challengeName(d)} with the expected value. Add it at the current DNS provider and verify again.`,
    ),
  unproven: (d: string) =>
    problem(
      'delegation_unproven',
      `${d} уже делеговано на наші сервери імен, але підтвердження TXT від попередніх серверів немає. Наші сервери спільні для всіх рахунків, тож така делегація нічого не доводить: тимчасово делегуйте домен на сервери, що віддають TXT ${challengeName(d)}, перевірте, і лише тоді поверніть наші.`,
      `${d} is already delegated to our nameservers, but no TXT proof was seen on the previous ones. Our nameservers are shared by every account, so that delegation proves nothing: delegate the domain to nameservers that serve the TXT ${challengeName(d)}, verify, then switch to ours.`,
    ),
  lookupFailed: (d: string, reason: string) =>
    problem(
      'delegation_lookup_failed',
      `Не вдалося перевірити делегацію ${d}: ${reason}. Спробуємо ще раз пізніше.`,
      `The delegation of ${d} could not be checked: ${reason}. It will be tried again later.`,
    ),
  lost: (d: string, ns: readonly string[]) =>
    problem(
      'delegation_lost',
      ns.length === 0
        ? `Батьківська зона більше не делегує ${d}: наші сервери обслуговують зону, але світ її не бачить.`
        : `${d} тепер делеговано на ${ns.join(', ')}, а не на наші сервери імен: світ не бачить цієї зони.`,
      ns.length === 0
        ? `The parent zone no longer delegates ${d}: our nameservers serve the zone, but nobody is sent to them.`
        : `${d} is now delegated to ${ns.join(', ')}, not to our nameservers: the world does not see this zone.`,
    ),
  takenOver: (d: string) =>
    problem(
      'hosted_elsewhere',
      `Інший рахунок довів контроль над ${d} і обслуговує його зону; тут зона більше не обслуговується.`,
      `Another account proved control of ${d} and serves its zone; this zone is no longer served.`,
    ),
};
