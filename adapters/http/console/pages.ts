import type { IssueKeyInput } from '../../../core/access/issue-key.use-case.js';
import { TEMPLATES } from '../../../core/access/templates.js';
import { RIGHTS, type RightName } from '../../../core/kernel/rights.js';
import { formatUah } from '../../../core/kernel/money.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { UseCases } from '../use-cases.js';
import { html, raw } from './html.js';
import { alert, csrfField, type View } from './layout.js';
import { operationPages } from './operations.pages.js';
import { sandboxPages } from './sandbox.pages.js';
import { errorText } from './error-text.js';
import type { ConsolePage, ConsoleRequest } from './page.js';

export type { ConsolePage, ConsoleRequest, CookieOut, PageOut } from './page.js';

const field = (f: ConsoleRequest['form'], name: string): string => {
  const v = f[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
};
const fields = (f: ConsoleRequest['form'], name: string): string[] => {
  const v = f[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};
const me = (r: ConsoleRequest) => r.human!;
const uah = (kop: number) => `${formatUah(kop)} ₴`;
const when = (iso: string | null | undefined, v: View) =>
  iso
    ? new Date(iso).toLocaleString(v.lang === 'uk' ? 'uk-UA' : 'en-GB', {
        timeZone: 'Europe/Kyiv',
        dateStyle: 'medium',
        timeStyle: 'short',
      })
    : '—';
const statusPill = (s: string) =>
  html`<span
    class="pill ${s === 'ok' || s === 'active' ? 'ok' : /pending|Period/.test(s) ? 'warn' : /redemption|Delete|revoked|expired|failed/.test(s) ? 'bad' : ''}"
    >${s}</span
  >`;
const done = (r: ConsoleRequest, uk: string, en: string) => (r.query.done ? alert('ok', r.view.t(uk, en)) : '');

/** Spend limit typed in UAH with up to two decimals → kopiykas (no floats). */
const kopiykas = (text: string): number | null => {
  const m = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
};

/** The key wizard's state, carried from step to step in the form (seed A8's order). */
interface Wizard {
  environment: Environment;
  template: string;
  scope: 'domains' | 'label';
  domains: string[];
  label: string;
  cidr: string;
  expires: string;
  spend: string;
  name: string;
}
const wizardOf = (src: Record<string, string | string[] | undefined>, env: Environment): Wizard => {
  const one = (k: string) => {
    const v = src[k];
    return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
  };
  const many = (k: string) => {
    const v = src[k];
    return v === undefined ? [] : Array.isArray(v) ? v : [v];
  };
  const environment = one('environment') === 'live' ? 'live' : one('environment') === 'test' ? 'test' : env;
  const extra = one('more_domains')
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
  return {
    environment,
    template: one('template'),
    scope: one('scope') === 'label' ? 'label' : 'domains',
    domains: [
      ...new Set([
        ...many('domains')
          .flatMap((d) => d.split(','))
          .filter(Boolean),
        ...extra,
      ]),
    ],
    label: one('label'),
    cidr: one('cidr'),
    expires: one('expires_on'),
    spend: one('spend_limit'),
    name: one('name'),
  };
};
const wizardInput = (w: Wizard): IssueKeyInput => {
  const spend = w.spend.trim() === '' ? null : kopiykas(w.spend);
  if (spend === null && w.spend.trim() !== '')
    throw new DomainError('validation_failed', {}, [{ field: 'spend_limit', rule: 'UAH with up to two decimals, e.g. 500 or 499.99' }]);
  return {
    environment: w.environment,
    template: w.template,
    ...(w.name.trim() ? { name: w.name.trim() } : {}),
    ...(w.scope === 'label' ? { label: w.label } : { domains: w.domains }),
    conditions: { cidr: w.cidr.trim() || null, expires_on: w.expires.trim() || null, spend_limit: spend },
  };
};
const wizardHidden = (w: Wizard, except: string[] = []) =>
  html`${[
    ['environment', w.environment],
    ['template', w.template],
    ['scope', w.scope],
    ['label', w.label],
    ['cidr', w.cidr],
    ['expires_on', w.expires],
    ['spend_limit', w.spend],
    ['name', w.name],
  ]
    .filter(([k]) => !except.includes(k!))
    .map(
      ([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`,
    )}${except.includes('domains') ? '' : w.domains.map((d) => html`<input type="hidden" name="domains" value="${d}" />`)}`;
const steps = (v: View, at: number) =>
  html`<ol class="steps" aria-label="${v.t('Кроки', 'Steps')}">
    ${[
      v.t('Шаблон прав', 'Rights template'),
      v.t('Домени або мітка', 'Domains or label'),
      v.t('Умови', 'Conditions'),
      v.t('Перевірка', 'Review'),
      v.t('Ключ', 'The key'),
    ].map((s, i) => html`<li${i + 1 === at ? raw(' aria-current="step"') : ''}>${s}</li>`)}
  </ol>`;

const signInForm = (v: View, r: ConsoleRequest, error?: string) =>
  html`<div class="signin card">
    <h1>${v.t('Вхід до консолі', 'Sign in to the console')}</h1>
    ${r.query.ended ? alert('info', v.t('Сесія закінчилася або її немає. Увійдіть знову.', 'Your session has ended or is missing. Please sign in again.')) : ''}
    ${error ? alert('error', error) : ''}
    <form class="stack" method="post" action="/console/sign-in">
      ${csrfField(v)}<input type="hidden" name="next" value="${r.query.next ?? field(r.form, 'next')}" />
      <label for="email">${v.t('Електронна пошта', 'E-mail')}</label
      ><input id="email" name="email" type="email" autocomplete="username" required value="${field(r.form, 'email')}" />
      <label for="password">${v.t('Пароль', 'Password')}</label
      ><input id="password" name="password" type="password" autocomplete="current-password" required />
      <label for="totp">${v.t('Одноразовий код', 'One-time code')}</label
      ><input
        id="totp"
        name="totp"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9]{6}"
        aria-describedby="totp-hint"
      />
      <p class="hint" id="totp-hint">
        ${v.t('Шість цифр із застосунку-автентифікатора (TOTP). Якщо ви вимкнули двофакторну перевірку, залиште порожнім.', 'Six digits from your authenticator app (TOTP). Leave empty if you switched two-factor checks off.')}
      </p>
      <div class="actions"><button type="submit">${v.t('Увійти', 'Sign in')}</button></div>
    </form>
  </div>`;

/** The field for the first code of a new TOTP secret (switching two-factor checks on again). */
const twoFactorCodeForm = (v: View) =>
  html`<form class="stack card" method="post" action="/console/security/two-factor/enable">
    ${csrfField(v)}<input type="hidden" name="_back" value="/console/security" />
    <label for="totp">${v.t('Код із застосунку', 'Code from the app')}</label
    ><input
      id="totp"
      name="totp"
      type="text"
      inputmode="numeric"
      autocomplete="one-time-code"
      pattern="[0-9]{6}"
      maxlength="6"
      required
      aria-describedby="totp-hint"
    />
    <p class="hint" id="totp-hint">
      ${v.t('Шість цифр, які застосунок показує для нового секрету.', 'The six digits your app shows for the new secret.')}
    </p>
    <div class="actions">
      <button type="submit">${v.t('Підтвердити й увімкнути', 'Confirm and switch on')}</button
      ><a href="/console/security">${v.t('Скасувати', 'Cancel')}</a>
    </div>
  </form>`;

const safeNext = (next: unknown, fallback = '/console/'): string =>
  typeof next === 'string' && /^\/console(\/[^\s\\]*)?$/.test(next) && !next.startsWith('//') ? next : fallback;

export const pages = (uc: UseCases): ConsolePage[] => [
  // ── sign-in, re-auth, sign-out ─────────────────────────────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/sign-in$/,
    auth: false,
    handle: async (r) =>
      r.human && !r.query.ended
        ? { redirect: safeNext(r.query.next) }
        : { title: r.view.t('Вхід', 'Sign in'), body: signInForm(r.view, r), bare: true },
  },
  {
    method: 'POST',
    pattern: /^\/console\/sign-in$/,
    auth: false,
    handle: async (r) => {
      try {
        const s = await uc.signIn.execute({
          email: field(r.form, 'email'),
          password: field(r.form, 'password'),
          totp: field(r.form, 'totp'),
          address: r.ip,
        });
        return {
          redirect: safeNext(field(r.form, 'next')),
          cookies: [{ name: 'dmk_session', value: s.token, expires: s.session.expiresAt }],
        };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'sign_in_failed') {
          return {
            title: r.view.t('Вхід', 'Sign in'),
            status: 401,
            bare: true,
            body: signInForm(
              r.view,
              r,
              r.view.t(
                'Не вдалося увійти: неправильна адреса, пароль або одноразовий код.',
                'Sign-in failed: wrong e-mail, password or one-time code.',
              ),
            ),
          };
        }
        // The throttle's refusal, in the API's words, above the form (the wait is in the text).
        if (err instanceof DomainError && err.code === 'too_many_attempts') {
          return {
            title: r.view.t('Вхід', 'Sign in'),
            status: 429,
            bare: true,
            headers: { 'Retry-After': String(err.params?.retry_after ?? 1) },
            body: signInForm(r.view, r, errorText(r.view.lang, err)),
          };
        }
        throw err;
      }
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/sign-out$/,
    auth: true,
    handle: async (r) => {
      await uc.signOut.execute(me(r).session);
      return { redirect: '/console/sign-in', cookies: [{ name: 'dmk_session', value: '', maxAge: 0 }] };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/reauth$/,
    auth: true,
    handle: async (r) => ({
      title: r.view.t('Увійдіть ще раз', 'Sign in again'),
      body: html`<div class="signin card">
        <h1>${r.view.t('Увійдіть ще раз', 'Sign in again')}</h1>
        <p>
          ${r.view.t('Ця дія чутлива (код передачі, власник домену, спосіб оплати, двофакторна перевірка, видалення рахунку). Підтвердьте, що це ви: пароль і одноразовий код. Підтвердження діє 5 хвилин.', 'This action is sensitive (transfer code, domain holder, payment method, two-factor checks, account deletion). Confirm it is you: password and one-time code. The confirmation lasts 5 minutes.')}
        </p>
        <form class="stack" method="post" action="/console/reauth">
          ${csrfField(r.view)}<input type="hidden" name="next" value="${safeNext(r.query.next)}" />
          <label for="password">${r.view.t('Пароль', 'Password')}</label
          ><input id="password" name="password" type="password" autocomplete="current-password" required />
          ${me(r).person.twoFactorEnabled === false ? '' : html`<label for="totp">${r.view.t('Одноразовий код', 'One-time code')}</label><input id="totp" name="totp" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required />`}
          <div class="actions">
            <button type="submit">${r.view.t('Підтвердити', 'Confirm')}</button><a href="/console/">${r.view.t('Скасувати', 'Cancel')}</a>
          </div>
        </form>
      </div>`,
    }),
  },
  {
    method: 'POST',
    pattern: /^\/console\/reauth$/,
    auth: true,
    handle: async (r) => {
      await uc.reauthenticate.execute(me(r), { password: field(r.form, 'password'), totp: field(r.form, 'totp'), address: r.ip });
      return { redirect: `${safeNext(field(r.form, 'next'))}${field(r.form, 'next').includes('?') ? '&' : '?'}reauthed=1` };
    },
  },

  // ── domains ────────────────────────────────────────────────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const list = await uc.humanReads.domainList(me(r).actor, v.env);
      return {
        title: v.t('Домени', 'Domains'),
        body: html`<h1>${v.t('Домени', 'Domains')}</h1>
          <p class="lead">
            ${v.env === 'test' ? v.t('Пісочниця: реєстрації та оплати тут виглядають справжніми, але нічого не змінюють.', 'Sandbox: registrations and charges here look real but change nothing.') : v.t('Робоче середовище: усе тут справжнє.', 'Live: everything here is real.')}
          </p>
          ${
            list.length === 0
              ? html`<div class="card">
                  <p>${v.t('У цьому середовищі ще немає доменів.', 'There are no domains in this environment yet.')}</p>
                </div>`
              : html`<table>
                  <caption>
                    ${v.t(`Доменів: ${list.length}`, `${list.length} domains`)}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Домен', 'Domain')}</th>
                      <th scope="col">${v.t('Стан', 'Status')}</th>
                      <th scope="col">${v.t('Діє до', 'Expires')}</th>
                      <th scope="col">${v.t('Автопродовження', 'Auto-renew')}</th>
                      <th scope="col">${v.t('Мітки', 'Labels')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${list.map(
                      (d) =>
                        html`<tr>
                          <th scope="row"><a href="/console/domains/${encodeURIComponent(d.domain)}">${d.domain}</a></th>
                          <td>${d.status.map(statusPill)}</td>
                          <td>${d.expires_at ?? v.t('в іншого реєстратора', 'at another registrar')}</td>
                          <td>${d.auto_renew ? v.t('так', 'on') : v.t('ні', 'off')}</td>
                          <td>${d.labels.map((l) => html`<span class="pill">${l}</span>`)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/domains\/([^/]+)$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const { domain: d, records, serial } = await uc.humanReads.domain(me(r).actor, v.env, r.params[0]!);
      const ops = await operationPages.pendingFor(uc, r, d.domain);
      return {
        title: d.domain,
        body: html`<h1>${d.domain}</h1>
          ${done(r, 'Готово.', 'Done.')}
          <div class="card">
            <dl class="kv">
              <dt>${v.t('Стан', 'Status')}</dt>
              <dd>${d.status.map(statusPill)}</dd>
              <dt>${v.t('Діє до', 'Expires')}</dt>
              <dd>
                ${d.expires_at ?? v.t('невідомо: домен зареєстровано в іншого реєстратора', 'unknown: registered at another registrar')}
              </dd>
              <dt>${v.t('Автопродовження', 'Auto-renew')}</dt>
              <dd>${d.auto_renew ? v.t('увімкнено', 'on') : v.t('вимкнено', 'off')}</dd>
              <dt>${v.t('Блокування передачі', 'Transfer lock')}</dt>
              <dd>${d.transfer_lock ? v.t('увімкнено', 'on') : v.t('вимкнено', 'off')}</dd>
              <dt>${v.t('Сервери імен', 'Nameservers')}</dt>
              <dd class="mono">${d.nameservers.join(', ') || '—'}</dd>
              <dt>${v.t('Мітки', 'Labels')}</dt>
              <dd>${d.labels.map((l) => html`<span class="pill">${l}</span>`)}</dd>
            </dl>
          </div>
          ${ops}
          <h2>${v.t('Записи зони', 'Zone records')}${serial !== null ? html` <small class="muted">(serial ${serial})</small>` : ''}</h2>
          ${
            records.length === 0
              ? html`<p>${v.t('Зони немає.', 'No zone.')}</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Ім’я', 'Name')}</th>
                      <th scope="col">${v.t('Тип', 'Type')}</th>
                      <th scope="col">TTL</th>
                      <th scope="col">${v.t('Значення', 'Values')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${records.map(
                      (s) =>
                        html`<tr>
                          <td class="mono">${s.name}</td>
                          <td>${s.type}</td>
                          <td class="num">${s.ttl}</td>
                          <td class="mono">${s.values.map((x) => html`${x}<br />`)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }
          <p class="muted">
            ${v.t('Записи змінюють через перевірений план DNS (API, право dns.edit).', 'Records are changed through a checked DNS plan (API, right dns.edit).')}
          </p>
          <h2>${v.t('Дії лише для людей', 'Actions for people only')}</h2>
          <div class="card">
            <h3>${v.t('Код передачі домену', 'Transfer code')}</h3>
            <p>
              ${v.t('Код дозволяє перенести домен до іншого реєстратора. Його бачать лише власники після повторного входу; кожен перегляд записується, і всі власники отримують сповіщення.', 'The code lets the domain move to another registrar. Only owners see it, after signing in again; every reveal is recorded and every owner is told.')}
            </p>
            <form method="post" action="/console/domains/${encodeURIComponent(d.domain)}/transfer-code">
              ${csrfField(v)}<input type="hidden" name="_back" value="/console/domains/${encodeURIComponent(d.domain)}" /><button
                type="submit"
              >
                ${v.t('Показати код передачі', 'Reveal the transfer code')}
              </button>
            </form>
            <h3>${v.t('Власник домену (реєстрант)', 'Domain holder (registrant)')}</h3>
            <p>
              <a class="button secondary" href="/console/domains/${encodeURIComponent(d.domain)}/registrant"
                >${v.t('Змінити реєстранта', 'Change the registrant')}</a
              >
            </p>
          </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/domains\/([^/]+)\/transfer-code$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const res = await uc.revealTransferCode.execute(me(r), v.env, r.params[0]!);
      return {
        title: v.t('Код передачі', 'Transfer code'),
        body: html`<h1>${v.t('Код передачі', 'Transfer code')} — ${res.domain}</h1>
          ${alert('info', v.t('Власникам надіслано сповіщення про цей перегляд. Не пересилайте код відкритими каналами.', 'The owners were told of this reveal. Do not send the code over open channels.'))}
          <div class="card secret">
            <code id="transfer-code">${res.transferCode}</code
            ><button type="button" data-copy="transfer-code" data-copied="${v.t('Скопійовано', 'Copied')}">
              ${v.t('Копіювати', 'Copy')}
            </button>
          </div>
          <p><a href="/console/domains/${encodeURIComponent(res.domain)}">${v.t('Назад до домену', 'Back to the domain')}</a></p>`,
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/domains\/([^/]+)\/registrant$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const { domain: d } = await uc.humanReads.domain(me(r).actor, v.env, r.params[0]!);
      const inp = (id: string, uk: string, en: string, opts: { required?: boolean; type?: string; hint?: string; value?: string } = {}) =>
        html`<label for="${id}"
            >${v.t(uk, en)}${opts.required ? '' : html` <span class="muted">(${v.t('необов’язково', 'optional')})</span>`}</label
          >
          <input
            id="${id}"
            name="${id}"
            type="${opts.type ?? 'text'}"
            ${opts.required ? raw(' required') : ''}
            value="${opts.value ?? ''}"
            ${opts.hint ? raw(` aria-describedby="${id}-hint"`) : ''}
          />${opts.hint ? html`<p class="hint" id="${id}-hint">${opts.hint}</p>` : ''}`;
      return {
        title: v.t('Реєстрант', 'Registrant'),
        body: html`<h1>${v.t('Змінити реєстранта', 'Change the registrant')} — ${d.domain}</h1>
          <p class="lead">
            ${v.t('Реєстрант — юридичний власник домену в реєстрі. Зміну виконує реєстратор; її бачать усі власники рахунку. Потрібен повторний вхід.', 'The registrant is the legal holder of the domain at the registry. The registrar carries out the change; every owner of the account is told. Signing in again is required.')}
          </p>
          <form class="stack card" method="post" action="/console/domains/${encodeURIComponent(d.domain)}/registrant">
            ${csrfField(v)}<input type="hidden" name="_back" value="/console/domains/${encodeURIComponent(d.domain)}/registrant" />
            ${inp('name', 'Ім’я та прізвище', 'Full name', { required: true })} ${inp('organization', 'Організація', 'Organisation')}
            ${inp('email', 'Електронна пошта', 'E-mail', { required: true, type: 'email' })}
            ${inp('phone', 'Телефон', 'Phone', { hint: v.t('У форматі EPP: +380.441234567', 'In EPP form: +380.441234567') })}
            ${inp('street', 'Вулиця, будинок', 'Street and number', { required: true })} ${inp('city', 'Місто', 'City', { required: true })}
            ${inp('postal_code', 'Поштовий індекс', 'Postal code')}
            ${inp('country_code', 'Країна (код із двох літер)', 'Country (two-letter code)', { required: true, value: 'UA', hint: 'ISO 3166-1: UA, PL, DE…' })}
            <div class="actions">
              <button type="submit">${v.t('Змінити реєстранта', 'Change the registrant')}</button
              ><a href="/console/domains/${encodeURIComponent(d.domain)}">${v.t('Скасувати', 'Cancel')}</a>
            </div>
          </form>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/domains\/([^/]+)\/registrant$/,
    auth: true,
    handle: async (r) => {
      const f = r.form;
      const opt = (k: string) => (field(f, k).trim() === '' ? null : field(f, k).trim());
      const res = await uc.changeRegistrant.execute(me(r), r.view.env, r.params[0]!, {
        name: field(f, 'name').trim(),
        organization: opt('organization'),
        email: field(f, 'email').trim(),
        phone: opt('phone'),
        address: {
          street: [field(f, 'street').trim()],
          city: field(f, 'city').trim(),
          region: null,
          postalCode: opt('postal_code'),
          countryCode: field(f, 'country_code').trim().toUpperCase(),
        },
      });
      return { redirect: `/console/domains/${encodeURIComponent(res.domain)}?done=registrant` };
    },
  },

  // ── keys: list, revoke, the wizard (seed A8: template → domains or label → conditions → summary) ──
  {
    method: 'GET',
    pattern: /^\/console\/keys$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const page = await uc.listKeys.execute(me(r).actor, { limit: 200 });
      return {
        title: v.t('Ключі', 'Keys'),
        body: html`<h1>${v.t('Ключі доступу', 'Access keys')}</h1>
          ${done(r, 'Ключ відкликано.', 'The key was revoked.')}
          <p class="lead">
            ${me(r).actor.role === 'owner' ? v.t('Власники бачать усі ключі рахунку.', 'Owners see every key of the account.') : v.t('Учасники бачать лише свої ключі.', 'Members see their own keys only.')}
          </p>
          <p><a class="button" href="/console/keys/new">${v.t('Випустити ключ', 'Issue a key')}</a></p>
          ${
            page.data.length === 0
              ? html`<p>${v.t('Ключів ще немає.', 'No keys yet.')}</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Назва', 'Name')}</th>
                      <th scope="col">ID</th>
                      <th scope="col">${v.t('Середовище', 'Env.')}</th>
                      <th scope="col">${v.t('Клас', 'Class')}</th>
                      <th scope="col">${v.t('Права', 'Rights')}</th>
                      <th scope="col">${v.t('Діє до', 'Expires')}</th>
                      <th scope="col">${v.t('Стан', 'Status')}</th>
                      <th scope="col"><span class="muted">${v.t('Дія', 'Action')}</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${page.data.map(
                      (k) =>
                        html`<tr>
                          <td>${k.name}</td>
                          <td class="mono">${k.id}</td>
                          <td>${k.environment}</td>
                          <td>${k.class} · ${v.lang === 'uk' ? k.class_name.uk : k.class_name.en}</td>
                          <td>${k.policies.map((p) => html`<span class="pill">${p.right}</span>`)}</td>
                          <td>${k.conditions.expires_on}</td>
                          <td>${statusPill(k.status)}</td>
                          <td>
                            ${k.status === 'active' ? html`<form class="inline" method="post" action="/console/keys/${k.id}/revoke" data-confirm="${v.t(`Відкликати ключ ${k.name}? Він перестане працювати одразу.`, `Revoke the key ${k.name}? It stops working at once.`)}">${csrfField(v)}<button class="small danger" type="submit" aria-label="${v.t('Відкликати', 'Revoke')} ${k.name}">${v.t('Відкликати', 'Revoke')}</button></form>` : ''}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/keys\/([0-9A-Za-z]{12})\/revoke$/,
    auth: true,
    handle: async (r) => {
      await uc.revokeKey.execute(me(r).actor, r.params[0]!);
      return { redirect: '/console/keys?done=revoked' };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/keys\/new$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const w = wizardOf(r.query, v.env);
      const step = Number(r.query.step ?? 1);
      if (step === 1 || !w.template) {
        return {
          title: v.t('Новий ключ', 'New key'),
          body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
            ${steps(v, 1)}
            <form class="stack card" method="get" action="/console/keys/new">
              <input type="hidden" name="step" value="2" />${wizardHidden(w, ['template', 'environment'])}
              <fieldset>
                <legend>${v.t('Середовище', 'Environment')}</legend>
                ${(['test', 'live'] as const).map((e) => html`<label class="choice"><input type="radio" name="environment" value="${e}" ${w.environment === e ? raw(' checked') : ''} /><span>${e === 'test' ? v.t('Пісочниця (test)', 'Sandbox (test)') : v.t('Робоче (live)', 'Live')}</span></label>`)}
              </fieldset>
              <fieldset>
                <legend>${v.t('Шаблон прав', 'Rights template')}</legend>
                ${TEMPLATES.map(
                  (t, i) =>
                    html`<label class="choice"
                      ><input
                        type="radio"
                        name="template"
                        value="${t.id}"
                        required${w.template === t.id || (!w.template && i === 0) ? raw(' checked') : ''}
                      /><span
                        >${v.lang === 'uk' ? t.title.uk : t.title.en}<small
                          >${t.rights.map((rt: RightName) => `${rt} — ${v.lang === 'uk' ? RIGHTS[rt].describe.uk : RIGHTS[rt].describe.en}`).join('; ')}</small
                        ></span
                      ></label
                    >`,
                )}
              </fieldset>
              <div class="actions">
                <button type="submit">${v.t('Далі', 'Next')}</button><a href="/console/keys">${v.t('Скасувати', 'Cancel')}</a>
              </div>
            </form>`,
        };
      }
      if (step === 2) {
        const list = await uc.humanReads.domainList(me(r).actor, w.environment);
        const labels = [...new Set(list.flatMap((d) => d.labels))].sort();
        return {
          title: v.t('Новий ключ', 'New key'),
          body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
            ${steps(v, 2)}
            <form class="stack card" method="get" action="/console/keys/new">
              <input type="hidden" name="step" value="3" />${wizardHidden(w, ['scope', 'label', 'domains'])}
              <fieldset>
                <legend>${v.t('Де діятиме ключ', 'Where the key works')}</legend>
                <label class="choice"
                  ><input type="radio" name="scope" value="domains" ${w.scope === 'domains' ? raw(' checked') : ''} /><span
                    >${v.t('На вибраних доменах', 'On chosen domains')}</span
                  ></label
                >
                <label class="choice"
                  ><input type="radio" name="scope" value="label" ${w.scope === 'label' ? raw(' checked') : ''} /><span
                    >${v.t('На всіх доменах з міткою (і майбутніх теж)', 'On every domain with a label (future ones too)')}</span
                  ></label
                >
              </fieldset>
              <fieldset data-scope="domains" ${w.scope === 'label' ? raw(' hidden') : ''}>
                <legend>${v.t('Домени', 'Domains')}</legend>
                ${list.map((d) => html`<label class="choice"><input type="checkbox" name="domains" value="${d.domain}" ${w.domains.includes(d.domain) ? raw(' checked') : ''} /><span>${d.domain}</span></label>`)}
                <label for="more_domains">${v.t('Інші імена (через кому)', 'Other names (comma-separated)')}</label
                ><input id="more_domains" name="more_domains" type="text" aria-describedby="more-hint" />
                <p class="hint" id="more-hint">
                  ${v.t('Наприклад, ім’я, яке ключ має право зареєструвати.', 'For example, a name the key may register.')}
                </p>
              </fieldset>
              <fieldset data-scope="label" ${w.scope === 'domains' ? raw(' hidden') : ''}>
                <legend>${v.t('Мітка', 'Label')}</legend>
                <label for="label">${v.t('Мітка', 'Label')}</label
                ><select id="label" name="label">
                  ${labels.map((l) => html`<option${w.label === l ? raw(' selected') : ''}>${l}</option>`)}
                </select>
              </fieldset>
              <div class="actions">
                <button type="submit">${v.t('Далі', 'Next')}</button
                ><a href="/console/keys/new?step=1&amp;template=${w.template}&amp;environment=${w.environment}">${v.t('Назад', 'Back')}</a>
              </div>
            </form>`,
        };
      }
      if (step === 3) {
        return {
          title: v.t('Новий ключ', 'New key'),
          body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
            ${steps(v, 3)}
            <form class="stack card" method="get" action="/console/keys/new">
              <input type="hidden" name="step" value="4" />${wizardHidden(w, ['cidr', 'expires_on', 'spend_limit', 'name'])}
              <label for="name">${v.t('Назва ключа', 'Key name')} <span class="muted">(${v.t('необов’язково', 'optional')})</span></label
              ><input id="name" name="name" type="text" maxlength="100" value="${w.name}" />
              <label for="cidr">${v.t('Дозволена мережа (IPv4 CIDR)', 'Allowed network (IPv4 CIDR)')}</label
              ><input
                id="cidr"
                name="cidr"
                type="text"
                placeholder="203.0.113.0/24"
                value="${w.cidr || (r.ip.replace(/^::ffff:/, '').match(/^\d+\.\d+\.\d+\.\d+$/) ? `${r.ip.replace(/^::ffff:/, '')}/32` : '')}"
                aria-describedby="cidr-hint"
              />
              <p class="hint" id="cidr-hint">
                ${v.t('Обов’язково для класів 2 і 3 (префікс /8 або довший). Залиште порожнім для класів 0–1, щоб не обмежувати.', 'Required for classes 2 and 3 (a /8 prefix or longer). Leave empty for classes 0–1 to allow any address.')}
              </p>
              <label for="expires_on">${v.t('Діє до (дата)', 'Valid until (date)')}</label
              ><input id="expires_on" name="expires_on" type="date" value="${w.expires}" aria-describedby="exp-hint" />
              <p class="hint" id="exp-hint">
                ${v.t('Порожньо — найдовший строк для класу ключа (365/180/90/30 днів).', 'Empty — the longest term for the key’s class (365/180/90/30 days).')}
              </p>
              <label for="spend_limit">${v.t('Ліміт витрат на місяць, грн', 'Monthly spend limit, UAH')}</label
              ><input
                id="spend_limit"
                name="spend_limit"
                type="text"
                inputmode="decimal"
                value="${w.spend}"
                aria-describedby="spend-hint"
              />
              <p class="hint" id="spend-hint">
                ${v.t('Обов’язково для ключів, що можуть витрачати (реєстрація, продовження, поповнення).', 'Required for keys that can spend (registration, renewal, top-up).')}
              </p>
              <div class="actions"><button type="submit">${v.t('Переглянути', 'Review')}</button></div>
            </form>`,
        };
      }
      // Step 4: the plain-language summary (core/access/summary.ts), through the same preview use case.
      let draft;
      try {
        draft = uc.issueKey.preview(me(r).actor, wizardInput(w));
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const back = new URLSearchParams(
          Object.entries({
            step: '3',
            environment: w.environment,
            template: w.template,
            scope: w.scope,
            label: w.label,
            cidr: w.cidr,
            expires_on: w.expires,
            spend_limit: w.spend,
            name: w.name,
          }),
        );
        w.domains.forEach((d) => back.append('domains', d));
        return {
          title: v.t('Новий ключ', 'New key'),
          status: 422,
          body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
            ${steps(v, 4)}${alert('error', errorText(v.lang, err))}
            <p>
              <a class="button secondary" href="/console/keys/new?${back.toString()}">${v.t('Змінити умови', 'Change the conditions')}</a>
            </p>`,
        };
      }
      const lines = v.lang === 'uk' ? draft.summary.lines.uk : draft.summary.lines.en;
      return {
        title: v.t('Новий ключ', 'New key'),
        body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
          ${steps(v, 4)}
          <div class="card summary">
            <h2>${v.t('Що зможе цей ключ', 'What this key will be able to do')}</h2>
            <p><strong>${v.t('Клас', 'Class')} ${draft.class}</strong></p>
            ${lines.map((l) => html`<p>${l}</p>`)}
          </div>
          <form method="post" action="/console/keys">
            ${csrfField(v)}${wizardHidden(w)}<input type="hidden" name="_back" value="/console/keys/new" />
            <div class="actions">
              <button type="submit">${v.t('Випустити ключ', 'Issue the key')}</button
              ><a href="/console/keys">${v.t('Скасувати', 'Cancel')}</a>
            </div>
          </form>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/keys$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const issued = await uc.issueKey.issue(me(r).actor, wizardInput(wizardOf(r.form, v.env)));
      return {
        title: v.t('Ключ випущено', 'Key issued'),
        body: html`<h1>${v.t('Ключ випущено', 'Key issued')}</h1>
          ${steps(v, 5)}
          ${alert('info', v.t('Скопіюйте ключ зараз: його показано лише один раз і ніде не збережено. Якщо втратите — відкличте й випустіть новий.', 'Copy the key now: it is shown only once and stored nowhere. If you lose it, revoke it and issue a new one.'))}
          <div class="card secret">
            <code id="key-secret">${issued.secret}</code
            ><button type="button" data-copy="key-secret" data-copied="${v.t('Скопійовано', 'Copied')}">${v.t('Копіювати', 'Copy')}</button>
          </div>
          <div class="card summary">
            ${(v.lang === 'uk' ? issued.summary.lines.uk : issued.summary.lines.en).map((l) => html`<p>${l}</p>`)}
          </div>
          <p><a href="/console/keys">${v.t('До списку ключів', 'To the list of keys')}</a></p>`,
      };
    },
  },

  // ── notices ────────────────────────────────────────────────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/notices$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const page = await uc.listNotices.execute(me(r).actor, { limit: 100 });
      return {
        title: v.t('Сповіщення', 'Notices'),
        body: html`<h1>${v.t('Сповіщення', 'Notices')}</h1>
          ${
            page.data.length === 0
              ? html`<p>${v.t('Сповіщень немає.', 'No notices.')}</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Коли', 'When')}</th>
                      <th scope="col">${v.t('Середовище', 'Env.')}</th>
                      <th scope="col">${v.t('Що сталося', 'What happened')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${page.data.map(
                      (n) =>
                        html`<tr>
                          <td>${when(n.created_at, v)}</td>
                          <td>${n.environment}</td>
                          <td>${v.lang === 'uk' ? n.message.uk : n.message.en}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      };
    },
  },

  // ── balance, transactions, payment method ──────────────────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/billing$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const b = await uc.humanReads.billing(me(r).actor, v.env);
      const card = await uc.changePaymentMethod.current(me(r), v.env);
      return {
        title: v.t('Баланс', 'Balance'),
        body: html`<h1>${v.t('Баланс і оплата', 'Balance and payment')}</h1>
          ${done(r, 'Спосіб оплати змінено.', 'The payment method was changed.')}
          <div class="card">
            <dl class="kv">
              <dt>${v.t('Баланс', 'Balance')}</dt>
              <dd><strong>${uah(b.balance.amount)}</strong></dd>
              <dt>${v.t('Картка', 'Card')}</dt>
              <dd>${card ? `${card.brand} •••• ${card.last4}` : v.t('не збережено', 'none saved')}</dd>
            </dl>
          </div>
          <h2>${v.t('Змінити спосіб оплати', 'Change the payment method')}</h2>
          <div class="card">
            ${
              v.env === 'test'
                ? html`<form class="stack" method="post" action="/console/billing/card">
                    ${csrfField(v)}<input type="hidden" name="_back" value="/console/billing" />
                    <label for="card_number">${v.t('Номер картки пісочниці', 'Sandbox card number')}</label
                    ><input
                      id="card_number"
                      name="card_number"
                      type="text"
                      inputmode="numeric"
                      autocomplete="off"
                      required
                      aria-describedby="card-hint"
                    />
                    <p class="hint" id="card-hint">
                      ${v.t('Тестові номери Stripe: 4242 4242 4242 4242 — успіх; 4000 0000 0000 0002 — відмова; …9995 — бракує коштів; …0119 — збій обробки. Потрібен повторний вхід.', 'Stripe test numbers: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined; …9995 insufficient funds; …0119 processing error. Signing in again is required.')}
                    </p>
                    <div class="actions"><button type="submit">${v.t('Зберегти картку', 'Save the card')}</button></div>
                  </form>`
                : html`<p>
                    ${v.t('У робочому середовищі картку зберігає Stripe (SetupIntent): номер картки не проходить через Domivka. API: POST /v1/account/payment-method/setups, потім …/complete.', 'In live, Stripe saves the card (SetupIntent): the card number never passes through Domivka. API: POST /v1/account/payment-method/setups, then …/complete.')}
                  </p>`
            }
          </div>
          <h2>${v.t('Операції', 'Transactions')}</h2>
          ${
            b.transactions.length === 0
              ? html`<p>${v.t('Операцій ще немає.', 'No transactions yet.')}</p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Коли', 'When')}</th>
                      <th scope="col">${v.t('Опис', 'Description')}</th>
                      <th scope="col">${v.t('Домен', 'Domain')}</th>
                      <th scope="col">${v.t('Стан', 'Status')}</th>
                      <th scope="col" class="num">${v.t('Сума', 'Amount')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${b.transactions.map(
                      (t) =>
                        html`<tr>
                          <td>${when(t.created_at, v)}</td>
                          <td>${t.description}</td>
                          <td>${t.domain ?? ''}</td>
                          <td>${statusPill(t.status)}</td>
                          <td class="num">${uah(t.amount.amount)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/billing\/card$/,
    auth: true,
    handle: async (r) => {
      await uc.changePaymentMethod.saveSandboxCard(me(r), field(r.form, 'card_number'));
      return { redirect: '/console/billing?done=card' };
    },
  },

  // ── people ─────────────────────────────────────────────────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/people$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const owner = me(r).actor.role === 'owner';
      const { people, invitations } = await uc.managePeople.list(me(r).actor);
      const role = (x: string) => (x === 'owner' ? v.t('власник', 'owner') : v.t('учасник', 'member'));
      return {
        title: v.t('Люди', 'People'),
        body: html`<h1>${v.t('Люди рахунку', 'People of the account')}</h1>
          ${done(r, 'Готово.', 'Done.')}
          <p class="lead">
            ${v.t('Власники керують людьми, ключами класів 2–3 і оплатою; учасники — ключами класів 0–1. У рахунку завжди лишається хоча б один власник.', 'Owners manage people, class 2–3 keys and payment; members manage class 0–1 keys. An account always keeps at least one owner.')}
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">${v.t('Людина', 'Person')}</th>
                <th scope="col">${v.t('Роль', 'Role')}</th>
                <th scope="col">${v.t('Двофакторна', 'Two-factor')}</th>
                <th scope="col">${v.t('Останній вхід', 'Last sign-in')}</th>
                <th scope="col"><span class="muted">${v.t('Дії', 'Actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              ${people.map(
                (p) =>
                  html`<tr>
                    <td>${p.name}<br /><span class="muted">${p.email}</span></td>
                    <td>${role(p.role)}</td>
                    <td>${p.two_factor ? v.t('увімкнено', 'on') : html`<span class="pill warn">${v.t('вимкнено', 'off')}</span>`}</td>
                    <td>${when(p.last_sign_in_at, v)}</td>
                    <td>
                      ${
                        owner
                          ? html`<form class="inline" method="post" action="/console/people/${p.id}/role">
                              ${csrfField(v)}<input type="hidden" name="_back" value="/console/people" /><label
                                class="skip"
                                for="role-${p.id}"
                                >${v.t('Роль для', 'Role for')} ${p.email}</label
                              ><select id="role-${p.id}" name="role">
                                <option value="owner" ${p.role === 'owner' ? raw(' selected') : ''}>${role('owner')}</option>
                                <option value="member" ${p.role === 'member' ? raw(' selected') : ''}>${role('member')}</option>
                              </select>
                              <button class="small secondary" type="submit">${v.t('Змінити роль', 'Change role')}</button>
                            </form> `
                          : ''
                      }
                      ${owner || p.id === me(r).person.id ? html`<form class="inline" method="post" action="/console/people/${p.id}/remove" data-confirm="${p.id === me(r).person.id ? v.t('Покинути рахунок?', 'Leave the account?') : v.t(`Видалити ${p.email} з рахунку? Його ключі буде відкликано.`, `Remove ${p.email} from the account? Their keys will be revoked.`)}">${csrfField(v)}<input type="hidden" name="_back" value="/console/people" /><button class="small danger" type="submit">${p.id === me(r).person.id ? v.t('Покинути', 'Leave') : v.t('Видалити', 'Remove')}</button></form>` : ''}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${
            owner
              ? html`<h2>${v.t('Запросити людину', 'Invite a person')}</h2>
                  <form class="stack card" method="post" action="/console/people/invite">
                    ${csrfField(v)}<input type="hidden" name="_back" value="/console/people" />
                    <label for="invite-email">${v.t('Електронна пошта', 'E-mail')}</label
                    ><input id="invite-email" name="email" type="email" required /> <label for="invite-role">${v.t('Роль', 'Role')}</label
                    ><select id="invite-role" name="role">
                      <option value="member">${role('member')}</option>
                      <option value="owner">${role('owner')}</option>
                    </select>
                    <p class="hint">
                      ${v.t('Людина отримає лист з одноразовим посиланням (діє 7 днів).', 'The person gets an e-mail with a one-time link (valid 7 days).')}
                    </p>
                    <div class="actions"><button type="submit">${v.t('Надіслати запрошення', 'Send the invitation')}</button></div>
                  </form>
                  ${
                    invitations.length > 0
                      ? html`<h2>${v.t('Запрошення, що очікують', 'Pending invitations')}</h2>
                          <table>
                            <thead>
                              <tr>
                                <th scope="col">${v.t('Кому', 'To')}</th>
                                <th scope="col">${v.t('Роль', 'Role')}</th>
                                <th scope="col">${v.t('Діє до', 'Valid until')}</th>
                                <th scope="col"><span class="muted">${v.t('Дія', 'Action')}</span></th>
                              </tr>
                            </thead>
                            <tbody>
                              ${invitations.map(
                                (i) =>
                                  html`<tr>
                                    <td>${i.email}</td>
                                    <td>${role(i.role)}</td>
                                    <td>${when(i.expires_at, v)}</td>
                                    <td>
                                      <form class="inline" method="post" action="/console/people/invitations/${i.id}/revoke">
                                        ${csrfField(v)}<button class="small secondary" type="submit">
                                          ${v.t('Відкликати', 'Withdraw')}
                                        </button>
                                      </form>
                                    </td>
                                  </tr>`,
                              )}
                            </tbody>
                          </table>`
                      : ''
                  }`
              : ''
          }`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/people\/invite$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const res = await uc.managePeople.invite(me(r).actor, {
        email: field(r.form, 'email'),
        role: field(r.form, 'role') === 'owner' ? 'owner' : 'member',
      });
      return {
        title: v.t('Запрошення надіслано', 'Invitation sent'),
        body: html`<h1>${v.t('Запрошення надіслано', 'Invitation sent')}</h1>
          ${alert('ok', v.t(`Лист із посиланням надіслано на ${res.invitation.email}.`, `An e-mail with the link was sent to ${res.invitation.email}.`))}
          <p>${v.t('Посилання (показано один раз; діє 7 днів, один раз):', 'The link (shown once; works once, for 7 days):')}</p>
          <div class="card secret">
            <code id="invite-link">${res.link}</code
            ><button type="button" data-copy="invite-link" data-copied="${v.t('Скопійовано', 'Copied')}">
              ${v.t('Копіювати', 'Copy')}
            </button>
          </div>
          <p><a href="/console/people">${v.t('До списку людей', 'Back to people')}</a></p>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/people\/invitations\/([^/]+)\/revoke$/,
    auth: true,
    handle: async (r) => {
      await uc.managePeople.revokeInvitation(me(r).actor, r.params[0]!);
      return { redirect: '/console/people?done=1' };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/people\/([^/]+)\/role$/,
    auth: true,
    handle: async (r) => {
      await uc.managePeople.changeRole(me(r).actor, r.params[0]!, field(r.form, 'role') === 'owner' ? 'owner' : 'member');
      return { redirect: '/console/people?done=1' };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/people\/([^/]+)\/remove$/,
    auth: true,
    handle: async (r) => {
      const self = r.params[0] === me(r).person.id;
      await uc.managePeople.remove(me(r).actor, r.params[0]!);
      return self
        ? { redirect: '/console/sign-in', cookies: [{ name: 'dmk_session', value: '', maxAge: 0 }] }
        : { redirect: '/console/people?done=1' };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/invitations$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      const token = r.query.token ?? '';
      if (!/^[0-9A-Za-z]{43}$/.test(token)) throw new DomainError('invitation_invalid');
      const inv = await uc.managePeople.inspect(token);
      return {
        title: v.t('Запрошення', 'Invitation'),
        bare: true,
        body: html`<div class="signin card">
          <h1>${v.t('Приєднатися до рахунку', 'Join the account')}</h1>
          <p>
            ${v.t(`Вас запросили як ${inv.role === 'owner' ? 'власника' : 'учасника'}: ${inv.email}.`, `You are invited as ${inv.role === 'owner' ? 'an owner' : 'a member'}: ${inv.email}.`)}
          </p>
          <form class="stack" method="post" action="/console/invitations">
            ${csrfField(v)}<input type="hidden" name="token" value="${token}" /> <label for="name">${v.t('Ваше ім’я', 'Your name')}</label
            ><input id="name" name="name" type="text" required autocomplete="name" />
            <label for="password">${v.t('Пароль (щонайменше 12 символів)', 'Password (at least 12 characters)')}</label
            ><input id="password" name="password" type="password" minlength="12" required autocomplete="new-password" />
            <div class="actions"><button type="submit">${v.t('Приєднатися', 'Join')}</button></div>
          </form>
        </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/invitations$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      const res = await uc.managePeople.accept(field(r.form, 'token'), {
        name: field(r.form, 'name'),
        password: field(r.form, 'password'),
      });
      return {
        title: v.t('Ласкаво просимо', 'Welcome'),
        bare: true,
        body: html`<div class="signin card">
          <h1>${v.t('Ласкаво просимо', 'Welcome')}, ${res.person.name}</h1>
          ${alert('info', v.t('Додайте цей секрет до застосунку-автентифікатора (Google Authenticator, 1Password, Aegis…). Його показано лише один раз.', 'Add this secret to your authenticator app (Google Authenticator, 1Password, Aegis…). It is shown only once.'))}
          <div class="secret">
            <code id="totp-secret">${res.totpSecret}</code
            ><button type="button" data-copy="totp-secret" data-copied="${v.t('Скопійовано', 'Copied')}">
              ${v.t('Копіювати', 'Copy')}
            </button>
          </div>
          <p class="muted mono">${res.totpUri}</p>
          <p><a class="button" href="/console/sign-in">${v.t('Увійти', 'Sign in')}</a></p>
        </div>`,
      };
    },
  },

  // ── security: two-factor, sign-out, account deletion ───────────────────────────────────────────
  {
    method: 'GET',
    pattern: /^\/console\/security$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const h = me(r);
      return {
        title: v.t('Безпека', 'Security'),
        body: html`<h1>${v.t('Безпека', 'Security')}</h1>
          ${r.query.done === 'on' ? alert('ok', v.t('Двофакторну перевірку знову ввімкнено з новим секретом; власники отримали сповіщення.', 'Two-factor checks are on again, with the new secret; the owners were told.')) : done(r, 'Двофакторну перевірку вимкнено; власники отримали сповіщення.', 'Two-factor checks are off; the owners were told.')}
          <div class="card">
            <dl class="kv">
              <dt>${v.t('Ви', 'You')}</dt>
              <dd>
                ${h.person.name} (${h.person.email}), ${h.actor.role === 'owner' ? v.t('власник', 'owner') : v.t('учасник', 'member')}
              </dd>
              <dt>${v.t('Сесія діє до', 'Session ends')}</dt>
              <dd>${when(h.session.expiresAt.toISOString(), v)}</dd>
              <dt>${v.t('Останнє підтвердження', 'Last proof of identity')}</dt>
              <dd>${when(h.session.authenticatedAt.toISOString(), v)}</dd>
            </dl>
            <form method="post" action="/console/sign-out" class="actions">
              ${csrfField(v)}<button class="secondary" type="submit">${v.t('Вийти', 'Sign out')}</button>
            </form>
          </div>
          <h2>${v.t('Двофакторна перевірка', 'Two-factor checks')}</h2>
          <div class="card">
            ${
              h.person.twoFactorEnabled === false
                ? html`<p>${v.t('Вимкнено: для входу досить пароля.', 'Off: signing in takes the password only.')}</p>
${
  h.person.totpPendingSecret
    ? html`<p>
          ${v.t('Новий секрет чекає на підтвердження: введіть код, який показує для нього застосунок-автентифікатор.', 'A new secret is waiting to be confirmed: enter the code your authenticator app shows for it.')}
        </p>
        ${twoFactorCodeForm(v)}`
    : ''
}
<p>${v.t('Увімкнення знову дає новий секрет для застосунку-автентифікатора (старий більше не діятиме); перевірка запрацює, щойно ви введете код із нього. Потрібен повторний вхід.', 'Switching it on again gives you a new secret for your authenticator app (the old one will not work again); the checks start once you enter a code from it. Signing in again is required.')}</p>
<form method="post" action="/console/security/two-factor/enrolment">${csrfField(v)}<input type="hidden" name="_back" value="/console/security"><button${h.person.totpPendingSecret ? raw(' class="secondary"') : ''} type="submit">${h.person.totpPendingSecret ? v.t('Отримати інший новий секрет', 'Get another new secret') : v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks')}</button></form>`
                : html`<p>
                      ${v.t('Увімкнено: вхід просить пароль і одноразовий код. Вимкнення послаблює захист рахунку; усі власники отримають сповіщення. Потрібен повторний вхід.', 'On: signing in asks for the password and a one-time code. Switching it off weakens the account; every owner is told. Signing in again is required.')}
                    </p>
                    <form
                      method="post"
                      action="/console/security/two-factor/disable"
                      data-confirm="${v.t('Вимкнути двофакторну перевірку?', 'Switch off two-factor checks?')}"
                    >
                      ${csrfField(v)}<input type="hidden" name="_back" value="/console/security" /><button class="danger" type="submit">
                        ${v.t('Вимкнути двофакторну перевірку', 'Switch off two-factor checks')}
                      </button>
                    </form>`
            }
          </div>
          <h2>${v.t('Видалення рахунку', 'Delete the account')}</h2>
          <div class="card">
            <p>
              ${v.t('Рахунок можна видалити лише без доменів і з нульовим балансом. Видалення завершує всі сесії й відкликає всі ключі.', 'An account can be deleted only with no domains and a zero balance. Deleting ends every session and revokes every key.')}
            </p>
            <p><a class="button secondary" href="/console/account/delete">${v.t('Видалити рахунок…', 'Delete the account…')}</a></p>
          </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/disable$/,
    auth: true,
    handle: async (r) => {
      await uc.disableTwoFactor.execute(me(r));
      return { redirect: '/console/security?done=1' };
    },
  },
  {
    // Switching two-factor checks on again, step 1: the new secret, shown once, and the field for its first code.
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/enrolment$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const res = await uc.enableTwoFactor.start(me(r));
      return {
        title: v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks'),
        body: html`<h1>${v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks')}</h1>
          ${alert('info', v.t('Додайте цей секрет до застосунку-автентифікатора (Google Authenticator, 1Password, Aegis…): уведіть його вручну або передайте застосунку посилання otpauth://. Секрет показано лише зараз. Доки ви не підтвердите його кодом, двофакторна перевірка лишається вимкненою.', 'Add this secret to your authenticator app (Google Authenticator, 1Password, Aegis…): type it in, or give the app the otpauth:// link. The secret is shown only now. Until you confirm it with a code, two-factor checks stay off.'))}
          <div class="card">
            <h2>${v.t('Новий секрет', 'The new secret')}</h2>
            <div class="secret">
              <code id="totp-secret">${res.secret}</code
              ><button type="button" data-copy="totp-secret" data-copied="${v.t('Скопійовано', 'Copied')}">
                ${v.t('Копіювати', 'Copy')}
              </button>
            </div>
            <h3>${v.t('Посилання для застосунку', 'Link for the app')}</h3>
            <div class="secret">
              <code id="totp-uri">${res.otpauthUri}</code
              ><button type="button" data-copy="totp-uri" data-copied="${v.t('Скопійовано', 'Copied')}">${v.t('Копіювати', 'Copy')}</button>
            </div>
          </div>
          ${twoFactorCodeForm(v)}`,
      };
    },
  },
  {
    // Step 2: a code from the new secret switches the checks on; a wrong one asks again, changing nothing.
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/enable$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      try {
        await uc.enableTwoFactor.confirm(me(r), field(r.form, 'totp').trim(), r.ip);
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'totp_invalid')) throw err;
        return {
          title: v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks'),
          status: 422,
          body: html`<h1>${v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks')}</h1>
            ${alert(
              'error',
              html`<p>${errorText(v.lang, err)}</p>
                <p class="muted">${v.t('Код помилки', 'Error code')}: <code>${err.code}</code></p>`,
            )}
            ${twoFactorCodeForm(v)}
            <p>
              <a href="/console/security"
                >${v.t('Якщо застосунок не має цього секрету, почніть знову на сторінці безпеки.', 'If your app does not hold this secret, start again from the security page.')}</a
              >
            </p>`,
        };
      }
      return { redirect: '/console/security?done=on' };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/account\/delete$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      return {
        title: v.t('Видалити рахунок', 'Delete the account'),
        body: html`<h1>${v.t('Видалити рахунок', 'Delete the account')}</h1>
          <div class="card">
            <p>
              ${v.t('Це назавжди. Усі люди втратять доступ, усі ключі буде відкликано. Домени треба спершу передати або звільнити, а баланс — довести до нуля; інакше видалення буде відхилено з поясненням.', 'This is final. Every person loses access and every key is revoked. Transfer or release the domains and bring the balance to zero first; otherwise deletion is refused, with the reason.')}
            </p>
            <form class="stack" method="post" action="/console/account/delete">
              ${csrfField(v)}<input type="hidden" name="_back" value="/console/account/delete" />
              <label class="choice"
                ><input type="checkbox" name="confirm" value="yes" required /><span
                  >${v.t('Я розумію, що рахунок буде видалено назавжди', 'I understand the account is deleted for good')}</span
                ></label
              >
              <div class="actions">
                <button class="danger" type="submit">${v.t('Видалити рахунок', 'Delete the account')}</button
                ><a href="/console/security">${v.t('Скасувати', 'Cancel')}</a>
              </div>
            </form>
          </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/account\/delete$/,
    auth: true,
    handle: async (r) => {
      if (field(r.form, 'confirm') !== 'yes') throw new DomainError('validation_failed', {}, [{ field: 'confirm', rule: 'tick the box' }]);
      await uc.deleteAccount.execute(me(r));
      return { redirect: '/console/sign-in', cookies: [{ name: 'dmk_session', value: '', maxAge: 0 }] };
    },
  },
  ...operationPages.pages(uc),
  ...sandboxPages(uc),
];

export { fields };
