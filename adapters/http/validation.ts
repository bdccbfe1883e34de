import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { DomainError } from '../../core/shared/errors.js';
import type { JsonSchema } from './route.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** One ajv instance; the same schemas feed the OpenAPI document (STYLE 7). */
const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
/** Query strings are text: numbers and booleans are coerced there only. */
const ajvQuery = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajvQuery);

export const compile = (schema: JsonSchema, coerce = false): ValidateFunction => (coerce ? ajvQuery : ajv).compile(schema);

const uk = (e: ErrorObject): string => {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return `обов’язкове поле «${String(p.missingProperty)}» відсутнє`;
    case 'additionalProperties': return `невідоме поле «${String(p.additionalProperty)}»`;
    case 'type': return `має бути типу ${String(p.type)}`;
    case 'enum': return `має бути одним із: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const': return `має дорівнювати ${JSON.stringify(p.allowedValue)}`;
    case 'format': return `має відповідати формату ${String(p.format)}`;
    case 'pattern': return `має відповідати шаблону ${String(p.pattern)}`;
    case 'minimum': return `має бути не менше ${String(p.limit)}`;
    case 'maximum': return `має бути не більше ${String(p.limit)}`;
    case 'minLength': return `має містити щонайменше ${String(p.limit)} символ(ів)`;
    case 'maxLength': return `має містити не більше ${String(p.limit)} символ(ів)`;
    case 'minItems': return `має містити щонайменше ${String(p.limit)} елемент(ів)`;
    case 'maxItems': return `має містити не більше ${String(p.limit)} елемент(ів)`;
    case 'uniqueItems': return 'елементи не повинні повторюватися';
    case 'oneOf': case 'anyOf': return 'має відповідати рівно одному з дозволених варіантів';
    case 'not': return 'містить недозволену комбінацію полів';
    default: return `не відповідає правилу ${e.keyword}`;
  }
};

const en = (e: ErrorObject): string => {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': return `the required field "${String(p.missingProperty)}" is missing`;
    case 'additionalProperties': return `unknown field "${String(p.additionalProperty)}"`;
    case 'enum': return `must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    default: return e.message ?? `fails ${e.keyword}`;
  }
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
