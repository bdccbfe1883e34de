import type { JsonSchema } from '../route.js';
import { schema } from '../schema-type.js';

/**
 * What the human-only routes share (seed A6, DESIGN): a signed-in person only, never a key — whatever
 * it carries, a key gets 403 human_only with an action pointing to the console page that does the same.
 * Each such route calls the same use case as its console page.
 */
export const TAG = 'Human-only actions';
export const environment = schema({ type: 'string', enum: ['live', 'test'] });
export const envBody = <const E extends Record<string, JsonSchema>, const R extends readonly string[]>(extra: E, required: R) =>
  schema({
    type: 'object',
    additionalProperties: false,
    required: ['environment', ...required],
    properties: { environment, ...extra },
  });
export const str = (max: number) => schema({ type: 'string', maxLength: max });
export const REAUTH = ['reauth_required', 'owner_only'] as const;
