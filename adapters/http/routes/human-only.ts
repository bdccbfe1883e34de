import type { RouteInput } from '../route.js';

/**
 * What the human-only routes share (seed A6, DESIGN): a signed-in person only, never a key — whatever
 * it carries, a key gets 403 human_only with an action pointing to the console page that does the same.
 * Each such route calls the same use case as its console page.
 */
export const human = (i: RouteInput) => i.human!;
export const TAG = 'Human-only actions';
export const environment = { type: 'string', enum: ['live', 'test'] };
export const envBody = (extra: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object', additionalProperties: false, required: ['environment', ...required], properties: { environment, ...extra },
});
export const str = (max: number) => ({ type: 'string', maxLength: max });
export const REAUTH = ['reauth_required', 'owner_only'] as const;
