import { DomainError } from '../../../core/kernel/errors.js';
import type { UseCases } from '../use-cases.js';
import { html, raw, type Html } from './html.js';
import { postForm } from './acting.js';
import { alert, csrfField, day, daysLeft, expiryNote, when, type View } from './layout.js';
import { operationPages } from './operations.pages.js';
import { sandboxPages } from './sandbox.pages.js';
import { dnsPages } from './dns.pages.js';
import { domainPages } from './domains.pages.js';
import { domainSettings } from './domain-settings.pages.js';
import { dnssecPages } from './dnssec.pages.js';
import { hostedPages } from './hosted.pages.js';
import { domainTransfersPanel, pendingTransfersNote, transferPages } from './transfers.pages.js';
import { zoneImportPages } from './zone-import.pages.js';
import { billingPages } from './billing.pages.js';
import { certificatePages } from './certificates.pages.js';
import { monitorPages } from './monitors.pages.js';
import { webhookPages } from './webhooks.pages.js';
import { keyPages } from './keys.pages.js';
import { mailWhere, passwordPages, secretCard, securityPages } from './security.pages.js';
import { errorText } from './error-text.js';
import { credentialFields, newPasswordField } from './fields.js';
import { resumeFromForm, resumeHidden, resumeNote, resumePage, type Resume } from './resume.js';
import { safeNext } from './safe-next.js';
import { dataTable } from './table.js';
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
/**
 * A notice's text as the console shows it: the time is in its own column, so the message's trailing
 * "Time: <UTC>." goes, and any other instant in it is shown like every time in the console.
 */
export const noticeText = (v: View, text: string): string =>
  text
    .replace(/\s*(?:Час|Time): \d{4}-\d{2}-\d{2}T[\d:.]+Z\.?\s*$/, '')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g, (iso) => when(iso, v));
const statusPill = (s: string, shown: string = s) =>
  html`<span
    class="pill ${s === 'ok' || s === 'active' || s === 'posted' ? 'ok' : /pending|Period/.test(s) ? 'warn' : /redemption|Delete|revoked|expired|failed|voided/.test(s) ? 'bad' : ''}"
    >${shown}</span
  >`;
const done = (r: ConsoleRequest, uk: string, en: string) => (r.query.done ? alert('ok', r.view.t(uk, en)) : '');

/**
 * "Sign in again" (password and code, valid 5 minutes). Asked by a form (a DNSSEC change, a class 3 request,
 * a payment method…), it carries that form's content (resume.ts, never a secret) and sends it after with one
 * button, so the action is not lost on the way.
 */
export const reauthForm = (r: Pick<ConsoleRequest, 'view' | 'human'>, next: string, resume: Resume | null): Html =>
  html`<div class="signin card">
    <h1>${r.view.t('Увійдіть ще раз', 'Sign in again')}</h1>
    <p>
      ${r.view.t('Ця дія чутлива (код передачі, власник домену, спосіб оплати, двофакторна перевірка, DNSSEC, сервери імен, блокування передачі й мітки, видалення рахунку). Підтвердьте, що це ви: пароль і одноразовий код. Підтвердження діє 5 хвилин.', 'This action is sensitive (transfer code, domain holder, payment method, two-factor checks, DNSSEC, nameservers, the transfer lock and labels, account deletion). Confirm it is you: password and one-time code. The confirmation lasts 5 minutes.')}
    </p>
    ${
      resume
        ? alert(
            'info',
            html`<p id="resume-note">
              ${r.view.t('Форму, яку ви надсилали, ще не виконано: після підтвердження вона повернеться з тим, що ви ввели, щоб надіслати її однією кнопкою.', 'The form you were sending has not been done yet: once you confirm, it comes back with what you typed, to send with one button.')}
            </p>`,
          )
        : ''
    }
    ${postForm(
      r.view,
      '/console/reauth',
      html`<input type="hidden" name="next" value="${next}" />${resumeHidden(resume)}
        ${credentialFields(r.view, r.human?.person.twoFactorEnabled === false ? null : { required: true })}
        <div class="actions">
          <button type="submit">${r.view.t('Підтвердити', 'Confirm')}</button><a href="${next}">${r.view.t('Скасувати', 'Cancel')}</a>
        </div>`,
    )}
  </div>`;

