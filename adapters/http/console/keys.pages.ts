import { maxClassOf } from '../../../core/access/person-key.js';
import type { IssueKeyInput, IssueStep } from '../../../core/access/issue-key.use-case.js';
import { TEMPLATES } from '../../../core/access/templates.js';
import { CLASSES, classOf } from '../../../core/access/classes.js';
import type { KeyView } from '../../../core/access/key-view.js';
import { DNS_RIGHTS as TSIG_RIGHTS } from '../../../core/access/tsig-credential.js';
import { RIGHTS, type RightName } from '../../../core/kernel/rights.js';
import { formatUah } from '../../../core/kernel/money.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { UseCases } from '../use-cases.js';
import { html, raw, type Html } from './html.js';
import { postForm } from './acting.js';
import { alert, csrfField, day, when, type View } from './layout.js';
import { errorText } from './error-text.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Keys in the console: the list (what each key reaches, its class, expiry and last use), a key's page, and
 * the wizard (seed A8: template → domains or label → conditions → summary → the key). The issuing POST
 * redirects to a one-time view, so a reload shows "already shown" instead of issuing a second key.
 */
const me = (r: ConsoleRequest) => r.human!;
const statusPill = (v: View, s: string) =>
  html`<span class="pill ${s === 'active' ? 'ok' : 'bad'}"
    >${s === 'active' ? v.t('діє', 'active') : s === 'revoked' ? v.t('відкликано', 'revoked') : s === 'expired' ? v.t('закінчився', 'expired') : s}</span
  >`;

/** What a key reaches: its domains (named) or its label(s); account-wide rights say so. */
const reach = (v: View, k: KeyView): Html => {
  const domains = [...new Set(k.policies.flatMap((p) => ('domains' in p.resources ? p.resources.domains : [])))];
  const labels = [...new Set(k.policies.flatMap((p) => ('label' in p.resources ? [p.resources.label] : [])))];
  const accountOnly = k.policies.every((p) => RIGHTS[p.right].scope === 'account');
  if (accountOnly) return html`<span class="muted">${v.t('увесь рахунок', 'the whole account')}</span>`;
  return html`${domains.map((d) => html`<span class="pill mono">${d}</span>`)}${labels.map(
    (l) => html`<span class="pill">${v.t('мітка', 'label')}: ${l}</span>`,
  )}`;
};
const className = (v: View, k: Pick<KeyView, 'class' | 'class_name'>) =>
  `${k.class} · ${v.lang === 'uk' ? k.class_name.uk : k.class_name.en}`;

/** The class a template's rights make (members may issue up to class 1). */
const templateClass = (id: string) => {
  const t = TEMPLATES.find((x) => x.id === id);
  return t ? classOf(t.rights) : 0;
};
/** The caller's IPv4 address, when it is one (keys take IPv4 CIDRs). */
const ipv4Of = (ip: string) => {
  const a = ip.replace(/^::ffff:/, '');
  return /^\d+\.\d+\.\d+\.\d+$/.test(a) ? a : null;
};

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
/** The wizard's state as the issuing use case's input; `withSpend` false leaves the spend limit unread (the
 * steps before the conditions do not judge it). */
