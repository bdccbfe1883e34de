import type { HumanContext } from '../../../core/kernel/person.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { daysBetween, kyivDate } from '../../../core/kernel/dates.js';
import { html, type Html, type Lang } from './html.js';
import { FORM_FIELD, newFormId } from './form-once.js';

/** What every console page knows about the request. */
export interface View {
  readonly lang: Lang;
  readonly env: Environment;
  readonly path: string;
  readonly human: HumanContext | null;
  /** The per-session CSRF synchronizer token (or the pre-session one on sign-in forms). */
  readonly csrf: string;
  /** uk/en pick. */
  t(uk: string, en: string): string;
  /** The person's IANA time zone (their browser's, through a cookie; Europe/Kyiv until it is known). */
  readonly tz: string;
  /** A test-environment page of a signed-in person: the account's sandbox clock. */
  readonly sandbox: { readonly now: string; readonly offsetMs: number } | null;
  /** Now, for this environment: the sandbox clock's time in test, the server's in live. */
  readonly now: Date;
}

/** Calendar days (Europe/Kyiv, the registry's calendar) from today to a domain's expiry date; negative: expired
 * that many days ago. A hosted domain (registered elsewhere, expiry unknown) never warns. */
export const daysLeft = (expiresOn: string | null, now: Date): number =>
  expiresOn === null ? Number.POSITIVE_INFINITY : daysBetween(kyivDate(now), expiresOn);

/** The expiry warning of a domain: expired, or expiring within 30 days; nothing otherwise. */
export const expiryNote = (v: View, expiresOn: string) => {
  const left = daysLeft(expiresOn, v.now);
  if (left < 0) return html`<span class="pill bad">${v.t(`закінчився ${-left} дн. тому`, `expired ${-left} d ago`)}</span>`;
  if (left <= 30) return html`<span class="pill warn">${v.t(`закінчується за ${left} дн.`, `expires in ${left} d`)}</span>`;
  return '';
};

/** Every time the console shows: one format, in the person's language and time zone. */
export const when = (iso: string | Date | null | undefined, v: Pick<View, 'lang' | 'tz'>): string =>
  iso
    ? new Date(iso).toLocaleString(v.lang === 'uk' ? 'uk-UA' : 'en-GB', {
        timeZone: v.tz,
        dateStyle: 'medium',
        timeStyle: 'short',
      })
    : '—';
/** A calendar date (YYYY-MM-DD, as the API keeps expiry dates) in the same style, without a time. */
export const day = (date: string | null | undefined, v: Pick<View, 'lang'>): string =>
  date && /^\d{4}-\d{2}-\d{2}/.test(date)
    ? new Date(`${date.slice(0, 10)}T12:00:00Z`).toLocaleDateString(v.lang === 'uk' ? 'uk-UA' : 'en-GB', {
        timeZone: 'UTC',
        dateStyle: 'medium',
      })
    : '—';

/** The sandbox clock in the header: the account's date, and a badge once it has been moved. */
const sandboxClock = (v: View) => {
  if (!v.sandbox) return '';
  const days = Math.floor(v.sandbox.offsetMs / 86_400_000);
  const hours = Math.floor((v.sandbox.offsetMs % 86_400_000) / 3_600_000);
  const ahead = v.sandbox.offsetMs > 0;
  return html`<a class="clock${ahead ? ' moved' : ''}" href="/console/sandbox" id="sandbox-clock"
    ><span class="clock-label">${v.t('Час пісочниці', 'Sandbox time')}:</span>
    <time datetime="${v.sandbox.now}"
      >${new Date(v.sandbox.now).toLocaleString(v.lang === 'uk' ? 'uk-UA' : 'en-GB', {
        timeZone: v.tz,
        dateStyle: 'medium',
        timeStyle: 'short',
      })}
      <span class="tz"
        >${new Intl.DateTimeFormat('en', { timeZone: v.tz, timeZoneName: 'short' }).formatToParts(new Date(v.sandbox.now)).find((p) => p.type === 'timeZoneName')?.value ?? ''}</span
      ></time
    >${
      ahead
        ? html` <span class="badge"
            >${v.t(`час переведено: +${days} дн.${hours ? ` ${hours} год.` : ''}`, `time travelled: +${days} d${hours ? ` ${hours} h` : ''}`)}</span
          >`
        : ''
    }</a
  >`;
};

