import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './route.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

/** One ajv instance; the same schemas feed the OpenAPI document (STYLE 7). */
const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: true, strictRequired: false, allowUnionTypes: true });
addFormats(ajv);
/** Query strings are text: numbers and booleans are coerced there only. */
const ajvQuery = new Ajv({
  allErrors: true,
  coerceTypes: true,
  useDefaults: true,
  strict: true,
  strictRequired: false,
  allowUnionTypes: true,
});
addFormats(ajvQuery);

export const compile = (schema: JsonSchema, coerce = false): ValidateFunction => (coerce ? ajvQuery : ajv).compile(schema);

export { check, rejectUnstorable } from './checks.js';
