import { formatUah } from '../kernel/money.js';
import type { Environment } from '../kernel/environment.js';
import { CLASSES } from './classes.js';
import type { KeyConditions } from '../kernel/caller.js';
import type { Policy, Selection } from './policy.js';
import { RIGHTS, type DangerClass } from '../kernel/rights.js';

/** Seed A8: the plain-language summary a human reviews before a key is issued. */
export interface KeySummary {
  readonly uk: string;
  readonly en: string;
  readonly lines: { readonly uk: readonly string[]; readonly en: readonly string[] };
}

const where = (s: Selection | null): { uk: string; en: string } => {
  if (s === null) return { uk: 'для всього рахунку', en: 'for the whole account' };
  if ('label' in s) return { uk: `на доменах з міткою «${s.label}»`, en: `on domains labelled "${s.label}"` };
  return { uk: `на доменах ${s.domains.join(', ')}`, en: `on domains ${s.domains.join(', ')}` };
};

export const summarise = (
  environment: Environment,
  policies: readonly Policy[],
  conditions: KeyConditions,
  cls: DangerClass,
): KeySummary => {
  const uk: string[] = [];
  const en: string[] = [];
  uk.push(
    environment === 'test'
      ? 'Ключ працює в тестовому середовищі (пісочниці): реєстрації та оплати там виглядають справжніми, але нічого не змінюють.'
      : 'Ключ працює в робочому середовищі: операції справжні, оплати списуються з балансу.',
  );
  en.push(
    environment === 'test'
      ? 'The key works in the test environment (sandbox): registrations and charges there look real but change nothing.'
      : 'The key works in the live environment: operations are real and charges come out of the balance.',
  );
  uk.push('Ключ може:');
  en.push('The key may:');
  for (const p of policies) {
    const sel = RIGHTS[p.right].scope === 'account' ? null : p.resources;
    const w = where(sel);
    uk.push(`• ${RIGHTS[p.right].describe.uk} — ${w.uk} (${p.right});`);
    en.push(`• ${RIGHTS[p.right].describe.en} — ${w.en} (${p.right});`);
  }
  uk.push(`Діє до ${conditions.expiresOn} включно (до кінця дня за київським часом).`);
  en.push(`Valid through ${conditions.expiresOn} (until the end of that day, Kyiv time).`);
  uk.push(conditions.cidr ? `Працює лише з адрес мережі ${conditions.cidr}.` : 'Працює з будь-якої IP-адреси.');
  en.push(conditions.cidr ? `Works only from addresses in ${conditions.cidr}.` : 'Works from any IP address.');
  if (conditions.spendLimit !== null) {
    uk.push(`Може витратити не більше ${formatUah(conditions.spendLimit)} грн за календарний місяць.`);
    en.push(`May spend at most ${formatUah(conditions.spendLimit)} UAH per calendar month.`);
  }
  const c = CLASSES[cls];
  uk.push(`Клас небезпеки ${cls} — «${c.name.uk}»: ${c.meaning.uk}.`);
  en.push(`Danger class ${cls} — "${c.name.en}": ${c.meaning.en}.`);
  if (cls >= 2) {
    uk.push('Про випуск цього ключа отримають сповіщення всі власники рахунку.');
    en.push('All owners of the account will be notified that this key was issued.');
  }
  return { uk: uk.join('\n'), en: en.join('\n'), lines: { uk, en } };
};