export const signInForm = (
  v: View,
  r: Pick<ConsoleRequest, 'query' | 'form'>,
  error?: string,
  resume: Resume | null = resumeFromForm(r.form),
) =>
  html`<div class="signin card">
    <h1>${v.t('Вхід до консолі', 'Sign in to the console')}</h1>
    ${resumeNote(v, resume)}
    ${r.query.ended && !resume ? alert('info', v.t('Сесія закінчилася або її немає. Увійдіть знову.', 'Your session has ended or is missing. Please sign in again.')) : ''}
    ${r.query.changed ? alert('ok', v.t('Пароль змінено; усі ваші сесії завершено. Увійдіть із новим паролем.', 'The password was changed and every session of yours ended. Sign in with the new password.')) : ''}
    ${r.query.reset ? alert('ok', v.t('Новий пароль задано; усі ваші сесії завершено. Увійдіть із ним.', 'The new password is set and every session of yours ended. Sign in with it.')) : ''}
    ${error ? alert('error', error) : ''}
    ${postForm(
      v,
      '/console/sign-in',
      html`<input type="hidden" name="next" value="${r.query.next ?? field(r.form, 'next')}" />${resumeHidden(resume)}
        <label for="email">${v.t('Електронна пошта', 'E-mail')}</label
        ><input id="email" name="email" type="email" autocomplete="username" required value="${field(r.form, 'email')}" />
        ${credentialFields(v, {
          required: false,
          hint: v.t(
            'Шість цифр із застосунку-автентифікатора (TOTP). Якщо ви вимкнули двофакторну перевірку, залиште порожнім.',
            'Six digits from your authenticator app (TOTP). Leave empty if you switched two-factor checks off.',
          ),
        })}
        <div class="actions">
          <button type="submit">${v.t('Увійти', 'Sign in')}</button
          ><a href="/console/password/forgot">${v.t('Забули пароль?', 'Forgot your password?')}</a>
        </div>`,
    )}
  </div>`;

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
        const cookies = [{ name: 'dmk_session', value: s.token, expires: s.session.expiresAt }];
        // A form sent after the session ended comes back, filled in, to be sent under the new session.
        const resume = resumeFromForm(r.form);
        if (resume)
          return {
            title: r.view.t('Надіслати форму знову', 'Send the form again'),
            body: resumePage(r.view, s.session.csrfToken ?? '', resume),
            cookies,
          };
        return { redirect: safeNext(field(r.form, 'next')), cookies };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'sign_in_failed') {
          return {
            title: r.view.t('Вхід', 'Sign in'),
            status: 401,
            bare: true,
            // The table's text: the generic one, or "this code was already used; wait for the next one".
            body: signInForm(r.view, r, errorText(r.view.lang, err)),
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
    handle: async (r) => ({ title: r.view.t('Увійдіть ще раз', 'Sign in again'), body: reauthForm(r, safeNext(r.query.next), null) }),
  },
  {
    method: 'POST',
    pattern: /^\/console\/reauth$/,
    auth: true,
    handle: async (r) => {
      await uc.reauthenticate.execute(me(r), { password: field(r.form, 'password'), totp: field(r.form, 'totp'), address: r.ip });
      // The form that asked for it comes back, filled in, to be sent with one button (resume.ts).
      const resume = resumeFromForm(r.form);
      if (resume) return { title: r.view.t('Надіслати форму знову', 'Send the form again'), body: resumePage(r.view, r.view.csrf, resume) };
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
          <p class="actions">
            <a class="button" href="/console/search">${v.t('Знайти й зареєструвати домен', 'Find and register a domain')}</a>
            <a class="button secondary" href="/console/hosted">${v.t('Домен з іншого реєстратора', 'A domain from another registrar')}</a>
            <a class="button secondary" href="/console/transfers/new">${v.t('Перенести домен до нас', 'Transfer a domain in')}</a>
            <a class="button secondary" href="/console/transfers">${v.t('Перенесення: до нас і від нас', 'Transfers in and out')}</a>
          </p>
          <p class="lead">
            ${v.env === 'test' ? v.t('Пісочниця: реєстрації та оплати тут виглядають справжніми, але нічого не змінюють.', 'Sandbox: registrations and charges here look real but change nothing.') : v.t('Робоче середовище: усе тут справжнє.', 'Live: everything here is real.')}
          </p>
          ${(() => {
            const expired = list.filter((d) => daysLeft(d.expires_at, v.now) < 0).length;
            const soon = list.filter((d) => daysLeft(d.expires_at, v.now) >= 0 && daysLeft(d.expires_at, v.now) <= 30).length;
            return expired + soon > 0
              ? alert(
                  expired > 0 ? 'error' : 'info',
                  [
                    expired > 0 ? v.t(`Доменів, строк яких минув: ${expired}.`, `Domains that have expired: ${expired}.`) : '',
                    soon > 0
                      ? v.t(`Доменів, строк яких мине протягом 30 днів: ${soon}.`, `Domains that expire within 30 days: ${soon}.`)
                      : '',
                    v.sandbox ? v.t('(За часом пісочниці.)', '(By the sandbox clock.)') : '',
                    v.t('Продовжте їх, щоб не втратити.', 'Renew them so as not to lose them.'),
                  ]
                    .filter(Boolean)
                    .join(' '),
                )
              : '';
          })()}
          ${await pendingTransfersNote(uc, r)}
          ${
            list.length === 0
              ? html`<div class="card">
                  <p>${v.t('У цьому середовищі ще немає доменів.', 'There are no domains in this environment yet.')}</p>
                </div>`
              : dataTable(
                  [
                    v.t('Домен', 'Domain'),
                    v.t('Стан', 'Status'),
                    v.t('Діє до', 'Expires'),
                    v.t('Автопродовження', 'Auto-renew'),
                    v.t('Мітки', 'Labels'),
                  ],
                  list.map(
                    (d) =>
                      html`<tr>
                        <th scope="row"><a href="/console/domains/${encodeURIComponent(d.domain)}">${d.domain}</a></th>
                        <td>${d.status.map((s) => statusPill(s))}</td>
                        <td>
                          ${d.expires_at ? html`${day(d.expires_at, v)} ${expiryNote(v, d.expires_at)}` : v.t('в іншого реєстратора', 'at another registrar')}
                        </td>
                        <td>${d.auto_renew ? v.t('так', 'on') : v.t('ні', 'off')}</td>
                        <td>${d.labels.map((l) => html`<span class="pill">${l}</span>`)}</td>
                      </tr>`,
                  ),
                  { caption: v.t(`Доменів: ${list.length}`, `${list.length} domains`) },
                )
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
          ${['registered', 'renewed', 'auto-renew', 'transfer-out-rejected'].includes(r.query.done ?? '') ? '' : done(r, 'Готово.', 'Done.')}
          <div class="card">
            <dl class="kv">
              <dt>${v.t('Стан', 'Status')}</dt>
              <dd>${d.status.map((s) => statusPill(s))}</dd>
              <dt>${v.t('Діє до', 'Expires')}</dt>
              <dd>
                ${d.expires_at ? html`${day(d.expires_at, v)} ${expiryNote(v, d.expires_at)}` : v.t('невідомо: домен зареєстровано в іншого реєстратора', 'unknown: registered at another registrar')}
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
          ${r.query.done === 'transfer-out-rejected' ? done(r, 'Перенесення до іншого реєстратора відхилено: домен лишається у вас.', 'The transfer to another registrar was rejected: the domain stays with you.') : ''}
          ${
            d.status.includes('pendingTransfer')
              ? alert(
                  'error',
                  html`<p id="transfer-out">
                      ${v.t('Інший реєстратор просить перенести цей домен до себе. Якщо це не ви — відхиліть запит.', 'Another registrar asks to transfer this domain away. If it was not you, reject the request.')}
                    </p>
                    ${
                      me(r).actor.role === 'owner'
                        ? html`<form
                            method="post"
                            action="/console/domains/${encodeURIComponent(d.domain)}/transfer-out/reject"
                            class="stack"
                          >
                            ${csrfField(v)}<input type="hidden" name="_back" value="/console/domains/${encodeURIComponent(d.domain)}" />
                            <div class="actions">
                              <button class="danger" type="submit">${v.t('Відхилити перенесення', 'Reject the transfer')}</button>
                            </div>
                          </form>`
                        : html`<p class="muted">
                            ${v.t('Відхилити можуть лише власники облікового запису.', 'Only the account’s owners can reject it.')}
                          </p>`
                    }`,
                )
              : ''
          }
          <p class="actions">
            <a class="button secondary" href="/console/domains/${encodeURIComponent(d.domain)}/dnssec">DNSSEC</a>
            ${
              d.hosting
                ? html`<a class="button secondary" href="/console/domains/${encodeURIComponent(d.domain)}/hosting"
                    >${v.t('Обслуговування DNS і перевірка', 'DNS hosting and verification')}</a
                  >`
                : ''
            }
          </p>
          ${ops} ${await domainSettings(uc).panel(r, d)} ${await domainPages(uc).panel(r, d)} ${await domainTransfersPanel(uc, r, d.domain)}
          <h2>${v.t('Записи зони', 'Zone records')}${serial !== null ? html` <small class="muted">(serial ${serial})</small>` : ''}</h2>
          ${
            records.length === 0
              ? html`<p>${v.t('Зони немає.', 'No zone.')}</p>`
              : dataTable(
                  [v.t('Ім’я', 'Name'), v.t('Тип', 'Type'), 'TTL', v.t('Значення', 'Values')],
                  records.map(
                    (s) =>
                      html`<tr>
                        <td class="mono">${s.name}</td>
                        <td>${s.type}</td>
                        <td class="num">${s.ttl}</td>
                        <td class="mono">${s.values.map((x) => html`${x}<br />`)}</td>
                      </tr>`,
                  ),
                )
          }
          <p>
            <a class="button" href="/console/domains/${encodeURIComponent(d.domain)}/dns"
              >${v.t('Редагувати DNS-записи', 'Edit the DNS records')}</a
            >
          </p>
          <h2>${v.t('Дії лише для людей', 'Actions for people only')}</h2>
          <div class="card">
            <h3>${v.t('Код передачі домену', 'Transfer code')}</h3>
            <p>
              ${v.t('Код дозволяє перенести домен до іншого реєстратора. Його бачать лише власники після повторного входу; кожен перегляд записується, і всі власники отримують сповіщення.', 'The code lets the domain move to another registrar. Only owners see it, after signing in again; every reveal is recorded and every owner is told.')}
            </p>
            ${postForm(
              v,
              `/console/domains/${encodeURIComponent(d.domain)}/transfer-code`,
              html`<button type="submit">${v.t('Показати код передачі', 'Reveal the transfer code')}</button>`,
              { cls: '', back: `/console/domains/${encodeURIComponent(d.domain)}` },
            )}
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
          ${postForm(
            v,
            `/console/domains/${encodeURIComponent(d.domain)}/registrant`,
            html`${inp('name', 'Ім’я та прізвище', 'Full name', { required: true })} ${inp('organization', 'Організація', 'Organisation')}
              ${inp('email', 'Електронна пошта', 'E-mail', { required: true, type: 'email' })}
              ${inp('phone', 'Телефон', 'Phone', { hint: v.t('У форматі EPP: +380.441234567', 'In EPP form: +380.441234567') })}
              ${inp('street', 'Вулиця, будинок', 'Street and number', { required: true })}
              ${inp('city', 'Місто', 'City', { required: true })} ${inp('postal_code', 'Поштовий індекс', 'Postal code')}
              ${inp('country_code', 'Країна (код із двох літер)', 'Country (two-letter code)', { required: true, value: 'UA', hint: 'ISO 3166-1: UA, PL, DE…' })}
              <div class="actions">
                <button type="submit">${v.t('Змінити реєстранта', 'Change the registrant')}</button
                ><a href="/console/domains/${encodeURIComponent(d.domain)}">${v.t('Скасувати', 'Cancel')}</a>
              </div>`,
            { cls: 'stack card', back: `/console/domains/${encodeURIComponent(d.domain)}/registrant` },
          )}`,
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
              : dataTable(
                  [v.t('Коли', 'When'), v.t('Середовище', 'Env.'), v.t('Що сталося', 'What happened')],
                  page.data.map(
                    (n) =>
                      html`<tr>
                        <td data-label="${v.t('Коли', 'When')}">${when(n.created_at, v)}</td>
                        <td data-label="${v.t('Середовище', 'Env.')}">
                          ${n.environment === 'test' ? v.t('пісочниця', 'sandbox') : v.t('робоче', 'live')}
                        </td>
                        <td data-label="${v.t('Що сталося', 'What happened')}">
                          ${noticeText(v, v.lang === 'uk' ? n.message.uk : n.message.en)}
                        </td>
                      </tr>`,
                  ),
                )
          }`,
      };
    },
  },

  // ── balance, transactions, payment method ──────────────────────────────────────────────────────
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
          ${dataTable(
            [
              v.t('Людина', 'Person'),
              v.t('Роль', 'Role'),
              v.t('Двофакторна', 'Two-factor'),
              v.t('Останній вхід', 'Last sign-in'),
              html`<span class="muted">${v.t('Дії', 'Actions')}</span>`,
            ],
            people.map(
              (p) =>
                html`<tr>
                  <td>${p.name}<br /><span class="muted">${p.email}</span></td>
                  <td>${role(p.role)}</td>
                  <td>${p.two_factor ? v.t('увімкнено', 'on') : html`<span class="pill warn">${v.t('вимкнено', 'off')}</span>`}</td>
                  <td>${when(p.last_sign_in_at, v)}</td>
                  <td>
                    ${
                      owner
                        ? html`${postForm(
                            v,
                            `/console/people/${p.id}/role`,
                            html`<label class="skip" for="role-${p.id}">${v.t('Роль для', 'Role for')} ${p.email}</label
                              ><select id="role-${p.id}" name="role">
                                <option value="owner" ${p.role === 'owner' ? raw(' selected') : ''}>${role('owner')}</option>
                                <option value="member" ${p.role === 'member' ? raw(' selected') : ''}>${role('member')}</option>
                              </select>
                              <button class="small secondary" type="submit">${v.t('Змінити роль', 'Change role')}</button>`,
                            { cls: 'inline', back: '/console/people' },
                          )} `
                        : ''
                    }
                    ${owner || p.id === me(r).person.id ? postForm(v, `/console/people/${p.id}/remove`, html`<button class="small danger" type="submit">${p.id === me(r).person.id ? v.t('Покинути', 'Leave') : v.t('Видалити', 'Remove')}</button>`, { cls: 'inline', back: '/console/people', confirm: p.id === me(r).person.id ? v.t('Покинути рахунок?', 'Leave the account?') : v.t(`Видалити ${p.email} з рахунку? Його ключі буде відкликано.`, `Remove ${p.email} from the account? Their keys will be revoked.`) }) : ''}
                  </td>
                </tr>`,
            ),
          )}
          ${
            owner
              ? html`<h2>${v.t('Запросити людину', 'Invite a person')}</h2>
                  ${postForm(
                    v,
                    '/console/people/invite',
                    html`<label for="invite-email">${v.t('Електронна пошта', 'E-mail')}</label
                      ><input id="invite-email" name="email" type="email" required /> <label for="invite-role">${v.t('Роль', 'Role')}</label
                      ><select id="invite-role" name="role">
                        <option value="member">${role('member')}</option>
                        <option value="owner">${role('owner')}</option>
                      </select>
                      <p class="hint">
                        ${uc.mail.configured ? v.t('Людина отримає лист з одноразовим посиланням (діє 7 днів); посилання ви також побачите один раз.', 'The person gets an e-mail with a one-time link (valid 7 days); you also see the link once.') : v.t('Поштовий сервер не налаштовано: лист не піде, але ви побачите одноразове посилання (діє 7 днів) і зможете передати його самі.', 'No mail server is set: no e-mail goes out, but you see the one-time link (valid 7 days) and can pass it on yourself.')}
                      </p>
                      <div class="actions"><button type="submit">${v.t('Надіслати запрошення', 'Send the invitation')}</button></div>`,
                    { cls: 'stack card', back: '/console/people' },
                  )}
                  ${
                    invitations.length > 0
                      ? html`<h2>${v.t('Запрошення, що очікують', 'Pending invitations')}</h2>
                          ${dataTable(
                            [
                              v.t('Кому', 'To'),
                              v.t('Роль', 'Role'),
                              v.t('Діє до', 'Valid until'),
                              html`<span class="muted">${v.t('Дія', 'Action')}</span>`,
                            ],
                            invitations.map(
                              (i) =>
                                html`<tr>
                                  <td>${i.email}</td>
                                  <td>${role(i.role)}</td>
                                  <td>${when(i.expires_at, v)}</td>
                                  <td>
                                    ${postForm(v, `/console/people/invitations/${i.id}/revoke`, html`<button class="small secondary" type="submit">${v.t('Відкликати', 'Withdraw')}</button>`, { cls: 'inline' })}
                                  </td>
                                </tr>`,
                            ),
                          )}`
                      : ''
                  }`
              : ''
          }`,
      };
    },
  },
  {
    // Invite, then redirect: the link reaches the next page once; the page says truthfully where the mail went.
    method: 'POST',
    pattern: /^\/console\/people\/invite$/,
    auth: true,
    handle: async (r) => {
      const res = await uc.managePeople.invite(me(r).actor, {
        email: field(r.form, 'email'),
        role: field(r.form, 'role') === 'owner' ? 'owner' : 'member',
      });
      return { redirect: '/console/people/invited', once: { kind: 'invitation', data: { email: res.invitation.email, link: res.link } } };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/people\/invited$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const shown = r.once?.kind === 'invitation' ? r.once.data : null;
      return {
        title: v.t('Запрошення', 'Invitation'),
        body: html`<h1>
            ${uc.mail.configured ? v.t('Запрошення надіслано', 'Invitation sent') : v.t('Запрошення створено', 'Invitation created')}
          </h1>
          ${
            shown
              ? html`${alert('ok', html`<p>${v.t(`Запрошення для ${shown.email ?? ''}.`, `An invitation for ${shown.email ?? ''}.`)} ${mailWhere(uc, v, shown.email ?? '')}</p>`)}
                  <p>
                    ${v.t('Посилання (показано один раз; діє 7 днів, один раз) — можна передати й самому:', 'The link (shown once; works once, for 7 days) — you may also pass it on yourself:')}
                  </p>
                  <div class="card secret">
                    <code id="invite-link">${shown.link ?? ''}</code
                    ><button type="button" data-copy="invite-link" data-copied="${v.t('Скопійовано', 'Copied')}">
                      ${v.t('Копіювати', 'Copy')}
                    </button>
                  </div>`
              : alert(
                  'info',
                  v.t(
                    'Посилання вже показано один раз. Запрошення чекає у списку нижче на сторінці людей.',
                    'The link was already shown once. The invitation waits in the list on the people page.',
                  ),
                )
          }
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
          ${postForm(
            v,
            '/console/invitations',
            html`<input type="hidden" name="token" value="${token}" /> <label for="name">${v.t('Ваше ім’я', 'Your name')}</label
              ><input id="name" name="name" type="text" required autocomplete="name" />
              ${newPasswordField(v, { label: v.t('Пароль', 'Password') })}
              <div class="actions"><button type="submit">${v.t('Приєднатися', 'Join')}</button></div>`,
          )}
        </div>`,
      };
    },
  },
  {
    // Join, then redirect: the new TOTP secret reaches the welcome page once, as a QR code; the first sign-in
    // there, with a code from it, is the required check that the app holds the secret.
    method: 'POST',
    pattern: /^\/console\/invitations$/,
    auth: false,
    handle: async (r) => {
      const res = await uc.managePeople.accept(field(r.form, 'token'), {
        name: field(r.form, 'name'),
        password: field(r.form, 'password'),
      });
      return {
        redirect: '/console/invitations/welcome',
        once: { kind: 'joined', data: { name: res.person.name, email: res.person.email, secret: res.totpSecret, uri: res.totpUri } },
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/invitations\/welcome$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      const j = r.once?.kind === 'joined' ? r.once.data : null;
      return {
        title: v.t('Ласкаво просимо', 'Welcome'),
        bare: true,
        body: html`<div class="signin card">
          <h1>${v.t('Ласкаво просимо', 'Welcome')}${j ? html`, ${j.name}` : ''}</h1>
          ${
            j
              ? html`${await secretCard(v, j.secret ?? '', j.uri ?? '')}
                ${postForm(
                  v,
                  '/console/sign-in',
                  html`<input type="hidden" name="next" value="/console/" /><input type="hidden" name="email" value="${j.email}" />
                    <h2>${v.t('Перший вхід із кодом', 'First sign-in with a code')}</h2>
                    <p>
                      ${v.t('Введіть пароль і код, який застосунок щойно показав: так ми перевіримо, що секрет у вас.', 'Enter your password and the code your app now shows: this checks that you hold the secret.')}
                    </p>
                    ${credentialFields(v, { required: true })}
                    <div class="actions"><button type="submit">${v.t('Підтвердити й увійти', 'Confirm and sign in')}</button></div>`,
                )}`
              : html`${alert('info', v.t('Секрет уже показано один раз. Увійдіть із паролем і кодом; якщо застосунок не має секрету, попросіть власника рахунку про допомогу.', 'The secret was already shown once. Sign in with your password and a code; if your app does not hold the secret, ask an owner of the account for help.'))}
                  <p><a class="button" href="/console/sign-in">${v.t('Увійти', 'Sign in')}</a></p>`
          }
        </div>`,
      };
    },
  },

  // ── account deletion ──────────────────────────────────────────────────────────────────────────
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
            ${postForm(
              v,
              '/console/account/delete',
              html`<label class="choice"
                  ><input type="checkbox" name="confirm" value="yes" required /><span
                    >${v.t('Я розумію, що рахунок буде видалено назавжди', 'I understand the account is deleted for good')}</span
                  ></label
                >
                <div class="actions">
                  <button class="danger" type="submit">${v.t('Видалити рахунок', 'Delete the account')}</button
                  ><a href="/console/security">${v.t('Скасувати', 'Cancel')}</a>
                </div>`,
              { back: '/console/account/delete' },
            )}
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
  ...keyPages(uc),
  ...securityPages(uc),
  ...passwordPages(uc),
  ...operationPages.pages(uc),
  ...sandboxPages(uc),
  ...dnsPages(uc),
  ...domainPages(uc).pages,
  ...domainSettings(uc).pages,
  ...billingPages(uc).pages,
  ...certificatePages(uc),
  ...monitorPages(uc),
  ...webhookPages(uc),
  ...dnssecPages(uc),
  ...hostedPages(uc),
  ...transferPages(uc),
  ...zoneImportPages(uc),
];

export { fields };
