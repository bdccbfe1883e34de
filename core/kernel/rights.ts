/**
 * The rights catalogue (seed 2.4 plus DESIGN "Decisions"). Rights are data: each has a danger class,
 * what it implies, whether it concerns domains or the account, and a plain description in uk and en.
 */
export type DangerClass = 0 | 1 | 2 | 3;
export type RightScope = 'domain' | 'account';

export interface RightInfo {
  readonly name: RightName;
  readonly class: DangerClass;
  readonly scope: RightScope;
  /** Rights that holding this one also grants (dns.edit ⊃ dns.read). */
  readonly implies: readonly RightName[];
  /** Whether it spends money from the balance (then a spend limit is mandatory). */
  readonly spends: boolean;
  /** Only test keys may hold it (a live key is refused at issue): it acts on the sandbox alone. */
  readonly testOnly?: true;
  readonly describe: { readonly uk: string; readonly en: string };
}

export const RIGHT_NAMES = [
  'domain.read',
  'dns.read',
  'cert.read',
  'monitor.read',
  'billing.read',
  'dns.edit',
  'dns.acme_challenge',
  'cert.issue',
  'monitor.edit',
  'webhook.manage',
  'domain.host',
  'sandbox.clock',
  'domain.renew',
  'domain.register',
  'billing.topup',
  'domain.nameservers',
  'domain.lock',
  'domain.labels',
  'dns.dnssec',
] as const;
export type RightName = (typeof RIGHT_NAMES)[number];

const r = (
  name: RightName,
  cls: DangerClass,
  scope: RightScope,
  uk: string,
  en: string,
  implies: RightName[] = [],
  spends = false,
): RightInfo => ({ name, class: cls, scope, implies, spends, describe: { uk, en } });

export const RIGHTS: Readonly<Record<RightName, RightInfo>> = {
  'domain.read': r('domain.read', 0, 'domain', 'переглядати домени, дати закінчення і статуси', 'read domains, expiry dates and statuses'),
  'dns.read': r('dns.read', 0, 'domain', 'переглядати DNS-записи', 'read DNS records'),
  'cert.read': r('cert.read', 0, 'domain', 'переглядати сертифікати та їхній стан', 'read certificates and their status'),
  'monitor.read': r(
    'monitor.read',
    0,
    'domain',
    'переглядати перевірки моніторингу, історію та звіти',
    'read monitoring checks, history and reports',
  ),
  'billing.read': r('billing.read', 0, 'account', 'переглядати баланс і транзакції', 'read the balance and transactions'),
  'dns.edit': r(
    'dns.edit',
    1,
    'domain',
    'створювати, змінювати й видаляти DNS-записи через перевірений план (включно з переглядом)',
    'create, change and delete DNS records through a checked plan (includes reading them)',
    ['dns.read'],
  ),
  'dns.acme_challenge': r(
    'dns.acme_challenge',
    1,
    'domain',
    'лише TXT-записи _acme-challenge.<ім’я> для ACME-клієнтів сертифікатів',
    'only TXT records at _acme-challenge.<name>, for ACME certificate clients',
  ),
  'cert.issue': r(
    'cert.issue',
    1,
    'domain',
    'випускати безкоштовні сертифікати (включно з переглядом)',
    'issue free certificates (includes reading them)',
    ['cert.read'],
  ),
  'monitor.edit': r(
    'monitor.edit',
    1,
    'domain',
    'створювати й змінювати перевірки моніторингу (включно з переглядом)',
    'create and change monitoring checks (includes reading them)',
    ['monitor.read'],
  ),
  'webhook.manage': r('webhook.manage', 1, 'account', 'керувати вебхуками', 'manage webhooks'),
  // Adding a hosted zone spends nothing and serves nothing until a proof outside our servers verifies it;
  // deleting an active one takes a site down, so that part is a class 3 operation (DESIGN).
  'domain.host': r(
    'domain.host',
    1,
    'domain',
    'додавати домени, зареєстровані деінде, щоб обслуговувати їхній DNS тут, перевіряти їхню делегацію й видаляти їх (видалення активного — операція класу 3)',
    'add domains registered elsewhere to host their DNS here, verify their delegation and delete them (deleting an active one is a class 3 operation)',
  ),
  // Moving the sandbox clock activates waiting class 3 operations and runs the lifecycle at once, so it
  // is a right of its own rather than something any test key can do (DESIGN: Sandbox clock).
  'sandbox.clock': {
    ...r(
      'sandbox.clock',
      1,
      'account',
      'переводити годинник пісочниці вперед (лише тестові ключі); очікувані операції класу 3 тоді можуть виконатися',
      'move the sandbox clock forward (test keys only); waiting class 3 operations may then take effect',
    ),
    testOnly: true,
  },
  'domain.renew': r(
    'domain.renew',
    2,
    'domain',
    'продовжувати домени та вмикати автопродовження (це витрата коштів)',
    'renew domains and switch automatic renewal (this spends money)',
    [],
    true,
  ),
  'domain.register': r(
    'domain.register',
    2,
    'domain',
    'реєструвати нові домени (це витрата коштів)',
    'register new domains (this spends money)',
    [],
    true,
  ),
  'billing.topup': r(
    'billing.topup',
    2,
    'account',
    'поповнювати баланс зі збереженої картки',
    'top up the balance from the saved card',
    ['billing.read'],
    true,
  ),
  'domain.nameservers': r(
    'domain.nameservers',
    3,
    'domain',
    'змінювати сервери імен (на робочому домені це вимикає сайт і пошту на час TTL)',
    'change nameservers (on a live domain this takes the site and mail down for the TTL window)',
  ),
  'domain.lock': r(
    'domain.lock',
    3,
    'domain',
    'знімати й ставити блокування перенесення (код перенесення ключем не видається ніколи)',
    'lift and set the transfer lock (never yields the transfer code)',
  ),
  'domain.labels': r(
    'domain.labels',
    3,
    'domain',
    'змінювати мітки доменів (мітки розширюють доступ ключів, обмежених мітками)',
    'change domain labels (labels widen what label-scoped keys reach)',
  ),
  // A badly signed zone, or a DS at the parent that no longer matches our keys, takes the domain off the
  // internet for every validating resolver: class 3 (DESIGN: DNSSEC).
  'dns.dnssec': r(
    'dns.dnssec',
    3,
    'domain',
    'вмикати й вимикати DNSSEC, публікувати DS у реєстрі (помилка робить домен недоступним для резолверів, що перевіряють підписи)',
    'switch DNSSEC on and off and publish the DS at the registry (a mistake makes the domain unreachable through validating resolvers)',
  ),
};

export const isRightName = (v: unknown): v is RightName => typeof v === 'string' && Object.hasOwn(RIGHTS, v);

/** The right itself plus everything it implies, transitively. */
export const expandRight = (right: RightName): ReadonlySet<RightName> => {
  const out = new Set<RightName>();
  const visit = (x: RightName) => {
    if (out.has(x)) return;
    out.add(x);
    RIGHTS[x].implies.forEach(visit);
  };
  visit(right);
  return out;
};

/** True when holding `held` grants `needed` (equal, or implied). */
export const grants = (held: RightName, needed: RightName): boolean => expandRight(held).has(needed);
