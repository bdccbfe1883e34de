import { MIN_PASSWORD_LENGTH } from '../../../core/accounts/passwords.use-case.js';
import { html, raw, type Html } from './html.js';
import type { View } from './layout.js';

/**
 * The fields every "prove it is you" form shares (sign-in, sign in again, the first sign-in after an
 * invitation, a new secret's first code): one markup, so their labels, autocomplete hints (password
 * managers, the OS's one-time-code fill) and input rules cannot drift apart.
 */
export const passwordField = (v: View, opts: { readonly label?: string } = {}): Html =>
  html`<label for="password">${opts.label ?? v.t('Пароль', 'Password')}</label
    ><input id="password" name="password" type="password" autocomplete="current-password" required />`;

/** A new password (a change, a reset, joining by invitation): the service's minimum as the input's rule and its hint. */
export const newPasswordField = (v: View, opts: { readonly name?: string; readonly label?: string } = {}): Html => {
  const name = opts.name ?? 'password';
  return html`<label for="${name}">${opts.label ?? v.t('Новий пароль', 'New password')}</label
    ><input
      id="${name}"
      name="${name}"
      type="password"
      autocomplete="new-password"
      minlength="${MIN_PASSWORD_LENGTH}"
      required
      aria-describedby="${name}-hint"
    />
    <p class="hint" id="${name}-hint">
      ${v.t(`Щонайменше ${MIN_PASSWORD_LENGTH} символів; найкраще — кілька випадкових слів.`, `At least ${MIN_PASSWORD_LENGTH} characters; a few random words work best.`)}
    </p>`;
};

export const codeField = (
  v: View,
  opts: { readonly id?: string; readonly hint?: string; readonly required?: boolean; readonly invalid?: boolean } = {},
): Html => {
  const id = opts.id ?? 'totp';
  return html`<label for="${id}">${v.t('Одноразовий код', 'One-time code')}</label
    ><input
      id="${id}"
      name="totp"
      type="text"
      inputmode="numeric"
      autocomplete="one-time-code"
      pattern="[0-9]{6}"
      maxlength="6"
      ${opts.required === false ? '' : raw('required')}
      ${opts.hint ? html`aria-describedby="${id}-hint"` : ''}
      ${opts.invalid ? raw('aria-invalid="true"') : ''}
    />
    ${opts.hint ? html`<p class="hint" id="${id}-hint">${opts.hint}</p>` : ''}`;
};

/** Password and, when the person has two-factor checks, a one-time code. */
export const credentialFields = (v: View, code: { readonly required: boolean; readonly hint?: string } | null): Html =>
  html`${passwordField(v)}${code ? codeField(v, code) : ''}`;

/** A page's head: the way back, the heading and what it is about (a domain, say). */
export const pageHead = (back: { readonly href: string; readonly label: string }, title: string, about?: string): Html =>
  html`<p><a href="${back.href}">← ${back.label}</a></p>
    <h1>${title}${about ? html` <small class="muted">${about}</small>` : ''}</h1>`;
