import { DomainError } from './errors.js';

/** Money is integer kopiykas (minor units of UAH), never floats (DESIGN: Wire formats). */
export interface Money {
  readonly amount: number;
  readonly currency: 'UAH';
}

export const uah = (kopiykas: number): Money => {
  if (!Number.isSafeInteger(kopiykas)) throw new Error(`money must be integer kopiykas, got ${kopiykas}`);
  return { amount: kopiykas, currency: 'UAH' };
};

/** Parses "500", "500.5" or "500.50" UAH into kopiykas without floating-point arithmetic. */
export const parseUah = (text: string): number => {
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) throw new DomainError('validation_failed', { field: 'spend_limit', value: text });
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
};

/** "1234.50" — for plain-language text. */
export const formatUah = (kopiykas: number): string => {
  const sign = kopiykas < 0 ? '-' : '';
  const abs = Math.abs(kopiykas);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};
