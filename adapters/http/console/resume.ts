import { html, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { FORM_FIELD, newFormId } from './form-once.js';
import { isConsolePath } from './safe-next.js';

/**
 * A form sent after the session ended (12 hours after sign-in, or signed out in another tab): nothing is
 * done, and nothing typed is lost silently. The sign-in page that answers carries what was typed (hidden
 * fields of that page: no cookie, no server-side copy), and after signing in the person sees it and
 * sends it again with one button — with the new session's CSRF token and a new one-send id. Passwords,
 * one-time codes, transfer codes, card numbers and secrets are never carried: the page names them, to
 * be typed again.
 */
export interface Resume {
  readonly action: string;
  readonly fields: Readonly<Record<string, string | string[]>>;
  readonly dropped: readonly string[];
}

const NOT_KEPT = /password|totp|secret|auth_code|card|token|^code$/i;

export const resumeOf = (action: string, form: Readonly<Record<string, string | string[]>>): Resume => {
  const fields: Record<string, string | string[]> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(form)) {
    if (k === '_csrf' || k === FORM_FIELD || k.startsWith('_resume')) continue;
    if (NOT_KEPT.test(k)) {
      if ((Array.isArray(v) ? v.join('') : v) !== '') dropped.push(k);
      continue;
    }
    fields[k] = v;
  }
  return { action, fields, dropped };
};

/** The resume a sign-in form carries back (its own hidden fields), when it is well formed. */
export const resumeFromForm = (form: Readonly<Record<string, string | string[]>>): Resume | null => {
  const action = form._resume_action;
  const raw = form._resume;
  if (!isConsolePath(action) || typeof raw !== 'string') return null;
  try {
    const v = JSON.parse(raw) as { fields?: unknown; dropped?: unknown };
    if (!v.fields || typeof v.fields !== 'object') return null;
    const fields: Record<string, string | string[]> = {};
    for (const [k, x] of Object.entries(v.fields as Record<string, unknown>))
      if (typeof x === 'string' || (Array.isArray(x) && x.every((y) => typeof y === 'string'))) fields[k] = x as string | string[];
    const dropped = Array.isArray(v.dropped) ? v.dropped.filter((d): d is string => typeof d === 'string') : [];
    return { action, fields: resumeOf(action, fields).fields, dropped };
  } catch {
    return null;
  }
};

/** The sign-in form's hidden fields that carry the resume, and the note above it. */
export const resumeHidden = (r: Resume | null): Html | '' =>
  r
    ? html`<input type="hidden" name="_resume_action" value="${r.action}" /><input
          type="hidden"
          name="_resume"
          value="${JSON.stringify({ fields: r.fields, dropped: r.dropped })}"
        />`
    : '';

const droppedNote = (v: View, r: Resume): Html | '' =>
  r.dropped.length
    ? html`<p>
        ${v.t('Не збережено (введіть знову):', 'Not kept (type them again):')}
        ${r.dropped.map((d, i) => html`${i ? ', ' : ''}<code>${d}</code>`)}
      </p>`
    : '';

export const resumeNote = (v: View, r: Resume | null): Html | '' =>
  r
    ? alert(
        'info',
        html`<p id="resume-note">
            ${v.t('Сесія закінчилася до того, як форму надіслали: нічого не зроблено. Увійдіть — і форма повернеться з тим, що ви ввели, щоб надіслати її знову.', 'Your session ended before the form was sent: nothing was done. Sign in and the form comes back with what you typed, to send it again.')}
          </p>
          ${droppedNote(v, r)}`,
      )
    : '';

const shown = (v: string | string[]) => {
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s.length > 300 ? `${s.slice(0, 300)}… (${s.length})` : s;
};

/** After signing in: what was typed, and one button that sends it (under the new session). */
export const resumePage = (v: View, csrf: string, r: Resume): Html => {
  const entries = Object.entries(r.fields).filter(([k]) => !k.startsWith('_'));
  const back = isConsolePath(r.fields._back) ? r.fields._back : r.action;
  return html`<h1>${v.t('Надіслати форму знову', 'Send the form again')}</h1>
    ${alert(
      'info',
      html`<p>
          ${v.t('Ви знову увійшли. Форму, яку ви надсилали, ще не виконано; ось що в ній було.', 'You are signed in again. The form you were sending has not been done yet; this is what it held.')}
        </p>
        ${droppedNote(v, r)}`,
    )}
    <div class="card">
      <dl class="kv" id="resume-fields">
        ${entries.map(
          ([k, x]) =>
            html`<dt>${k}</dt>
              <dd class="mono">${shown(x)}</dd>`,
        )}
      </dl>
      <form method="post" action="${r.action}" class="stack">
        <input type="hidden" name="_csrf" value="${csrf}" /><input type="hidden" name="${FORM_FIELD}" value="${newFormId()}" />
        ${Object.entries(r.fields).map(([k, x]) =>
          (Array.isArray(x) ? x : [x]).map((one) => html`<input type="hidden" name="${k}" value="${one}" />`),
        )}
        <div class="actions">
          <button type="submit">${v.t('Надіслати', 'Send it')}</button>
          <a href="${back}">${v.t('Не надсилати, відкрити сторінку', 'Do not send; open the page')}</a>
        </div>
      </form>
    </div>`;
};
