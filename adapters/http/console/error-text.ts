import type { DomainError } from '../../../core/kernel/errors.js';
import { entryOf } from '../error-table.js';
import type { Lang } from './html.js';

/** A domain error's text in the page's language (the same table the API answers with). */
export const errorText = (lang: Lang, err: DomainError): string => {
  const e = entryOf(err.code);
  const main = lang === 'uk' ? e.uk(err.params) : e.en(err.params);
  const details = (err.details ?? []).map((d) => [d.field, d.rule ?? d.message].filter(Boolean).join(': ')).filter(Boolean);
  return details.length > 0 ? `${main} (${details.join('; ')})` : main;
};
