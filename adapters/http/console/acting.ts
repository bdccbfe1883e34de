import { kyivDate } from '../../../core/kernel/dates.js';
import { personKey } from '../../../core/access/person-key.js';
import type { ApiKey } from '../../../core/kernel/caller.js';
import { transientCheckpoints, type Checkpoints } from '../../../core/kernel/checkpoints.port.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import { formatUah } from '../../../core/kernel/money.js';
import type { ValidateFunction } from 'ajv';
import type { Route } from '../route.js';
import type { UseCases } from '../use-cases.js';
import { check, compile } from '../validation.js';
import { errorText } from './error-text.js';
import { html, type Html } from './html.js';
import { alert, csrfField, type View } from './layout.js';
import type { ConsoleRequest } from './page.js';

/**
 * What the console's action pages share: the person's transient key (so the pages call the same use cases
 * as the API, under the same rule of classes), form reading, and an error shown next to its form.
 */
export const keyFor = async (
  uc: UseCases,
  r: ConsoleRequest,
  extraDomains: readonly string[] = [],
  registerLabels: readonly string[] = [],
): Promise<ApiKey> => {
  const h = r.human!;
  const list = await uc.humanReads.domainList(h.actor, r.view.env);
  const now = new Date();
  return personKey({
    actor: h.actor,
    environment: r.view.env,
    domains: [...list.map((d) => d.domain), ...extraDomains],
    registerLabels,
    today: kyivDate(now),
    now,
  });
};

export const checkpoints = (uc: UseCases): Checkpoints => transientCheckpoints(uc.consoleWork);

export const field = (r: ConsoleRequest, name: string): string => {
  const v = r.form[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
};

export const uah = (kop: number) => `${formatUah(kop)} ₴`;

/** Times in the person's own zone: the one helper of the layout, re-exported for the action pages. */
export { when } from './layout.js';

export const enc = encodeURIComponent;

/** A one-line "done" banner after a redirect (the query says what was done; nothing is repeated on reload). */
export const doneBanner = (r: ConsoleRequest, texts: Record<string, [string, string]>): Html | '' => {
  const d = r.query.done;
  if (!d) return '';
  const t = texts[d] ?? ['Готово.', 'Done.'];
  return alert('ok', r.view.t(t[0], t[1]));
};

/**
 * Runs a write; a domain error (the API's own, in the person's language) comes back to be shown on the
 * form that caused it, with what they typed. Anything else propagates (the console's error page).
 */
export const attempt = async <T>(fn: () => Promise<T>): Promise<{ ok: T } | { error: DomainError }> => {
  try {
    return { ok: await fn() };
  } catch (err) {
    if (isDomainError(err) && err.code !== 'reauth_required' && err.code !== 'session_required') return { error: err };
    throw err;
  }
};

export const errorBox = (v: View, e: DomainError | null | undefined): Html | '' =>
  e
    ? alert(
        'error',
        html`<p>${errorText(v.lang, e)}</p>
          ${
            e.code === 'right_missing'
              ? html`<p>
                  ${v.t('У консолі ви дієте з правами своєї ролі над доменами цього облікового запису: учасники — до класу 1, власники — усі класи.', 'In the console you act with the rights of your role over this account’s domains: members up to class 1, owners every class.')}
                </p>`
              : ''
          }
          <p class="muted">${v.t('Код помилки', 'Error code')}: <code>${e.code}</code></p>`,
      )
    : '';

/** The error's details that name one field (zod paths such as "years" or "body.years"). */
export const fieldError = (v: View, e: DomainError | null | undefined, name: string): Html | '' => {
  const mine = fieldMessages(v, e, name);
  return mine.length === 0 ? '' : html`<p class="field-error" id="err-${name}">${mine.join('; ')}</p>`;
};

export const postForm = (v: View, action: string, body: Html, opts: { cls?: string; confirm?: string; back?: string; id?: string } = {}) =>
  html`<form
    method="post"
    action="${action}"
    class="${opts.cls ?? 'stack'}"
    ${opts.id ? html`id="${opts.id}"` : ''}
    ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ''}
  >
    ${csrfField(v)}${opts.back ? html`<input type="hidden" name="_back" value="${opts.back}" />` : ''}${body}
  </form>`;

/**
 * The rights step of the API's middleware, run from the route's own declared access: what a key needs
 * for that route (one right, optionally on the route's domain parameter, or the pairs its resolver names)
 * the person's key needs in the console. Routes whose rights depend on stored records ("rightsOfRecord")
 * are checked inside their use cases, as through the API.
 */
export const authorizeAs = async (
  uc: UseCases,
  routes: readonly Route[],
  id: string,
  key: ApiKey,
  input: { params?: Record<string, string>; body?: unknown },
): Promise<void> => {
  const route = routes.find((x) => x.id === id);
  if (!route) throw new Error(`no route ${id}`);
  const access = route.access;
  if (access.kind !== 'key') throw new Error(`route ${id} is not a key route`);
  const params = input.params ?? {};
  if (access.right) await uc.consoleAuthorizer.check(key, access.right, access.domainParam ? params[access.domainParam] : undefined);
  for (const pair of access.rights?.of({ params, query: {}, body: input.body, ip: '' }) ?? [])
    await uc.consoleAuthorizer.check(key, pair.right, pair.domain);
};

const compiled = new Map<string, ValidateFunction>();
/**
 * Checks a console form's input with the API route's own body schema (the same ajv schema, the same
 * field errors in uk and en), so the console has no second copy of an input rule.
 */
export const validateBody = (routes: readonly Route[], id: string, body: unknown): void => {
  let v = compiled.get(id);
  if (!v) {
    const r = routes.find((x) => x.id === id);
    if (!r?.body) throw new Error(`no body schema for route ${id}`);
    v = compile(r.body);
    compiled.set(id, v);
  }
  check(v, body, 'body');
};

/** The messages of a validation error's details for one body field, in the page's language. */
export const fieldMessages = (v: View, e: DomainError | null | undefined, name: string): string[] =>
  (e?.details ?? [])
    .filter((d) => typeof d.field === 'string' && (d.field === `/body/${name}` || d.field.startsWith(`/body/${name}/`)))
    .map((d) => {
      const m = d.message as { uk?: string; en?: string } | string | undefined;
      return typeof m === 'string' ? m : ((v.lang === 'uk' ? m?.uk : m?.en) ?? String(d.rule ?? ''));
    });
