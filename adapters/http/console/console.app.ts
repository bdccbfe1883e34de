import { timingSafeEqual, randomBytes } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { HumanContext } from '../../../core/kernel/person.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import type { Logger } from 'pino';
import { ERROR_TABLE } from '../error-table.js';
import { safeNext } from './safe-next.js';
import type { UseCases } from '../use-cases.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { PAGES_CSS } from './pages.css.js';
import { html, langFrom, type Html, type Lang } from './html.js';
import { alert, layout, type View } from './layout.js';
import { pages, reauthForm, signInForm, type ConsoleRequest } from './pages.js';
import { resumeOf, type Resume } from './resume.js';
import type { OnceView } from './page.js';
import type { SecretBox } from '../../../core/kernel/secret-box.port.js';
import { errorText } from './error-text.js';
import { claimForm, type FormClaim } from './form-once.js';
export { errorText };

/**
 * The humans' console at /console/, served by the same process as the API. Server-rendered
 * HTML and one small script; every page calls the same use cases as the API routes (no second copy of a
 * business rule). Protections:
 * - CSRF: every POST carries `_csrf`, compared in constant time with the session's synchronizer token
 *   stored server-side with the session (before sign-in: a pre-session cookie token). SameSite=Strict
 *   cookies are a second layer, not the only one.
 * - Content-Security-Policy without 'unsafe-inline': script and style only from /console/assets/.
 * - Sessions end 12 h after sign-in (the session's own expiry); the sensitive actions ask to sign in again
 *   when the last proof is older than 5 minutes.
 */
export const SESSION_COOKIE = 'dmk_session';
const PRE_COOKIE = 'dmk_console_pre';
const LANG_COOKIE = 'dmk_lang';
const ENV_COOKIE = 'dmk_env';
const ONCE_COOKIE = 'dmk_once';
const TZ_COOKIE = 'dmk_tz';
/** A one-time view lives this long between the POST and its GET. */
const ONCE_TTL_S = 300;
const MAX_FORM_BYTES = 64 * 1024;

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export interface ConsoleDeps {
  readonly authenticateSession: { execute(token: string): Promise<HumanContext> };
  readonly secureCookies: boolean | 'auto';
  readonly logger: Logger;
  /** The server's clock (the sandbox clock adds the account's offset); the wall clock when absent. */
  readonly clock?: { now(): Date };
  /** Keys the one-send fingerprints of forms (a form may hold a password): the API's Idempotency-Key key. */
  readonly fingerprintKey?: Buffer;
}

const cookieOf = (header: string | undefined, name: string): string | null => {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
};

const isLocalHost = (host: string) => /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(host);

export const sameToken = (a: string | null | undefined, b: string | null | undefined): boolean => {
  if (!a || !b) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** How much of an over-long body is still read (and dropped) so the browser gets the page that says so:
 * a server that answers mid-upload and closes leaves the browser with a bare "connection reset". */
const DRAIN_BYTES = 32 * 1024 * 1024;

const readForm = async (ctx: Context, limit: number): Promise<Record<string, string | string[]>> => {
  const type = (ctx.get('Content-Type') || '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new DomainError('unsupported_media_type', { type });
  const declared = Number(ctx.get('Content-Length') || 0);
  const chunks: Buffer[] = [];
  let size = 0;
  let over = declared > limit;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) over = true;
    if (over) {
      chunks.length = 0;
      // Past the drain allowance the connection closes after the answer (nothing more is read).
      if (size > limit + DRAIN_BYTES) {
        ctx.set('Connection', 'close');
        break;
      }
      continue;
    }
    chunks.push(chunk as Buffer);
  }
  if (over) throw new DomainError('payload_too_large', { limit });
  const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
};