/** Every form's hidden fields: the CSRF token and, for a signed-in person, the form's one-send id (form-once.ts). */
const csrfInput = (v: View) => html`<input type="hidden" name="_csrf" value="${v.csrf}" />`;
const formIdInput = () => html`<input type="hidden" name="${FORM_FIELD}" value="${newFormId()}" />`;
export const csrfField = (v: View) => html`${csrfInput(v)}${v.human ? formIdInput() : ''}`;

const NAV: ReadonlyArray<{ href: string; uk: string; en: string }> = [
  { href: '/console/', uk: 'Домени', en: 'Domains' },
  { href: '/console/operations', uk: 'Операції', en: 'Operations' },
  { href: '/console/certificates', uk: 'Сертифікати', en: 'Certificates' },
  { href: '/console/monitors', uk: 'Моніторинг', en: 'Monitoring' },
  { href: '/console/webhooks', uk: 'Вебхуки', en: 'Webhooks' },
  { href: '/console/keys', uk: 'Ключі', en: 'Keys' },
  { href: '/console/notices', uk: 'Сповіщення', en: 'Notices' },
  { href: '/console/billing', uk: 'Баланс', en: 'Balance' },
  { href: '/console/people', uk: 'Люди', en: 'People' },
  { href: '/console/security', uk: 'Безпека', en: 'Security' },
  { href: '/console/sandbox', uk: 'Пісочниця', en: 'Sandbox' },
];

/** The pages under "Domains": the list, a domain's own, finding one, bringing one (hosted, transferred). */
const UNDER_DOMAINS = /^\/console\/(domains|transfers|search|hosted)(\/|$)/;
const current = (v: View, href: string) =>
  href === '/console/' ? v.path === '/console/' || v.path === '/console' || UNDER_DOMAINS.test(v.path) : v.path.startsWith(href);

export const layout = (v: View, title: string, body: Html, opts: { bare?: boolean } = {}): string => {
  const other: Lang = v.lang === 'uk' ? 'en' : 'uk';
  const here = encodeURIComponent(v.path);
  const envName = v.env === 'test' ? v.t('Пісочниця', 'Sandbox') : v.t('Робоче', 'Live');
  return `<!doctype html>${
    html`<html lang="${v.lang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — Domivka</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/console.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">${v.t('Перейти до змісту', 'Skip to content')}</a>
        <header class="top">
          <a class="brand" href="/console/">Domivka</a>
          ${
            opts.bare || !v.human
              ? ''
              : html`<nav aria-label="${v.t('Розділи консолі', 'Console sections')}">
                  <ul>
                    ${NAV.map((n) => html`<li><a href="${n.href}" ${current(v, n.href) ? html` aria-current="page"` : ''}>${v.t(n.uk, n.en)}</a></li>`)}
                  </ul>
                </nav>`
          }
          <div class="tools">
            ${
              v.human
                ? html`<span class="envtag ${v.env}" title="${v.t('Середовище', 'Environment')}">${envName}</span>
                    <a href="/console/env/${v.env === 'test' ? 'live' : 'test'}?next=${here}"
                      >${v.env === 'test' ? v.t('Перейти до робочого', 'Switch to live') : v.t('Перейти до пісочниці', 'Switch to sandbox')}</a
                    >`
                : ''
            }
            <a href="/console/lang/${other}?next=${here}" lang="${other}" hreflang="${other}"
              >${other === 'en' ? 'English' : 'Українська'}</a
            >
            ${v.human ? html`<span class="muted who" title="${v.human.person.email}">${v.human.person.email}</span>` : ''}
          </div>
        </header>
        ${
          v.human && v.sandbox
            ? html`<div class="sandbar">
                ${sandboxClock(v)}${
                  v.human.actor.role === 'owner'
                    ? html`<a class="clockmove" href="/console/sandbox#move">${v.t('Перевести годинник…', 'Move the clock…')}</a>`
                    : ''
                }
              </div>`
            : ''
        }
        <main id="main">${body}</main>
        <footer>
          ${v.t('Domivka — домени, DNS і сертифікати. Ключі API ніколи не виконують шість дій, що належать людям.', 'Domivka — domains, DNS and certificates. API keys never perform the six actions that belong to people.')}
        </footer>
      </body>
    </html>`.value
  }`;
};

export const alert = (kind: 'error' | 'ok' | 'info', body: Html | string) =>
  html`<div class="alert ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${body}</div>`;
