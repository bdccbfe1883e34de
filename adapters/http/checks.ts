import type { ErrorObject, ValidateFunction } from 'ajv';
import { DomainError } from '../../core/kernel/errors.js';

/**
 * What every request is checked with: its values' storability and a compiled schema's verdict. Apart from
 * the compiler (validation.ts) so that a start does not load ajv: the routes compile their schemas on first
 * use and load ajv then (app.ts).
 */

/** A JSON Schema type in words (ajv names the types: "integer", "string" …), in each language. */
const TYPE_WORDS: Record<string, { uk: string; en: string }> = {
  integer: { uk: 'цілим числом', en: 'a whole number' },
  number: { uk: 'числом', en: 'a number' },
  string: { uk: 'текстом', en: 'text' },
  boolean: { uk: 'так або ні (true/false)', en: 'true or false' },
  array: { uk: 'списком', en: 'a list' },
  object: { uk: 'об’єктом', en: 'an object' },
  null: { uk: 'null', en: 'null' },
};
const typeWords = (t: unknown, lang: 'uk' | 'en'): string =>
  String(t)
    .split(',')
    .map((x) => TYPE_WORDS[x]?.[lang] ?? x)
    .join(lang === 'uk' ? ' або ' : ' or ');

const uk = (e: ErrorObject): string => {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `обов’язкове поле «${String(p.missingProperty)}» відсутнє`;
    case 'additionalProperties':
      return `невідоме поле «${String(p.additionalProperty)}»`;
    case 'type':
      return `має бути ${typeWords(p.type, 'uk')}`;
    case 'enum':
      return `має бути одним із: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `має дорівнювати ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `має відповідати формату ${String(p.format)}`;
    case 'pattern':
      return `має відповідати шаблону ${String(p.pattern)}`;
    case 'minimum':
      return `має бути не менше ${String(p.limit)}`;
    case 'maximum':
      return `має бути не більше ${String(p.limit)}`;
    case 'minLength':
      return `має містити щонайменше ${String(p.limit)} символ(ів)`;
    case 'maxLength':
      return `має містити не більше ${String(p.limit)} символ(ів)`;
    case 'minItems':
      return `має містити щонайменше ${String(p.limit)} елемент(ів)`;
    case 'maxItems':
      return `має містити не більше ${String(p.limit)} елемент(ів)`;
    case 'uniqueItems':
      return 'елементи не повинні повторюватися';
    case 'oneOf':
    case 'anyOf':
      return 'має відповідати рівно одному з дозволених варіантів';
    case 'not':
      return 'містить недозволену комбінацію полів';
    default:
      return `не відповідає правилу ${e.keyword}`;
  }
};

const en = (e: ErrorObject): string => {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `the required field "${String(p.missingProperty)}" is missing`;
    case 'additionalProperties':
      return `unknown field "${String(p.additionalProperty)}"`;
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${typeWords(p.type, 'en')}`;
    case 'const':
      return `must equal ${JSON.stringify(p.allowedValue)}`;
    case 'format':
      return `must be in the ${String(p.format)} format`;
    case 'pattern':
      return `must match the pattern ${String(p.pattern)}`;
    case 'minimum':
      return `must be at least ${String(p.limit)}`;
    case 'maximum':
      return `must be at most ${String(p.limit)}`;
    case 'minLength':
      return `must have at least ${String(p.limit)} character(s)`;
    case 'maxLength':
      return `must have at most ${String(p.limit)} character(s)`;
    case 'minItems':
      return `must have at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `must have at most ${String(p.limit)} item(s)`;
    case 'uniqueItems':
      return 'must not repeat an item';
    case 'oneOf':
    case 'anyOf':
      return 'must match exactly one of the allowed forms';
    case 'not':
      return 'holds a combination of fields that is not allowed';
    default:
      return e.message ?? `fails ${e.keyword}`;
  }
};

/**
 * Values no store keeps faithfully are refused before any schema or query sees them: NUL characters
 * (Postgres text cannot hold U+0000) and non-finite numbers.
 */
const MAX_DEPTH = 32;

type Problem = Record<string, unknown>;

const walkUnstorable = (v: unknown, where: string, path: string, depth: number, details: Problem[]): void => {
  if (details.length >= 20) return;
  if (depth > MAX_DEPTH) {
    details.push({
      field: `/${where}${path}`,
      rule: 'max-depth',
      message: { uk: `вкладеність понад ${MAX_DEPTH} рівнів не дозволено`, en: `nesting deeper than ${MAX_DEPTH} levels is not allowed` },
    });
    return;
  }
  if (typeof v === 'string') {
    if (v.includes('\u0000'))
      details.push({
        field: `/${where}${path}`,
        rule: 'no-nul',
        message: { uk: 'символ NUL (U+0000) не дозволено', en: 'the NUL character (U+0000) is not allowed' },
      });
  } else if (typeof v === 'number') {
    if (!Number.isFinite(v))
      details.push({
        field: `/${where}${path}`,
        rule: 'finite',
        message: { uk: 'має бути скінченним числом', en: 'must be a finite number' },
      });
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) walkUnstorable(v[i], where, `${path}/${i}`, depth + 1, details);
  } else if (v !== null && typeof v === 'object') {
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (k.includes('\u0000'))
        details.push({
          field: `/${where}${path}`,
          rule: 'no-nul',
          message: { uk: 'символ NUL (U+0000) у назві поля не дозволено', en: 'the NUL character (U+0000) is not allowed in a field name' },
        });
      walkUnstorable((v as Record<string, unknown>)[k], where, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1, details);
    }
  }
};

/** A flat map of strings (route params, most query strings) without NUL: nothing to walk (the read path's case). */
const plainStrings = (value: unknown): boolean => {
  if (value === undefined || value === null) return true;
  if (typeof value !== 'object' || Array.isArray(value)) return false;
  for (const k in value) {
    const x = (value as Record<string, unknown>)[k];
    if (typeof x !== 'string' || x.includes('\u0000') || k.includes('\u0000')) return false;
  }
  return true;
};

export const rejectUnstorable = (value: unknown, where: 'body' | 'query' | 'params'): void => {
  if (plainStrings(value)) return;
  const details: Problem[] = [];
  walkUnstorable(value, where, '', 0, details);
  if (details.length > 0) throw new DomainError('validation_failed', {}, details);
};

/** Validates `value`; throws `validation_failed` with every problem (not just the first). */
export const check = (validate: ValidateFunction, value: unknown, where: 'body' | 'query' | 'params'): void => {
  if (validate(value)) return;
  const details = (validate.errors ?? []).map((e) => ({
    field: `/${where}${e.instancePath}`,
    rule: e.keyword,
    message: { uk: uk(e), en: en(e) },
  }));
  throw new DomainError('validation_failed', {}, details);
};
