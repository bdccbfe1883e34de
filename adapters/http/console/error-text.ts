import type { DomainError } from '../../../core/kernel/errors.js';
import { entryOf } from '../error-table.js';
import type { Lang } from './html.js';

/** "/body/changes/0/ttl" → "ttl (1)": the field a person filled in, and which row when a list holds it. */
const fieldName = (pointer: string): string => {
  const parts = pointer
    .replace(/^\/(body|query|params)\/?/, '')
    .split('/')
    .filter(Boolean);
  const name = [...parts].reverse().find((x) => !/^\d+$/.test(x)) ?? pointer;
  const rows = parts.filter((x) => /^\d+$/.test(x)).map((x) => Number(x) + 1);
  return rows.length > 0 ? `${name} (${rows.join(', ')})` : name;
};

/**
 * Errors whose API text tells a client what to do with its request (the same Idempotency-Key): a person in
 * the console has no such key (each form carries its own), so the page says what they can do.
 */
const FOR_PEOPLE: Partial<Record<string, (p: Record<string, unknown>) => { uk: string; en: string }>> = {
  payment_failed: () => ({
    uk: 'Платіжний сервіс не відповів як слід; нічого не зараховано. Спробуйте ще раз за кілька хвилин.',
    en: 'The payment provider failed; nothing was credited. Try again in a few minutes.',
  }),
  zone_busy: (p) => ({
    uk: `Зону ${String(p.domain ?? '')} саме змінюють інші запити; цю зміну не записано. Спробуйте ще раз за ${String(p.retry_after ?? 1)} с.`,
    en: `The zone ${String(p.domain ?? '')} is being changed by other requests; this change was not written. Try again in ${String(p.retry_after ?? 1)} s.`,
  }),
};

/**
 * A domain error's text in the page's language (the same table the API answers with). A form's values that
 * break the route's schema are said as a person reads them — each field and what it needs — not as the API's
 * "does not match its schema: see details" with JSON pointers.
 */
export const errorText = (lang: Lang, err: DomainError): string => {
  if (err.code === 'validation_failed' && (err.details ?? []).some((d) => typeof d.field === 'string')) {
    const items = (err.details ?? []).map((d) => {
      const m = d.message as { uk?: string; en?: string } | string | undefined;
      const text = typeof m === 'string' ? m : ((lang === 'uk' ? m?.uk : m?.en) ?? String(d.rule ?? ''));
      return typeof d.field === 'string' ? `${fieldName(d.field)}: ${text}` : text;
    });
    return `${lang === 'uk' ? 'Виправте значення:' : 'Please correct:'} ${[...new Set(items)].join('; ')}.`;
  }
  const own = FOR_PEOPLE[err.code]?.(err.params ?? {});
  const e = entryOf(err.code);
  const main = own ? own[lang] : lang === 'uk' ? e.uk(err.params) : e.en(err.params);
  const details = (err.details ?? []).map((d) => [d.field, d.rule ?? d.message].filter(Boolean).join(': ')).filter(Boolean);
  return details.length > 0 ? `${main} (${details.join('; ')})` : main;
};