const wizardInput = (w: Wizard, withSpend = true): IssueKeyInput => {
  const spend = w.spend.trim() === '' || !withSpend ? null : kopiykas(w.spend);
  if (spend === null && w.spend.trim() !== '' && withSpend)
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

/** The fields of the wizard a problem can be about (the template's and the domains' are fieldsets). */
type WizardField = 'template' | 'domains' | 'label' | 'cidr' | 'expires_on' | 'spend_limit';

/** A problem with what was typed, on the step it belongs to and next to its field, in the page's language. */
interface Problem {
  readonly step: 1 | 2 | 3;
  readonly field: WizardField | null;
  readonly text: string;
  readonly code: string;
}

/** Seed A8's steps as the wizard numbers them. */
const STAGES: ReadonlyArray<readonly [1 | 2 | 3, IssueStep]> = [
  [1, 'rights'],
  [2, 'reach'],
  [3, 'conditions'],
];

/** A validation detail's field (the issuing use case's JSON pointer, or the spend limit as typed) → the wizard's. */
const FIELD_OF_POINTER: ReadonlyArray<readonly [RegExp, WizardField]> = [
  [/^\/(template|rights)(\/|$)/, 'template'],
  [/^\/label$/, 'label'],
  [/^\/conditions\/cidr$/, 'cidr'],
  [/^\/conditions\/expires_on$/, 'expires_on'],
  [/^(\/conditions\/)?spend_limit$/, 'spend_limit'],
];
const FIELD_OF_CODE: Readonly<Record<string, WizardField>> = {
  right_test_only: 'template',
  role_forbidden: 'template',
  domains_required: 'domains',
  domain_invalid: 'domains',
  ip_restriction_required: 'cidr',
  ip_restriction_too_wide: 'cidr',
  expiry_in_past: 'expires_on',
  key_lifetime_exceeded: 'expires_on',
  spend_limit_required: 'spend_limit',
};
/** What a field needs, said as a person reads it (the use case's own rule names are for the API). */
const FIELD_TEXT: Readonly<Record<WizardField, [string, string]>> = {
  template: ['Оберіть шаблон прав.', 'Choose a rights template.'],
  domains: ['Оберіть домени або впишіть їхні імена.', 'Choose the domains, or type their names.'],
  label: ['Оберіть мітку: малі латинські літери, цифри й дефіс.', 'Choose a label: lowercase Latin letters, digits and hyphens.'],
  cidr: ['Мережа IPv4 у формі CIDR, наприклад 203.0.113.0/24.', 'An IPv4 network in CIDR form, such as 203.0.113.0/24.'],
  expires_on: ['Дата у формі РРРР-ММ-ДД.', 'A date as YYYY-MM-DD.'],
  spend_limit: [
    'Сума в гривнях, більша за нуль, до двох знаків після коми: наприклад 500 або 499,99.',
    'An amount in UAH above zero, with up to two decimals: such as 500 or 499.99.',
  ],
};

const problemOf = (v: View, err: DomainError, step: 1 | 2 | 3): Problem => {
  const pointer = (err.details ?? []).map((d) => d.field).find((f): f is string => typeof f === 'string');
  const field =
    err.code === 'validation_failed' && pointer !== undefined
      ? (FIELD_OF_POINTER.find(([re]) => re.test(pointer))?.[1] ?? null)
      : (FIELD_OF_CODE[err.code] ?? null);
  const text = err.code === 'validation_failed' && field !== null ? v.t(...FIELD_TEXT[field]) : errorText(v.lang, err);
  return { step, field, text, code: err.code };
};

/**
 * Checks what the person filled in, step by step in seed A8's order up to `upTo` (the issuing use case's own
 * checks, nothing repeated here); the first problem, with the step it belongs to.
 */
const judge = (uc: UseCases, r: ConsoleRequest, w: Wizard, upTo: 1 | 2 | 3): Problem | null => {
  for (const [step, stage] of STAGES) {
    if (step > upTo) break;
    try {
      // The spend limit is read (and may be refused) with the conditions, not before.
      uc.issueKey.check(me(r).actor, wizardInput(w, stage === 'conditions'), stage);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return problemOf(r.view, err, step);
    }
  }
  return null;
};

/** A problem at the top of its step's form (with its code, as every console error) … */
const problemBox = (v: View, p: Problem | null) =>
  p
    ? alert(
        'error',
        html`<p>${p.text}</p>
          <p class="muted">${v.t('Код помилки', 'Error code')}: <code>${p.code}</code></p>`,
      )
    : '';
/** … and next to its field: the message, and the field marked (inputs) or described by it (fieldsets). */
const problemAt = (p: Problem | null, field: WizardField) =>
  p?.field === field ? html`<p class="field-error" id="err-${field}">${p.text}</p>` : '';
const invalid = (p: Problem | null, field: WizardField) => (p?.field === field ? raw('aria-invalid="true"') : '');
const describedBy = (p: Problem | null, field: WizardField, hint?: string) => {
  const ids = [hint, p?.field === field ? `err-${field}` : undefined].filter(Boolean).join(' ');
  return ids ? html`aria-describedby="${ids}"` : '';
};

/** One step of the wizard, with everything typed so far kept (in the form, or in its hidden fields). */
const wizardPage = async (uc: UseCases, r: ConsoleRequest, w: Wizard, step: 1 | 2 | 3 | 4, problem: Problem | null): Promise<PageOut> => {
  const v = r.view;
  const page = (body: Html): PageOut => ({
    title: v.t('Новий ключ', 'New key'),
    ...(problem ? { status: 422 } : {}),
    body: html`<h1>${v.t('Новий ключ', 'New key')}</h1>
      ${steps(v, step)}${body}`,
  });
  if (step === 1) {
    const maxClass = maxClassOf(me(r).actor);
    return page(
      html`<form class="stack card" method="get" action="/console/keys/new">
        ${problemBox(v, problem)}
        <input type="hidden" name="step" value="2" />${wizardHidden(w, ['template', 'environment'])}
        <fieldset>
          <legend>${v.t('Середовище', 'Environment')}</legend>
          ${(['test', 'live'] as const).map((e) => html`<label class="choice"><input type="radio" name="environment" value="${e}" ${w.environment === e ? raw(' checked') : ''} /><span>${e === 'test' ? v.t('Пісочниця (test)', 'Sandbox (test)') : v.t('Робоче (live)', 'Live')}</span></label>`)}
        </fieldset>
        <fieldset id="template-choice" ${describedBy(problem, 'template')}>
          <legend>${v.t('Шаблон прав', 'Rights template')}</legend>
          ${problemAt(problem, 'template')}
          ${TEMPLATES.map(
            (t, i) =>
              html`<label class="choice"
                ><input
                  type="radio"
                  name="template"
                  value="${t.id}"
                  required${w.template === t.id || (!w.template && i === 0) ? raw(' checked') : ''}${templateClass(t.id) > maxClass ? raw(' disabled') : ''}
                /><span
                  >${v.lang === 'uk' ? t.title.uk : t.title.en}
                  <span class="pill">${v.t('клас', 'class')} ${templateClass(t.id)}</span
                  >${templateClass(t.id) > maxClass ? html` <span class="muted">${v.t('(лише власники)', '(owners only)')}</span>` : ''}<small
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
    );
  }
  if (step === 2) {
    const list = await uc.humanReads.domainList(me(r).actor, w.environment);
    const labels = [...new Set(list.flatMap((d) => d.labels))].sort();
    const listed = new Set(list.map((d) => d.domain));
    // Names typed (not among the account's) come back in the box they were typed in.
    const typed = w.domains.filter((d) => !listed.has(d)).join(', ');
    return page(
      html`<form class="stack card" method="get" action="/console/keys/new">
        ${problemBox(v, problem)}
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
        <fieldset data-scope="domains" ${w.scope === 'label' ? raw(' hidden') : ''} ${describedBy(problem, 'domains')}>
          <legend>${v.t('Домени', 'Domains')}</legend>
          ${problemAt(problem, 'domains')}
          ${list.map((d) => html`<label class="choice"><input type="checkbox" name="domains" value="${d.domain}" ${w.domains.includes(d.domain) ? raw(' checked') : ''} /><span>${d.domain}</span></label>`)}
          <label for="more_domains">${v.t('Інші імена (через кому)', 'Other names (comma-separated)')}</label
          ><input
            id="more_domains"
            name="more_domains"
            type="text"
            value="${typed}"
            ${describedBy(problem, 'domains', 'more-hint')}
            ${invalid(problem, 'domains')}
          />
          <p class="hint" id="more-hint">
            ${v.t('Наприклад, ім’я, яке ключ має право зареєструвати.', 'For example, a name the key may register.')}
          </p>
        </fieldset>
        <fieldset data-scope="label" ${w.scope === 'domains' ? raw(' hidden') : ''}>
          <legend>${v.t('Мітка', 'Label')}</legend>
          <label for="label">${v.t('Мітка', 'Label')}</label
          ><select id="label" name="label" ${describedBy(problem, 'label')} ${invalid(problem, 'label')}>
            ${labels.map((l) => html`<option${w.label === l ? raw(' selected') : ''}>${l}</option>`)}
          </select>
          ${problemAt(problem, 'label')}
        </fieldset>
        <div class="actions">
          <button type="submit">${v.t('Далі', 'Next')}</button
          ><a href="/console/keys/new?step=1&amp;template=${w.template}&amp;environment=${w.environment}">${v.t('Назад', 'Back')}</a>
        </div>
      </form>`,
    );
  }
  if (step === 3) {
    // CIDR: mandatory and pre-filled (with the caller's address) only where the class needs it.
    const cls = templateClass(w.template);
    const needsCidr = CLASSES[cls].ipRestrictionRequired;
    const ip = ipv4Of(r.ip);
    const cidr = w.cidr || (needsCidr && ip ? `${ip}/32` : '');
    return page(
      html`<form class="stack card" method="get" action="/console/keys/new">
        ${problemBox(v, problem)}
        <input type="hidden" name="step" value="4" />${wizardHidden(w, ['cidr', 'expires_on', 'spend_limit', 'name'])}
        <label for="name">${v.t('Назва ключа', 'Key name')} <span class="muted">(${v.t('необов’язково', 'optional')})</span></label
        ><input id="name" name="name" type="text" maxlength="100" value="${w.name}" />
        <label for="cidr"
          >${v.t('Дозволена мережа (IPv4 CIDR)', 'Allowed network (IPv4 CIDR)')}${needsCidr ? '' : html` <span class="muted">(${v.t('необов’язково', 'optional')})</span>`}</label
        ><input
          id="cidr"
          name="cidr"
          type="text"
          placeholder="203.0.113.0/24"
          value="${cidr}"
          ${describedBy(problem, 'cidr', 'cidr-hint')}
          ${invalid(problem, 'cidr')}
          ${needsCidr ? raw(' required') : ''}
        />
        ${problemAt(problem, 'cidr')}
        ${
          needsCidr
            ? html`<p class="hint warnbox" id="cidr-hint">
                ${v.t(`Ключ класу ${cls} мусить мати мережу (префікс /8 або довший). Це адреса сервера, який викликатиме API цим ключем, — не обов’язково ваша. Підставлено адресу вашого браузера${ip ? ` (${ip})` : ''}: змініть її, якщо ключ працюватиме деінде, інакше сервер отримає відмову ip_not_allowed.`, `A class ${cls} key must have a network (a /8 prefix or longer). It is the address of the server that will call the API with this key — not necessarily yours. Your browser’s address${ip ? ` (${ip})` : ''} is filled in: change it if the key will run elsewhere, or that server will be refused with ip_not_allowed.`)}
              </p>`
            : html`<p class="hint" id="cidr-hint">
                ${v.t(`Для ключа класу ${cls} мережа не обов’язкова: порожньо — ключ працює з будь-якої адреси. Якщо вказуєте, це має бути адреса сервера, який викликатиме API, а не вашого браузера.`, `A class ${cls} key needs no network: empty — the key works from any address. If you set one, it must be the address of the server that will call the API, not your browser’s.`)}
              </p>`
        }
        <label for="expires_on">${v.t('Діє до (дата)', 'Valid until (date)')}</label
        ><input
          id="expires_on"
          name="expires_on"
          type="date"
          value="${w.expires}"
          ${describedBy(problem, 'expires_on', 'exp-hint')}
          ${invalid(problem, 'expires_on')}
        />
        ${problemAt(problem, 'expires_on')}
        <p class="hint" id="exp-hint">
          ${v.t(`Порожньо — найдовший строк для класу ${cls}: ${CLASSES[cls].maxLifetimeDays} днів.`, `Empty — the longest term for class ${cls}: ${CLASSES[cls].maxLifetimeDays} days.`)}
        </p>
        <label for="spend_limit">${v.t('Ліміт витрат на місяць, грн', 'Monthly spend limit, UAH')}</label
        ><input
          id="spend_limit"
          name="spend_limit"
          type="text"
          inputmode="decimal"
          value="${w.spend}"
          ${describedBy(problem, 'spend_limit', 'spend-hint')}
          ${invalid(problem, 'spend_limit')}
        />
        ${problemAt(problem, 'spend_limit')}
        <p class="hint" id="spend-hint">
          ${v.t('Обов’язково для ключів, що можуть витрачати (реєстрація, продовження, поповнення).', 'Required for keys that can spend (registration, renewal, top-up).')}
        </p>
        <div class="actions">
          <button type="submit">${v.t('Переглянути', 'Review')}</button
          ><a href="/console/keys/new?${backQuery(w, '2')}">${v.t('Назад', 'Back')}</a>
        </div>
      </form>`,
    );
  }
  // Step 4: the plain-language summary (core/access/summary.ts), through the same preview use case (every
  // step was checked on the way here).
  const draft = uc.issueKey.preview(me(r).actor, wizardInput(w));
  const lines = v.lang === 'uk' ? draft.summary.lines.uk : draft.summary.lines.en;
  return page(
    html`<div class="card summary">
        <h2>${v.t('Що зможе цей ключ', 'What this key will be able to do')}</h2>
        <p><strong>${v.t('Клас', 'Class')} ${draft.class}</strong></p>
        ${lines.map((l) => html`<p>${l}</p>`)}
      </div>
      ${postForm(
        v,
        '/console/keys',
        html`${wizardHidden(w)}<input type="hidden" name="_back" value="/console/keys/new?${backQuery(w, '3')}" />
          <div class="actions">
            <button type="submit">${v.t('Випустити ключ', 'Issue the key')}</button
            ><a href="/console/keys/new?${backQuery(w, '3')}">${v.t('Змінити умови', 'Change the conditions')}</a
            ><a href="/console/keys">${v.t('Скасувати', 'Cancel')}</a>
          </div>`,
        { cls: '' },
      )}`,
  );
};

/** Finds one key among those the person may see (owners: every key; members: their own). */
const findKey = async (uc: UseCases, r: ConsoleRequest, id: string): Promise<KeyView> => {
  let cursor: string | undefined;
  for (;;) {
    const page = await uc.listKeys.execute(me(r).actor, { limit: 100, ...(cursor ? { cursor } : {}) });
    const k = page.data.find((x) => x.id === id);
    if (k) return k;
    if (!page.next_cursor) throw new DomainError('key_not_found', { key_id: id });
    cursor = page.next_cursor;
  }
};

export const keyPages = (uc: UseCases): ConsolePage[] => [
  {
    method: 'GET',
    pattern: /^\/console\/keys$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const page = await uc.listKeys.execute(me(r).actor, { limit: 100 });
      return {
        title: v.t('Ключі', 'Keys'),
        body: html`<h1>${v.t('Ключі доступу', 'Access keys')}</h1>
          ${r.query.done === 'revoked' ? alert('ok', v.t('Ключ відкликано: він більше не працює.', 'The key was revoked: it no longer works.')) : ''}
          <p class="lead">
            ${me(r).actor.role === 'owner' ? v.t('Власники бачать усі ключі рахунку й випускають ключі будь-якого класу.', 'Owners see every key of the account and issue keys of any class.') : v.t('Учасники бачать лише свої ключі й випускають ключі класів 0–1.', 'Members see their own keys only and issue keys of classes 0–1.')}
          </p>
          <p><a class="button" href="/console/keys/new">${v.t('Випустити ключ', 'Issue a key')}</a></p>
          ${
            page.data.length === 0
              ? html`<p>${v.t('Ключів ще немає.', 'No keys yet.')}</p>`
              : dataTable(
                  [
                    v.t('Ключ', 'Key'),
                    v.t('Де діє', 'Reaches'),
                    v.t('Клас', 'Class'),
                    v.t('Діє до', 'Expires'),
                    v.t('Останнє використання', 'Last used'),
                    v.t('Стан', 'Status'),
                  ],
                  page.data.map(
                    (k) =>
                      html`<tr>
                        <th scope="row" data-label="${v.t('Ключ', 'Key')}">
                          <a href="/console/keys/${k.id}">${k.name}</a><br /><span class="muted mono">${k.id}</span>
                          <span class="pill">${k.environment === 'test' ? v.t('пісочниця', 'sandbox') : v.t('робоче', 'live')}</span>
                        </th>
                        <td data-label="${v.t('Де діє', 'Reaches')}">${reach(v, k)}</td>
                        <td data-label="${v.t('Клас', 'Class')}">${className(v, k)}</td>
                        <td data-label="${v.t('Діє до', 'Expires')}">${day(k.conditions.expires_on, v)}</td>
                        <td data-label="${v.t('Останнє використання', 'Last used')}">
                          ${k.last_used_at ? when(k.last_used_at, v) : v.t('ще не використано', 'not used yet')}
                        </td>
                        <td data-label="${v.t('Стан', 'Status')}">${statusPill(v, k.status)}</td>
                      </tr>`,
                  ),
                  { caption: v.t(`Ключів: ${page.data.length}`, `Keys: ${page.data.length}`), cls: 'keys' },
                )
          }`,
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/keys\/([0-9A-Za-z]{12})$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const k = await findKey(uc, r, r.params[0]!);
      const tsig = await uc.tsigCredentials.show(me(r).actor, k.id);
      const dnsKey = k.policies.some((p) => TSIG_RIGHTS.includes(p.right));
      return {
        title: `${v.t('Ключ', 'Key')} ${k.name}`,
        body: html`<h1>${v.t('Ключ', 'Key')} «${k.name}»</h1>
          <div class="card">
            <dl class="kv">
              <dt>ID</dt>
              <dd class="mono">${k.id}</dd>
              <dt>${v.t('Стан', 'Status')}</dt>
              <dd>${statusPill(v, k.status)}${k.revoked_at ? html` <span class="muted">${when(k.revoked_at, v)}</span>` : ''}</dd>
              <dt>${v.t('Середовище', 'Environment')}</dt>
              <dd>${k.environment === 'test' ? v.t('пісочниця (test)', 'sandbox (test)') : v.t('робоче (live)', 'live')}</dd>
              <dt>${v.t('Клас', 'Class')}</dt>
              <dd>${className(v, k)} — ${v.lang === 'uk' ? CLASSES[k.class as 0].meaning.uk : CLASSES[k.class as 0].meaning.en}</dd>
              <dt>${v.t('Де діє', 'Reaches')}</dt>
              <dd>${reach(v, k)}</dd>
              <dt>${v.t('Мережа', 'Network')}</dt>
              <dd class="mono">${k.conditions.cidr ?? v.t('будь-яка адреса', 'any address')}</dd>
              <dt>${v.t('Діє до', 'Expires')}</dt>
              <dd>${day(k.conditions.expires_on, v)}</dd>
              <dt>${v.t('Ліміт витрат', 'Spend limit')}</dt>
              <dd>${k.conditions.spend_limit ? `${formatUah(k.conditions.spend_limit.amount)} ₴ ${v.t('на місяць', 'a month')}` : '—'}</dd>
              <dt>${v.t('Випущено', 'Issued')}</dt>
              <dd>${when(k.created_at, v)}</dd>
              <dt>${v.t('Останнє використання', 'Last used')}</dt>
              <dd>${k.last_used_at ? when(k.last_used_at, v) : v.t('ще не використано', 'not used yet')}</dd>
              ${
                tsig
                  ? html`<dt>${v.t('Облікові дані TSIG', 'TSIG credential')}</dt>
                      <dd class="mono">${tsig.algorithm}:${tsig.name}</dd>`
                  : ''
              }
            </dl>
          </div>
          ${
            // Keys issued before DNS UPDATE existed have no credential: one may be issued here, once.
            !tsig && dnsKey && k.status === 'active'
              ? html`<h2>${v.t('Облікові дані DNS UPDATE (TSIG)', 'DNS UPDATE credential (TSIG)')}</h2>
                  ${postForm(
                    v,
                    `/console/keys/${k.id}/tsig`,
                    html`<p>
                        ${v.t(
                          'Цей ключ випущено до появи DNS UPDATE, тож облікових даних TSIG він не має. Випустіть їх, щоб nsupdate, certbot (rfc2136), lego та інші клієнти RFC 2136 працювали з правами цього ключа. Секрет покажемо лише один раз.',
                          'This key was issued before DNS UPDATE existed, so it has no TSIG credential. Issue one to let nsupdate, certbot (rfc2136), lego and other RFC 2136 clients work with this key’s rights. The secret is shown only once.',
                        )}
                      </p>
                      <label
                        >${v.t('Алгоритм', 'Algorithm')}
                        <select name="tsig_algorithm">
                          <option value="hmac-sha256" selected>hmac-sha256</option>
                          <option value="hmac-sha512">hmac-sha512</option>
                        </select></label
                      >
                      <button type="submit">${v.t('Випустити облікові дані TSIG', 'Issue a TSIG credential')}</button>`,
                    { cls: 'card', back: `/console/keys/${k.id}` },
                  )}`
              : ''
          }
          <h2>${v.t('Права', 'Rights')}</h2>
          ${dataTable(
            [v.t('Право', 'Right'), v.t('Що дозволяє', 'What it allows'), v.t('Де', 'Where')],
            k.policies.map(
              (p) =>
                html`<tr>
                  <td class="mono" data-label="${v.t('Право', 'Right')}">${p.right}</td>
                  <td data-label="${v.t('Що дозволяє', 'What it allows')}">
                    ${v.lang === 'uk' ? RIGHTS[p.right].describe.uk : RIGHTS[p.right].describe.en}
                  </td>
                  <td data-label="${v.t('Де', 'Where')}">
                    ${
                      RIGHTS[p.right].scope === 'account'
                        ? v.t('увесь рахунок', 'the whole account')
                        : 'domains' in p.resources
                          ? p.resources.domains.join(', ')
                          : `${v.t('мітка', 'label')}: ${p.resources.label}`
                    }
                  </td>
                </tr>`,
            ),
          )}
          ${
            k.status === 'active'
              ? html`<h2>${v.t('Відкликати', 'Revoke')}</h2>
                  <form
                    class="card"
                    method="post"
                    action="/console/keys/${k.id}/revoke"
                    data-confirm="${v.t(`Відкликати ключ ${k.name}? Він перестане працювати одразу.`, `Revoke the key ${k.name}? It stops working at once.`)}"
                  >
                    ${csrfField(v)}<input type="hidden" name="_back" value="/console/keys/${k.id}" />
                    <p>
                      ${v.t('Ключ перестане працювати одразу; відкликання не скасувати.', 'The key stops working at once; a revocation cannot be undone.')}
                    </p>
                    <button class="danger" type="submit">${v.t('Відкликати ключ', 'Revoke the key')}</button>
                  </form>`
              : ''
          }
          <p><a href="/console/keys">${v.t('До списку ключів', 'To the list of keys')}</a></p>`,
      };
    },
  },
  {
    // Issue, then redirect: the secret reaches the next GET once (a reload never issues another).
    method: 'POST',
    pattern: /^\/console\/keys\/([0-9A-Za-z]{12})\/tsig$/,
    auth: true,
    handle: async (r) => {
      const id = r.params[0]!;
      const algorithm = typeof r.form.tsig_algorithm === 'string' ? r.form.tsig_algorithm : undefined;
      const made = await uc.tsigCredentials.issue(me(r).actor, id, algorithm);
      return {
        redirect: `/console/keys/${id}/tsig`,
        // RFC 2136 clients' algorithm:name:secret form, as beside a newly issued key.
        once: { kind: 'tsig', data: { id, tsig: `${made.algorithm}:${made.name}:${made.secret}` } },
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/keys\/([0-9A-Za-z]{12})\/tsig$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const id = r.params[0]!;
      const shown = r.once?.kind === 'tsig' && r.once.data.id === id ? (r.once.data.tsig ?? null) : null;
      return {
        title: v.t('Облікові дані TSIG', 'TSIG credential'),
        body: html`<h1>${v.t('Облікові дані DNS UPDATE (TSIG)', 'DNS UPDATE credential (TSIG)')}</h1>
          ${
            shown
              ? html`${alert(
                    'info',
                    v.t(
                      'Скопіюйте облікові дані зараз: секрет показано лише один раз і збережено тільки зашифрованим. Якщо втратите — відкличте ключ і випустіть новий.',
                      'Copy the credential now: the secret is shown only once and kept only sealed. If you lose it, revoke the key and issue a new one.',
                    ),
                  )}
                  <div class="card secret tsig">
                    <code id="key-tsig">${shown}</code
                    ><button type="button" data-copy="key-tsig" data-copied="${v.t('Скопійовано', 'Copied')}">
                      ${v.t('Копіювати', 'Copy')}
                    </button>
                  </div>`
              : alert(
                  'info',
                  v.t(
                    'Облікові дані вже показано один раз, тож тут їх більше немає (оновлення сторінки не випускає нових).',
                    'The credential was already shown once, so it is not here any more (reloading the page does not issue another).',
                  ),
                )
          }
          <p><a href="/console/keys/${id}">${v.t('Сторінка ключа', 'The key’s page')}</a></p>`,
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
      const w = wizardOf(r.query, r.view.env);
      const asked = Number(r.query.step ?? 1);
      const step = asked === 2 || asked === 3 || asked === 4 ? asked : 1;
      // Moving on from a step checks everything filled in so far: a problem shows on the step it belongs to.
      const problem = step > 1 ? judge(uc, r, w, (step - 1) as 1 | 2 | 3) : null;
      return wizardPage(uc, r, w, problem ? problem.step : step, problem);
    },
  },
  {
    // Issue, then redirect: the key string reaches the next GET once (a reload never issues a second key).
    method: 'POST',
    pattern: /^\/console\/keys$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const w = wizardOf(r.form, v.env);
      let issued;
      try {
        issued = await uc.issueKey.issue(me(r).actor, wizardInput(w));
      } catch (err) {
        // Refused (the day passed the expiry date since the review, say): that step again, with the reason.
        const problem = err instanceof DomainError ? judge(uc, r, w, 3) : null;
        if (!problem) throw err;
        return wizardPage(uc, r, w, problem.step, problem);
      }
      const lines = v.lang === 'uk' ? issued.summary.lines.uk : issued.summary.lines.en;
      return {
        redirect: `/console/keys/${issued.key.id}/issued`,
        once: {
          kind: 'key',
          data: {
            id: issued.key.id,
            secret: issued.secret,
            summary: lines.join('\n'),
            // The DNS UPDATE credential (RFC 2136 clients' algorithm:name:secret form), shown once beside the key.
            tsig: issued.tsig ? `${issued.tsig.algorithm}:${issued.tsig.name}:${issued.tsig.secret}` : '',
          },
        },
      };
    },
  },
  {
    method: 'GET',
    pattern: /^\/console\/keys\/([0-9A-Za-z]{12})\/issued$/,
    auth: true,
    handle: async (r) => {
      const v = r.view;
      const id = r.params[0]!;
      const shown = r.once?.kind === 'key' && r.once.data.id === id ? r.once.data : null;
      return {
        title: v.t('Ключ випущено', 'Key issued'),
        body: html`<h1>${v.t('Ключ випущено', 'Key issued')}</h1>
          ${steps(v, 5)}
          ${
            shown
              ? html`${alert('info', v.t('Скопіюйте ключ зараз: його показано лише один раз і ніде не збережено. Якщо втратите — відкличте й випустіть новий.', 'Copy the key now: it is shown only once and stored nowhere. If you lose it, revoke it and issue a new one.'))}
                  <div class="card secret">
                    <code id="key-secret">${shown.secret}</code
                    ><button type="button" data-copy="key-secret" data-copied="${v.t('Скопійовано', 'Copied')}">
                      ${v.t('Копіювати', 'Copy')}
                    </button>
                  </div>
                  ${
                    shown.tsig
                      ? html`<div class="card secret tsig">
                          <h2>${v.t('Облікові дані DNS UPDATE (TSIG)', 'DNS UPDATE credential (TSIG)')}</h2>
                          <p>
                            ${v.t(
                              'Для nsupdate, certbot (rfc2136), lego та інших клієнтів RFC 2136; теж показано лише один раз.',
                              'For nsupdate, certbot (rfc2136), lego and other RFC 2136 clients; also shown only once.',
                            )}
                          </p>
                          <code id="key-tsig">${shown.tsig}</code
                          ><button type="button" data-copy="key-tsig" data-copied="${v.t('Скопійовано', 'Copied')}">
                            ${v.t('Копіювати', 'Copy')}
                          </button>
                        </div>`
                      : ''
                  }
                  <div class="card summary">${(shown.summary ?? '').split('\n').map((l) => html`<p>${l}</p>`)}</div>`
              : alert(
                  'info',
                  v.t(
                    'Ключ уже показано один раз, тож тут його більше немає (оновлення сторінки не випускає ще один ключ). Якщо ви його не зберегли, відкличте цей ключ і випустіть новий.',
                    'The key was already shown once, so it is not here any more (reloading the page does not issue another key). If you did not keep it, revoke this key and issue a new one.',
                  ),
                )
          }
          <p>
            <a href="/console/keys/${id}">${v.t('Сторінка ключа', 'The key’s page')}</a> ·
            <a href="/console/keys">${v.t('До списку ключів', 'To the list of keys')}</a>
          </p>`,
      };
    },
  },
];

/** The wizard's state as a query string, to go back to a step with everything typed kept. */
const backQuery = (w: Wizard, step: string) => {
  const q = new URLSearchParams(
    Object.entries({
      step,
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
  w.domains.forEach((d) => q.append('domains', d));
  return q.toString();
};