const validZone = (tz: string): boolean => {
  if (!/^[A-Za-z_]+(\/[A-Za-z0-9_+-]+){0,2}$/.test(tz) || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** The one-time view as a cookie, sealed by the secret box (AES-GCM under DATA_KEY): the JSON inside (a key,
 * a webhook secret…) is never readable in the cookie jar, and an altered or foreign cookie does not open. It is
 * bound to its owner (the session, or the pre-session token) and its expiry, and the first GET clears it. */
const writeOnce = (box: SecretBox, view: OnceView, owner: string, nowMs: number): string =>
  box.seal(JSON.stringify({ k: view.kind, d: view.data, o: owner, e: nowMs + ONCE_TTL_S * 1000 }));
const readOnce = (box: SecretBox, raw: string | null, owner: string, nowMs: number): OnceView | null => {
  if (!raw || raw.length > 8000) return null;
  try {
    const v = JSON.parse(box.open(raw)) as { k?: unknown; d?: unknown; o?: unknown; e?: unknown };
    if (typeof v.k !== 'string' || typeof v.e !== 'number' || v.e < nowMs || typeof v.o !== 'string' || !sameToken(v.o, owner)) return null;
    if (!v.d || typeof v.d !== 'object') return null;
    const data: Record<string, string> = {};
    for (const [k, x] of Object.entries(v.d as Record<string, unknown>)) if (typeof x === 'string') data[k] = x;
    return { kind: v.k, data };
  } catch {
    return null;
  }
};

export const consoleMiddleware = (uc: UseCases, deps: ConsoleDeps): Middleware => {
  const routes = pages(uc);
  return async (ctx, next) => {
    if (ctx.path !== '/console' && !ctx.path.startsWith('/console/')) return next();
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Frame-Options', 'DENY');
    if (ctx.path === '/console') return ctx.redirect('/console/');
    if (ctx.method === 'GET' && ctx.path === '/console/assets/console.js') {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = CONSOLE_JS;
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/console/assets/console.css') {
      ctx.type = 'text/css; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = CONSOLE_CSS + PAGES_CSS;
      return;
    }
    ctx.set('Cache-Control', 'no-store');

    const cookieHeader = ctx.get('Cookie');
    const langCookie = cookieOf(cookieHeader, LANG_COOKIE);
    const lang: Lang = langCookie === 'uk' || langCookie === 'en' ? langCookie : langFrom(ctx.get('Accept-Language') || undefined);
    const envCookie = cookieOf(cookieHeader, ENV_COOKIE);
    const env: Environment = envCookie === 'live' ? 'live' : 'test';
    const secure = deps.secureCookies === true || (deps.secureCookies === 'auto' && !isLocalHost(ctx.host));
    const setCookie = (name: string, value: string, opts: { expires?: Date; maxAge?: number; httpOnly?: boolean } = {}) => {
      const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'SameSite=Strict'];
      if (opts.httpOnly !== false) parts.push('HttpOnly');
      if (opts.expires) parts.push(`Expires=${opts.expires.toUTCString()}`);
      if (opts.maxAge !== undefined) parts.push(`Max-Age=${opts.maxAge}`);
      if (secure) parts.push('Secure');
      ctx.append('Set-Cookie', parts.join('; '));
    };

    // Preferences: language and environment (a cookie each; GET is fine, they change nothing stored).
    const pref = /^\/console\/(lang|env)\/([a-z]+)$/.exec(ctx.path);
    if (pref && ctx.method === 'GET') {
      const [, what, value] = pref;
      if (what === 'lang' && (value === 'uk' || value === 'en')) setCookie(LANG_COOKIE, value, { maxAge: 365 * 86400 });
      if (what === 'env' && (value === 'test' || value === 'live')) setCookie(ENV_COOKIE, value, { maxAge: 365 * 86400 });
      return ctx.redirect(safeNext(ctx.query.next));
    }

    // Who is calling.
    let human: HumanContext | null = null;
    const token = cookieOf(cookieHeader, SESSION_COOKIE);
    if (token) {
      try {
        human = await deps.authenticateSession.execute(token);
      } catch (err) {
        if (!isDomainError(err)) throw err;
      }
    }
    let pre = cookieOf(cookieHeader, PRE_COOKIE);
    if (!human && (!pre || !/^[0-9a-f]{64}$/.test(pre))) {
      pre = randomBytes(32).toString('hex');
      setCookie(PRE_COOKIE, pre);
    }
    // The person's time zone, as their browser reports it (console.js sets the cookie); Kyiv until then.
    const tzCookie = cookieOf(cookieHeader, TZ_COOKIE);
    const tz = tzCookie && validZone(tzCookie) ? tzCookie : 'Europe/Kyiv';
    let sandbox: View['sandbox'] = null;
    if (human && env === 'test') {
      try {
        const clock = await uc.advanceSandboxClock.readAsPerson(human);
        sandbox = { now: clock.now, offsetMs: clock.offset_ms };
      } catch (err) {
        if (!isDomainError(err)) throw err;
      }
    }
    const view: View = {
      lang,
      env,
      path: ctx.path,
      human,
      csrf: human ? (human.session.csrfToken ?? '') : pre!,
      t: (uk, en) => (lang === 'uk' ? uk : en),
      tz,
      sandbox,
      now: sandbox ? new Date(sandbox.now) : (deps.clock?.now() ?? new Date()),
    };
    // Whose one-time views these are: the session's, or (before sign-in) the pre-session token's.
    const onceOwner = human ? human.session.id : pre!;
    const onceRaw = cookieOf(cookieHeader, ONCE_COOKIE);

    const match = routes.find((r) => r.method === ctx.method && r.pattern.test(ctx.path));
    if (!match) {
      const known = routes.some((r) => r.pattern.test(ctx.path));
      ctx.status = known ? 405 : 404;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = layout(
        view,
        view.t('Не знайдено', 'Not found'),
        html`<h1>${known ? view.t('Метод не дозволено', 'Method not allowed') : view.t('Сторінку не знайдено', 'Page not found')}</h1>
          <p><a href="/console/">${view.t('До доменів', 'Back to domains')}</a></p>`,
      );
      return;
    }
    if (match.auth && !human) {
      if (ctx.method === 'GET')
        return ctx.redirect(
          `/console/sign-in?next=${encodeURIComponent(ctx.path + (ctx.querystring ? `?${ctx.querystring}` : ''))}${token ? '&ended=1' : ''}`,
        );
      // A form sent after the session ended: the sign-in page, carrying what was typed (resume.ts).
      let resume: Resume | null = null;
      try {
        resume = resumeOf(ctx.path, await readForm(ctx, match.maxFormBytes ?? MAX_FORM_BYTES));
      } catch (err) {
        if (!isDomainError(err)) throw err;
      }
      ctx.status = 401;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = layout(view, view.t('Вхід', 'Sign in'), signInForm(view, { query: { ended: '1' }, form: {} }, undefined, resume), {
        bare: true,
      });
      return;
    }

    let form: Record<string, string | string[]> = {};
    let claim: FormClaim = { kind: 'none' };
    const formBack = () => (typeof form._back === 'string' ? safeNext(form._back) : safeNext(ctx.path));
    try {
      if (ctx.method === 'POST') {
        form = await readForm(ctx, match.maxFormBytes ?? MAX_FORM_BYTES);
        // CSRF: the synchronizer token of this session (or the pre-session token on anonymous forms).
        const sent = typeof form._csrf === 'string' ? form._csrf : null;
        if (!sameToken(sent, view.csrf)) throw new DomainError('csrf_failed');
        // One send per drawn form (form-once.ts): a second send gets the first one's outcome.
        if (human)
          claim = await claimForm(
            uc.consoleForms,
            human.session.id,
            ctx.path,
            form,
            () => deps.clock?.now() ?? new Date(),
            deps.fingerprintKey,
          );
        if (claim.kind === 'replay' && 'redirect' in claim.outcome) return ctx.redirect(claim.outcome.redirect);
        if (claim.kind === 'replay' || claim.kind === 'other-content' || claim.kind === 'still-running') {
          ctx.status = claim.kind === 'replay' ? 200 : 409;
          ctx.type = 'text/html; charset=utf-8';
          ctx.body = layout(
            view,
            view.t('Форму вже надіслано', 'The form was already sent'),
            html`<h1>${view.t('Форму вже надіслано', 'The form was already sent')}</h1>
              ${alert(
                'info',
                claim.kind === 'still-running'
                  ? view.t(
                      'Цю форму вже надіслано, і її ще виконують. Перевірте результат за хвилину; вдруге її не виконано.',
                      'This form was already sent and is still being done. Check the result in a minute; it was not done a second time.',
                    )
                  : claim.kind === 'other-content'
                    ? view.t(
                        'Цю форму вже надіслано з іншим змістом. Відкрийте її знову, щоб надіслати нове.',
                        'This form was already sent with other content. Open it again to send something new.',
                      )
                    : view.t(
                        'Цю форму вже надіслано (подвійне натискання чи повтор); вдруге її не виконано.',
                        'This form was already sent (a double click or a repeat); it was not done a second time.',
                      ),
              )}
              <p><a class="button secondary" href="${formBack()}">${view.t('Назад', 'Back')}</a></p>`,
          );
          return;
        }
      }
      const req: ConsoleRequest = {
        view,
        human,
        params: match.pattern
          .exec(ctx.path)!
          .slice(1)
          .map((p) => decodeURIComponent(p)),
        query: ctx.query as Record<string, string | undefined>,
        form,
        ip: ctx.ip,
        once: ctx.method === 'GET' ? readOnce(uc.consoleBox, onceRaw, onceOwner, Date.now()) : null,
      };
      // A one-time view reaches one GET only: whatever page that is, the cookie goes with it.
      if (ctx.method === 'GET' && onceRaw) setCookie(ONCE_COOKIE, '', { maxAge: 0 });
      const out = await match.handle(req);
      if (claim.kind === 'claimed') {
        // A redirect or a page that succeeded is what a second send gets; an error page changed nothing.
        if ('redirect' in out) await claim.done({ redirect: out.redirect }, 303);
        else if ('file' in out || (out.status ?? 200) < 400) await claim.done({ page: true }, 'file' in out ? 200 : (out.status ?? 200));
        else await claim.undo();
      }
      if ('redirect' in out) {
        for (const c of out.cookies ?? []) setCookie(c.name, c.value, c);
        if (out.once) setCookie(ONCE_COOKIE, writeOnce(uc.consoleBox, out.once, onceOwner, Date.now()), { maxAge: ONCE_TTL_S });
        return ctx.redirect(out.redirect);
      }
      if ('file' in out) {
        ctx.type = out.file.type;
        ctx.set('Content-Disposition', `attachment; filename="${out.file.name.replace(/[^\w.-]/g, '_')}"`);
        ctx.body = out.file.body;
        return;
      }
      for (const c of out.cookies ?? []) setCookie(c.name, c.value, c);
      for (const [k, v] of Object.entries(out.headers ?? {})) ctx.set(k, v);
      ctx.status = out.status ?? 200;
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = layout(view, out.title, out.body, { bare: out.bare ?? false });
    } catch (err) {
      if (claim.kind === 'claimed') await claim.undo();
      if (!isDomainError(err)) {
        deps.logger.error({ err, path: ctx.path }, 'console error');
        err = new DomainError('internal_error');
      }
      const e = err as DomainError;
      if (e.code === 'reauth_required' || e.code === 'session_required') {
        // Back to the page they were on: a GET with its query (a DNS draft lives there), a form's own way back.
        const here = safeNext(ctx.path + (ctx.querystring ? `?${ctx.querystring}` : ''), ctx.path);
        const back = ctx.method === 'GET' ? here : safeNext(typeof form._back === 'string' ? form._back : undefined, ctx.path);
        if (e.code === 'reauth_required') {
          // A form asked for it: "sign in again" carries what was typed and sends it after (resume.ts).
          if (ctx.method === 'POST' && human) {
            ctx.status = 200;
            ctx.type = 'text/html; charset=utf-8';
            ctx.body = layout(
              view,
              view.t('Увійдіть ще раз', 'Sign in again'),
              reauthForm({ view, human }, back, resumeOf(ctx.path, form)),
              {
                bare: false,
              },
            );
            return;
          }
          return ctx.redirect(`/console/reauth?next=${encodeURIComponent(back)}`);
        }
        return ctx.redirect(`/console/sign-in?next=${encodeURIComponent(back)}&ended=1`);
      }
      ctx.status = ERROR_TABLE[e.code].status;
      const retryAfter = (e.params as { retry_after?: unknown } | undefined)?.retry_after;
      if (typeof retryAfter === 'number') ctx.set('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
      ctx.type = 'text/html; charset=utf-8';
      const back = typeof form._back === 'string' ? safeNext(form._back) : ctx.method === 'GET' ? '/console/' : safeNext(ctx.path);
      ctx.body = layout(
        view,
        view.t('Не вдалося', 'That did not work'),
        html`<h1>${view.t('Не вдалося', 'That did not work')}</h1>
          ${alert(
            'error',
            html`<p>${errorText(lang, e)}</p>
              <p class="muted">${view.t('Код помилки', 'Error code')}: <code>${e.code}</code></p>`,
          )}
          <p><a class="button secondary" href="${back}">${view.t('Назад', 'Back')}</a></p>`,
      );
    }
  };
};

export type { Html };
