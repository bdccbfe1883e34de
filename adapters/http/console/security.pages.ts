import QRCode from 'qrcode';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import type { UseCases } from '../use-cases.js';
import { html, raw, type Html } from './html.js';
import { postForm } from './acting.js';
import { alert, csrfField, when, type View } from './layout.js';
import { codeField, newPasswordField } from './fields.js';
import { errorText } from './error-text.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Security in the console: the session, the password (change; reset by e-mailed link), two-factor checks
 * (switch off; switch on with a QR code and a required first code). Every write is a POST that redirects;
 * a secret to show travels in the one-time view, so a reload never makes a second one.
 */
const me = (r: ConsoleRequest) => r.human!;
const field = (r: ConsoleRequest, name: string): string => {
  const v = r.form[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '';
};

/** The otpauth:// URI as a QR code: inline SVG (no script, no image request; the CSP stays as it is). */
export const qrSvg = async (text: string): Promise<Html> =>
  raw(await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' }));

const codeInput = (v: View, id: string, hint: string, invalid = false) => codeField(v, { id, hint, invalid });

/** The field for the first code of a new TOTP secret: two-factor checks are on only once it is right. */
export const twoFactorCodeForm = (v: View, invalid = false) =>
  postForm(
    v,
    '/console/security/two-factor/enable',
    html`<h2>${v.t('Підтвердіть першим кодом', 'Confirm with a first code')}</h2>
      ${codeInput(v, 'totp', v.t('Шість цифр, які застосунок показує для нового секрету. Доки код не підтверджено, двофакторна перевірка вимкнена.', 'The six digits your app shows for the new secret. Until a code is confirmed, two-factor checks stay off.'), invalid)}
      <div class="actions">
        <button type="submit">${v.t('Підтвердити й увімкнути', 'Confirm and switch on')}</button
        ><a href="/console/security">${v.t('Скасувати', 'Cancel')}</a>
      </div>`,
    { cls: 'stack card', back: '/console/security/two-factor/enrolment' },
  );

/** The secret for an authenticator app: the QR code to scan, and the same secret to type in. */
export const secretCard = async (v: View, secret: string, uri: string) =>
  html`<div class="card">
    <h2>${v.t('Відскануйте QR-код', 'Scan the QR code')}</h2>
    <p>
      ${v.t('Відкрийте застосунок-автентифікатор (Google Authenticator, 1Password, Aegis…) і відскануйте код. Секрет показано лише зараз.', 'Open your authenticator app (Google Authenticator, 1Password, Aegis…) and scan the code. The secret is shown only now.')}
    </p>
    <figure
      class="qr"
      role="img"
      aria-label="${v.t('QR-код секрету для застосунку-автентифікатора', 'QR code of the secret for the authenticator app')}"
    >
      ${await qrSvg(uri)}
    </figure>
    <h3>${v.t('Або введіть секрет вручну', 'Or type the secret in')}</h3>
    <div class="secret">
      <code id="totp-secret">${secret}</code
      ><button type="button" data-copy="totp-secret" data-copied="${v.t('Скопійовано', 'Copied')}">${v.t('Копіювати', 'Copy')}</button>
    </div>
    <p class="muted">
      ${v.t('Посилання otpauth:// для застосунку (те саме, що в QR-коді):', 'The otpauth:// link for the app (the same as in the QR code):')}
    </p>
    <p class="muted mono" id="totp-uri">${uri}</p>
  </div>`;

const securityPage = async (uc: UseCases, r: ConsoleRequest): Promise<PageOut> => {
  const v = r.view;
  const h = me(r);
  const q = r.query.done;
  return {
    title: v.t('Безпека', 'Security'),
    body: html`<h1>${v.t('Безпека', 'Security')}</h1>
      ${q === 'on' ? alert('ok', v.t('Двофакторну перевірку знову ввімкнено з новим секретом; власники отримали сповіщення.', 'Two-factor checks are on again, with the new secret; the owners were told.')) : ''}
      ${q === 'off' || q === '1' ? alert('ok', v.t('Двофакторну перевірку вимкнено; власники отримали сповіщення.', 'Two-factor checks are off; the owners were told.')) : ''}
      <div class="card">
        <dl class="kv">
          <dt>${v.t('Ви', 'You')}</dt>
          <dd>${h.person.name} (${h.person.email}), ${h.actor.role === 'owner' ? v.t('власник', 'owner') : v.t('учасник', 'member')}</dd>
          <dt>${v.t('Сесія діє до', 'Session ends')}</dt>
          <dd>${when(h.session.expiresAt, v)}</dd>
          <dt>${v.t('Останнє підтвердження', 'Last proof of identity')}</dt>
          <dd>${when(h.session.authenticatedAt, v)}</dd>
        </dl>
        ${postForm(v, '/console/sign-out', html`<button class="secondary" type="submit">${v.t('Вийти', 'Sign out')}</button>`, { cls: 'actions' })}
      </div>
      <h2 id="password">${v.t('Пароль', 'Password')}</h2>
      ${postForm(
        v,
        '/console/security/password',
        html`<p>
            ${v.t('Після зміни пароля всі ваші сесії завершаться, і ви ввійдете знову з новим паролем.', 'After the change every session of yours ends, and you sign in again with the new password.')}
          </p>
          <label for="current_password">${v.t('Поточний пароль', 'Current password')}</label
          ><input id="current_password" name="current_password" type="password" autocomplete="current-password" required />
          ${newPasswordField(v, { name: 'new_password' })}
          <div class="actions"><button type="submit">${v.t('Змінити пароль', 'Change the password')}</button></div>`,
        { cls: 'stack card', back: '/console/security' },
      )}
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
                <p>
                  ${v.t('Увімкнення дає новий секрет (QR-код для застосунку-автентифікатора); перевірка запрацює, щойно ви введете перший код із нього. Потрібен повторний вхід.', 'Switching it on gives you a new secret (a QR code for your authenticator app); the checks start once you enter a first code from it. Signing in again is required.')}
                </p>
                ${postForm(
                  v,
                  '/console/security/two-factor/enrolment',
                  html`<button ${h.person.totpPendingSecret ? raw(' class="secondary"') : ''} type="submit">
                    ${h.person.totpPendingSecret ? v.t('Отримати інший новий секрет', 'Get another new secret') : v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks')}
                  </button>`,
                  { cls: '', back: '/console/security' },
                )}`
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
};

const enrolmentPage = async (r: ConsoleRequest, opts: { error?: DomainError } = {}): Promise<PageOut> => {
  const v = r.view;
  const shown = r.once?.kind === 'totp' ? r.once.data : null;
  return {
    title: v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks'),
    ...(opts.error ? { status: 422 } : {}),
    body: html`<h1>${v.t('Увімкнути двофакторну перевірку', 'Switch on two-factor checks')}</h1>
      ${
        opts.error
          ? alert(
              'error',
              html`<p>${errorText(v.lang, opts.error)}</p>
                <p class="muted">${v.t('Код помилки', 'Error code')}: <code>${opts.error.code}</code></p>`,
            )
          : alert(
              'info',
              v.t(
                'Додайте новий секрет до застосунку-автентифікатора й підтвердіть його кодом. Доки код не підтверджено, двофакторна перевірка лишається вимкненою.',
                'Add the new secret to your authenticator app and confirm it with a code. Until a code is confirmed, two-factor checks stay off.',
              ),
            )
      }
      ${
        shown
          ? await secretCard(v, shown.secret ?? '', shown.uri ?? '')
          : opts.error
            ? ''
            : alert(
                'info',
                html`${v.t('Новий секрет уже показано один раз. Якщо ваш застосунок його має, введіть код нижче; якщо ні — ', 'The new secret was already shown once. If your app holds it, enter a code below; if not, ')}<a
                    href="/console/security"
                    >${v.t('отримайте інший новий секрет', 'get another new secret')}</a
                  >.`,
              )
      }
      ${twoFactorCodeForm(v, Boolean(opts.error))}`,
  };
};

export const securityPages = (uc: UseCases): ConsolePage[] => [
  { method: 'GET', pattern: /^\/console\/security$/, auth: true, handle: (r) => securityPage(uc, r) },
  {
    method: 'POST',
    pattern: /^\/console\/security\/password$/,
    auth: true,
    handle: async (r) => {
      await uc.passwords.change(me(r), { current: field(r, 'current_password'), next: field(r, 'new_password'), address: r.ip });
      // Every session of the person ended with the change: sign in again, with the new password.
      return { redirect: '/console/sign-in?changed=1', cookies: [{ name: 'dmk_session', value: '', maxAge: 0 }] };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/disable$/,
    auth: true,
    handle: async (r) => {
      await uc.disableTwoFactor.execute(me(r));
      return { redirect: '/console/security?done=off' };
    },
  },
  {
    // Step 1: a new secret, handed to the next page once (a reload never makes another one).
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/enrolment$/,
    auth: true,
    handle: async (r) => {
      const res = await uc.enableTwoFactor.start(me(r));
      return {
        redirect: '/console/security/two-factor/enrolment',
        once: { kind: 'totp', data: { secret: res.secret, uri: res.otpauthUri } },
      };
    },
  },
  { method: 'GET', pattern: /^\/console\/security\/two-factor\/enrolment$/, auth: true, handle: (r) => enrolmentPage(r) },
  {
    // Step 2: a code from the new secret switches the checks on; a wrong one asks again, changing nothing.
    method: 'POST',
    pattern: /^\/console\/security\/two-factor\/enable$/,
    auth: true,
    handle: async (r) => {
      try {
        await uc.enableTwoFactor.confirm(me(r), field(r, 'totp').trim(), r.ip);
      } catch (err) {
        if (!(isDomainError(err) && err.code === 'totp_invalid')) throw err;
        return enrolmentPage(r, { error: err });
      }
      return { redirect: '/console/security?done=on' };
    },
  },
];

/** Where the mail went, told truthfully: sent through the mail server, or waiting in the outbox. */
export const mailWhere = (uc: UseCases, v: View, address: string): Html =>
  uc.mail.configured
    ? html`${v.t('Лист надіслано через поштовий сервер.', 'The e-mail was sent through the mail server.')}`
    : uc.mail.inApp
      ? html`${v.t('На цьому сервері не налаштовано поштовий сервер (SMTP_URL), тож лист нікуди не надіслано: він лежить у ', 'No mail server is set on this server (SMTP_URL), so the e-mail was not sent anywhere: it waits in the ')}<a
            href="/console/outbox?email=${encodeURIComponent(address)}"
            >${v.t('вбудованій скриньці вихідних', 'in-app outbox')}</a
          >.`
      : html`${v.t('Поштовий сервер (SMTP_URL) не налаштовано: лист чекає у черзі й піде, щойно його налаштують.', 'No mail server (SMTP_URL) is set: the e-mail waits in the queue and goes once one is set.')}`;

const forgotForm = (v: View, r: ConsoleRequest) =>
  postForm(
    v,
    '/console/password/forgot',
    html`<label for="email">${v.t('Електронна пошта', 'E-mail')}</label
      ><input id="email" name="email" type="email" autocomplete="username" required value="${r.query.email ?? ''}" />
      <div class="actions">
        <button type="submit">${v.t('Надіслати посилання', 'Send the link')}</button
        ><a href="/console/sign-in">${v.t('Назад до входу', 'Back to sign-in')}</a>
      </div>`,
  );

const resetForm = (v: View, token: string, twoFactor: boolean, error?: DomainError) =>
  html`${error ? alert('error', errorText(v.lang, error)) : ''}
  ${postForm(
    v,
    '/console/password/reset',
    html`<input type="hidden" name="token" value="${token}" /> ${newPasswordField(v)}
      ${twoFactor ? codeInput(v, 'totp', v.t('Двофакторна перевірка діє й тут: посилання з листа саме по собі рахунку не відкриває.', 'Two-factor checks apply here too: the e-mailed link alone does not open the account.'), Boolean(error)) : ''}
      <div class="actions"><button type="submit">${v.t('Задати новий пароль', 'Set the new password')}</button></div>`,
  )}`;

/** A mail's text with its links clickable (only http(s) links; everything else escaped). */
const linked = (text: string): Html[] =>
  text.split(/(https?:\/\/[^\s<>"]+)/).map((part, i) => (i % 2 === 1 ? html`<a href="${part}">${part}</a>` : html`${part}`));

/** Forgotten password and the in-app outbox: pages for people who are not signed in. */
export const passwordPages = (uc: UseCases): ConsolePage[] => [
  {
    method: 'GET',
    pattern: /^\/console\/password\/forgot$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      return {
        title: v.t('Забули пароль', 'Forgotten password'),
        bare: true,
        body: html`<div class="signin card">
          <h1>${v.t('Забули пароль?', 'Forgot your password?')}</h1>
          ${
            r.query.sent
              ? alert(
                  'ok',
                  html`<p>
                      ${v.t('Якщо рахунок із цією адресою існує, ми надіслали на неї посилання для нового пароля. Воно діє 30 хвилин, один раз.', 'If an account has this address, a link for a new password was sent to it. It works once, for 30 minutes.')}
                    </p>
                    <p>${mailWhere(uc, v, r.query.email ?? '')}</p>`,
                )
              : html`<p>
                  ${v.t('Введіть адресу, з якою входите. Ми надішлемо посилання, яким можна задати новий пароль; одноразовий код усе одно знадобиться.', 'Enter the address you sign in with. We send a link to set a new password; the one-time code is still needed.')}
                </p>`
          }
          ${forgotForm(v, r)}
        </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/password\/forgot$/,
    auth: false,
    handle: async (r) => {
      const email = field(r, 'email').trim();
      await uc.passwords.requestReset({ email, address: r.ip });
      return { redirect: `/console/password/forgot?sent=1&email=${encodeURIComponent(email)}` };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/password\/reset$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      const token = r.query.token ?? '';
      const res = await uc.passwords.inspectReset(token);
      return {
        title: v.t('Новий пароль', 'New password'),
        bare: true,
        body: html`<div class="signin card">
          <h1>${v.t('Новий пароль', 'New password')}</h1>
          <p>${v.t(`Для ${res.email}. Після зміни всі сесії завершаться.`, `For ${res.email}. Every session ends after the change.`)}</p>
          ${resetForm(v, token, res.twoFactor)}
        </div>`,
      };
    },
  },
  {
    method: 'POST',
    pattern: /^\/console\/password\/reset$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      const token = field(r, 'token');
      try {
        await uc.passwords.completeReset({ token, password: field(r, 'password'), totp: field(r, 'totp'), address: r.ip });
      } catch (err) {
        // A wrong code or a short password: the same form again (the link still works), with the reason.
        if (!(isDomainError(err) && (err.code === 'sign_in_failed' || err.code === 'validation_failed'))) throw err;
        const res = await uc.passwords.inspectReset(token);
        return {
          title: v.t('Новий пароль', 'New password'),
          bare: true,
          status: err.code === 'sign_in_failed' ? 401 : 422,
          body: html`<div class="signin card">
            <h1>${v.t('Новий пароль', 'New password')}</h1>
            ${resetForm(v, token, res.twoFactor, err)}
          </div>`,
        };
      }
      return { redirect: '/console/sign-in?reset=1', cookies: [{ name: 'dmk_session', value: '', maxAge: 0 }] };
    },
  },
  {
    // The in-app outbox of a server without a mail server (never in production): the mail to one address.
    method: 'GET',
    pattern: /^\/console\/outbox$/,
    auth: false,
    handle: async (r) => {
      const v = r.view;
      if (!uc.mail.inApp)
        return {
          title: v.t('Не знайдено', 'Not found'),
          status: 404,
          body: html`<h1>${v.t('Сторінку не знайдено', 'Page not found')}</h1>`,
        };
      const email = (r.query.email ?? '').trim().toLowerCase();
      const mails = email ? await uc.mail.to(email, 10) : [];
      return {
        title: v.t('Скринька вихідних', 'Outbox'),
        body: html`<h1>${v.t('Вбудована скринька вихідних', 'In-app outbox')}</h1>
          ${alert('info', v.t('Цей сервер не має поштового сервера (SMTP_URL не задано) і працює не в робочому режимі, тож листи не надсилаються, а показуються тут. У робочому режимі цієї сторінки немає.', 'This server has no mail server (SMTP_URL is not set) and does not run in production, so e-mails are not sent but shown here. In production this page does not exist.'))}
          <form class="stack card" method="get" action="/console/outbox">
            <label for="outbox-email">${v.t('Листи на адресу', 'Mail to the address')}</label
            ><input id="outbox-email" name="email" type="email" required value="${email}" />
            <div class="actions"><button type="submit">${v.t('Показати', 'Show')}</button></div>
          </form>
          ${
            email && mails.length === 0
              ? html`<p>${v.t('Листів на цю адресу немає.', 'No mail to this address.')}</p>`
              : mails.map(
                  (m) =>
                    html`<article class="card">
                      <h2>${m.subject}</h2>
                      <p class="muted">${when(m.createdAt, v)} · ${email}</p>
                      <pre class="mail">${linked(m.body)}</pre>
                    </article>`,
                )
          }`,
      };
    },
  },
];
