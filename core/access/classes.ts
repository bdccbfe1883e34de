import { RIGHTS, type DangerClass, type RightName } from '../kernel/rights.js';

/**
 * Danger classes (seed A5) and the rules DESIGN derives from them: lifetime caps, mandatory IP
 * restriction, who may issue.
 */
export interface ClassInfo {
  readonly class: DangerClass;
  readonly name: { readonly uk: string; readonly en: string };
  readonly meaning: { readonly uk: string; readonly en: string };
  /** Longest lifetime of a key of this class, in days from the day of issue. */
  readonly maxLifetimeDays: number;
  /** Whether an IPv4 CIDR restriction (/8 or longer) is mandatory. */
  readonly ipRestrictionRequired: boolean;
}

export const MIN_CIDR_PREFIX = 8;

export const CLASSES: Readonly<Record<DangerClass, ClassInfo>> = {
  0: {
    class: 0,
    maxLifetimeDays: 365,
    ipRestrictionRequired: false,
    name: { uk: 'Читання', en: 'Read' },
    meaning: { uk: 'лише перегляд; нічого не змінює', en: 'reads only; changes nothing' },
  },
  1: {
    class: 1,
    maxLifetimeDays: 180,
    ipRestrictionRequired: false,
    name: { uk: 'Зворотна зміна', en: 'Reversible change' },
    meaning: {
      uk: 'зміни, які можна скасувати (DNS-запис, перевірка моніторингу, вебхук)',
      en: 'changes that can be undone (a DNS record, a monitoring check, a webhook)',
    },
  },
  2: {
    class: 2,
    maxLifetimeDays: 90,
    ipRestrictionRequired: true,
    name: { uk: 'Гроші', en: 'Money' },
    meaning: {
      uk: 'витрачає кошти з балансу; про кожну таку операцію отримують сповіщення всі власники',
      en: 'spends money from the balance; every such operation notifies all owners',
    },
  },
  3: {
    class: 3,
    maxLifetimeDays: 30,
    ipRestrictionRequired: true,
    name: { uk: 'Власність і незворотні дії', en: 'Ownership and irreversible' },
    meaning: {
      uk: 'операція чекає підтвердження другого власника або набирає чинності через 24 години',
      en: 'an operation waits for a second owner to confirm it, or takes effect after 24 hours',
    },
  },
};

/** A key's class is its highest right's class (DESIGN). */
export const classOf = (rights: Iterable<RightName>): DangerClass => {
  let c: DangerClass = 0;
  for (const right of rights) if (RIGHTS[right].class > c) c = RIGHTS[right].class;
  return c;
};

export const spendsMoney = (rights: Iterable<RightName>): boolean => [...rights].some((x) => RIGHTS[x].spends);
