import { randomBytes } from 'node:crypto';
import type { IdempotencyStore, IdempotencyRecord } from '../../../core/kernel/idempotency-store.port.js';
import { fingerprintOf, sameRequest } from '../middleware/idempotency.js';

/**
 * A form is sent once (a double click, a second tab's "send" of the same render, a retry by the browser):
 * every form a signed-in person gets carries `_form`, a random id made when the page was drawn, and its
 * POST is claimed under that id in the idempotency store (the API's, scope `console:<session>`, kept 24
 * hours) before anything runs. The same form sent again gets the first one's outcome: the same redirect
 * (without its one-time view: a secret is never shown twice) or a page that says it was already sent;
 * while the first still runs, the second waits for it. An error page changes nothing, so its claim is
 * released and the same form may be sent again. Disabling the button in console.js is a nicety on top.
 */
export const FORM_FIELD = '_form';
export const newFormId = (): string => randomBytes(16).toString('base64url');
const FORM_ID = /^[A-Za-z0-9_-]{22}$/;

export type FormOnceStore = Pick<IdempotencyStore, 'claim' | 'complete' | 'release'>;

/** What the first send answered, as the second one replays it. */
export type FormOutcome = { readonly redirect: string } | { readonly page: true };

export type FormClaim =
  | { readonly kind: 'none' }
  | { readonly kind: 'claimed'; done(outcome: FormOutcome, status: number): Promise<void>; undo(): Promise<void> }
  | { readonly kind: 'replay'; readonly outcome: FormOutcome }
  | { readonly kind: 'other-content' }
  | { readonly kind: 'still-running' };

const WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const outcomeOf = (r: IdempotencyRecord): FormOutcome | null => {
  if (!r.response) return null;
  const b = r.response.body as { redirect?: unknown } | null;
  return b && typeof b.redirect === 'string' ? { redirect: b.redirect } : { page: true };
};

export const claimForm = async (
  store: FormOnceStore,
  sessionId: string,
  path: string,
  form: Readonly<Record<string, string | string[]>>,
  now: () => Date,
  key?: Buffer,
): Promise<FormClaim> => {
  const id = form[FORM_FIELD];
  if (typeof id !== 'string' || !FORM_ID.test(id)) return { kind: 'none' };
  const { _csrf: _c, [FORM_FIELD]: _f, ...fields } = form;
  // Keyed (the form may hold a password and a code): fingerprintOf, as the API's Idempotency-Key.
  const fingerprint = { keyed: fingerprintOf('POST', path, fields, key), plain: fingerprintOf('POST', path, fields) };
  const scope = `console:${sessionId}`.slice(0, 60);
  const token = randomBytes(16).toString('hex');
  for (let waited = 0; ; waited += 100) {
    const c = await store.claim(scope, id, fingerprint.keyed, now(), token);
    if (c.outcome === 'claimed')
      return {
        kind: 'claimed',
        done: (outcome, status) => store.complete(scope, id, token, { status, body: outcome, headers: {} }),
        undo: () => store.release(scope, id, token),
      };
    if (!sameRequest(c.record.fingerprint, fingerprint)) return { kind: 'other-content' };
    const outcome = outcomeOf(c.record);
    if (outcome) return { kind: 'replay', outcome };
    if (waited >= WAIT_MS) return { kind: 'still-running' };
    await sleep(100);
  }
};
