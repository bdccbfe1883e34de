import type { HumanContext } from '../../../core/kernel/person.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { html, type Html, type Lang } from './html.js';

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
}

export const csrfField = (v: View) => html`<input type="hidden" name="_csrf" value="${v.csrf}" />`;

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

const current = (v: View, href: string) =>
  href === '/console/' ? v.path === '/console/' || v.path === '/console' || v.path.startsWith('/console/domains') : v.path.startsWith(href);

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
            ${v.human ? html`<span class="muted">${v.human.person.email}</span>` : ''}
          </div>
        </header>
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
