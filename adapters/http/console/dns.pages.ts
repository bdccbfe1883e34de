import type { DomainError } from '../../../core/kernel/errors.js';
import type { CheckResult, PlanView } from '../../../core/dns/plans/plan.js';
import { DEFAULT_TTL, inputOf, type ChangeInput } from '../../../core/dns/plans/plan-builder.js';
import { RECORD_TYPES } from '../../../core/dns/zone/record-set.js';
import { dnsRoutes } from '../routes/dns.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, checkpoints, doneBanner, enc, errorBox, field, keyFor, postForm, validateBody, when } from './acting.js';
import { esc, html, raw, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { pageHead } from './fields.js';
import { dataTable } from './table.js';
import { ERROR_TABLE } from '../error-table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * The DNS editor. A half-made plan (the draft: the changes typed so far) travels in the address as
 * base64url JSON, so a reload, a back button or an error never loses it and nothing is stored until the
 * person asks for a review. "Review" makes a plan through the same use case as POST /dns/plans (every
 * check, in the person's language); "Apply" applies exactly that plan by its id.
 */

/** Types a person edits (the apex SOA belongs to the service; the plan refuses it with its reason). */
const EDITABLE = RECORD_TYPES.filter((t) => t !== 'SOA');

/**
 * What each type's values are, the same wherever the record form shows it (the type list, the hint under the
 * values, the placeholder): one value per line, except the types that hold one name only.
 */
interface TypeHelp {
  readonly what: readonly [uk: string, en: string];
  readonly example: string;
  readonly single?: true;
}
const TYPE_HELP: Readonly<Record<string, TypeHelp>> = {
  A: { what: ['IPv4-адреса', 'an IPv4 address'], example: '203.0.113.10' },
  AAAA: { what: ['IPv6-адреса', 'an IPv6 address'], example: '2001:db8::10' },
  CNAME: { what: ['ім’я, на яке вказує цей запис', 'the name this record points to'], example: 'target.example.net.', single: true },
  MX: { what: ['пріоритет і поштовий сервер', 'a priority and a mail server'], example: '10 mail.example.net.' },
  NS: { what: ['сервер імен піддомену', 'a nameserver of the subdomain'], example: 'ns1.example.net.' },
  TXT: { what: ['текст (лапки не потрібні)', 'a text (no quotes needed)'], example: 'v=spf1 -all' },
  SPF: { what: ['текст політики SPF', 'an SPF policy text'], example: 'v=spf1 -all' },
  SRV: { what: ['пріоритет, вага, порт і ціль', 'a priority, weight, port and target'], example: '10 5 5060 sip.example.net.' },
  CAA: { what: ['прапорці, тег і значення', 'flags, a tag and a value'], example: '0 issue "letsencrypt.org"' },
  DNAME: { what: ['ім’я, на яке переноситься все дерево', 'the name the whole subtree maps to'], example: 'example.net.', single: true },
  PTR: { what: ['ім’я вузла', 'a host name'], example: 'host.example.net.' },
};
const helpOf = (type: string): TypeHelp =>
  TYPE_HELP[type] ?? { what: ['значення в текстовому вигляді', 'a value in zone-file text'], example: '' };
/** "MX — a priority and a mail server": the type as the form names it, in the list and once chosen. */
const typeTitle = (v: View, type: string) => `${type} — ${v.t(...helpOf(type).what)}`;
/** The hint under the values: what one value is, how many, and an example. */
const valuesHint = (v: View, type: string) => {
  const h = helpOf(type);
  const what = v.t(...h.what);
  return `${what.charAt(0).toUpperCase()}${what.slice(1)}; ${h.single ? v.t('лише одне значення', 'one value only') : v.t('одне значення в рядку', 'one value per line')}.`;
};

type Draft = ChangeInput[];

export const encodeDraft = (d: Draft): string => (d.length === 0 ? '' : Buffer.from(JSON.stringify(d), 'utf8').toString('base64url'));
const decodeDraft = (s: string | undefined): Draft => {
  if (!s) return [];
  try {
    const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    return Array.isArray(v) ? (v.filter((c) => c && typeof c === 'object') as Draft) : [];
  } catch {
    return [];
  }
};
/** A plan's changes as a draft again (to edit it further or plan it anew). */
const draftOf = (p: PlanView): Draft => p.changes.map(inputOf);
/** The same changes stated against the zone as it is now: each "current" precondition is read afresh. */
const refreshed = (d: Draft, now: ReadonlyArray<{ name: string; type: string; ttl: number; values: readonly string[] }>): Draft =>
  d.map(({ current: _c, ...rest }) => {
    const set = rest.action === 'create' ? undefined : now.find((s) => s.name === rest.name && s.type === rest.type);
    return set ? { ...rest, current: { ttl: set.ttl, values: [...set.values] } } : rest;
  });

const rel = (name: string, zone: string) => (name === zone ? '@' : name.endsWith(`.${zone}`) ? name.slice(0, -zone.length - 1) : name);
const base = (d: string) => `/console/domains/${enc(d)}/dns`;
const editorUrl = (d: string, draft: Draft, extra = '') => {
  const q = [draft.length ? `draft=${encodeDraft(draft)}` : '', extra].filter(Boolean).join('&');
  return `${base(d)}${q ? `?${q}` : ''}`;
};

const actionName = (v: View, a: string) =>
  a === 'create' ? v.t('додати', 'add') : a === 'update' ? v.t('змінити', 'change') : v.t('видалити', 'delete');

const checkList = (v: View, checks: readonly CheckResult[]) =>
  checks.length === 0
    ? html`<p>${v.t('Усі перевірки пройдено.', 'Every check passed.')}</p>`
    : html`<ul class="checks">
        ${checks.map(
          (c) =>
            html`<li class="${c.severity}">
              <strong>${c.severity === 'error' ? v.t('Помилка', 'Error') : v.t('Попередження', 'Warning')}</strong>
              <span class="mono">${c.name}${c.type ? ` ${c.type}` : ''}</span>: ${v.lang === 'uk' ? c.message.uk : c.message.en}
              <span class="muted">(${c.rule})</span>
            </li>`,
        )}
      </ul>`;

const diffTable = (v: View, zone: string, changes: readonly ChangeInput[], opts: { draftRemove?: (i: number) => Html } = {}) =>
  dataTable(
    [
      v.t('Дія', 'Action'),
      v.t('Ім’я', 'Name'),
      v.t('Тип', 'Type'),
      v.t('Було', 'Before'),
      v.t('Стане', 'After'),
      ...(opts.draftRemove ? [html`<span class="muted">${v.t('Дії', 'Actions')}</span>`] : []),
    ],
    changes.map(
      (c, i) =>
        html`<tr class="${c.action}">
          <td class="act" data-label="${v.t('Дія', 'Action')}">${actionName(v, c.action)}</td>
          <td class="mono" data-label="${v.t('Ім’я', 'Name')}">${rel(c.name, zone)}</td>
          <td data-label="${v.t('Тип', 'Type')}">${c.type}</td>
          <td class="mono" data-label="${v.t('Було', 'Before')}">
            ${c.current ? html`<del>TTL ${c.current.ttl}: ${c.current.values.join(' | ')}</del>` : '—'}
          </td>
          <td class="mono" data-label="${v.t('Стане', 'After')}">
            ${c.action === 'delete' ? '—' : html`<ins>TTL ${c.ttl ?? '?'}: ${(c.values ?? []).join(' | ')}</ins>`}
          </td>
          ${opts.draftRemove ? html`<td>${opts.draftRemove(i)}</td>` : ''}
        </tr>`,
    ),
    { cls: 'diff stack' },
  );

/**
 * The records table's rows, built as one string with every value escaped: a zone of thousands of sets
 * renders in milliseconds (the tagged template would allocate a fragment per cell).
 */
const recordRows = (
  v: View,
  zone: string,
  records: ReadonlyArray<{ name: string; type: string; ttl: number; values: readonly string[] }>,
  inDraft: (name: string, type: string) => boolean,
): Html => {
  const L = { name: esc(v.t('Ім’я', 'Name')), type: esc(v.t('Тип', 'Type')), values: esc(v.t('Значення', 'Values')) };
  const kept = `<span class="muted">${esc(v.t('керує сервіс', 'kept by the service'))}</span>`;
  const drafted = `<span class="pill warn">${esc(v.t('у чернетці', 'in the draft'))}</span>`;
  const change = esc(v.t('Змінити', 'Change'));
  const del = esc(v.t('Видалити', 'Delete'));
  const out: string[] = [];
  for (const s of records) {
    const name = esc(rel(s.name, zone));
    const type = esc(s.type);
    const target = esc(`${s.name}|${s.type}`);
    const actions =
      s.name === zone && (s.type === 'SOA' || s.type === 'NS')
        ? kept
        : inDraft(s.name, s.type)
          ? drafted
          : `<button form="edit-set" class="small secondary" name="edit" value="${target}" aria-label="${change} ${name} ${type}">${change}</button> ` +
            `<button form="delete-set" class="small danger" name="target" value="${target}" aria-label="${del} ${name} ${type}">${del}</button>`;
    out.push(
      `<tr><td class="mono" data-label="${L.name}">${name}</td><td data-label="${L.type}">${type}</td><td class="num" data-label="TTL">${s.ttl}</td>` +
        `<td class="mono" data-label="${L.values}">${s.values.map((x) => `${esc(x)}<br />`).join('')}</td><td>${actions}</td></tr>`,
    );
  }
  return raw(out.join(''));
};

interface RecordForm {
  action: 'create' | 'update';
  name: string;
  type: string;
  ttl: string;
  values: string;
  current?: { ttl: number; values: string[] };
}

/** The record form's fields, as the person sees them labelled. */
type RecordField = 'name' | 'type' | 'ttl' | 'values';
const FIELD_LABEL: Readonly<Record<RecordField, readonly [string, string]>> = {
  name: ['Ім’я', 'Name'],
  type: ['Тип', 'Type'],
  ttl: ['TTL', 'TTL'],
  values: ['Значення', 'Values'],
};
/** The plan's checks that are about the name, the type or the TTL; every other error is about the values. */
const FIELD_OF_RULE: Readonly<Record<string, RecordField | null>> = {
  'name-syntax': 'name',
  'name-length': 'name',
  'label-length': 'name',
  'owner-in-zone': 'name',
  'wildcard-position': 'name',
  'wildcard-soa-ns': 'name',
  'srv-owner-format': 'name',
  'below-dname': 'name',
  'delegation-only-glue': 'name',
  'create-existing': 'name',
  'change-duplicate': 'name',
  'cname-at-apex': 'name',
  'cname-exclusive': 'name',
  'ns-apex': 'name',
  'apex-soa-ns-service-owned': 'name',
  'record-type': 'type',
  'dnssec-service-owned': 'type',
  'soa-apex': 'type',
  'ttl-range': 'ttl',
  'rrset-ttl': 'ttl',
  // The set changed since the form was drawn: not one field's fault.
  'current-mismatch': null,
};

/** One thing wrong with what was typed: the field it is about (null: the form as a whole), what, and its rule. */
interface FormProblem {
  readonly field: RecordField | null;
  readonly text: string;
  readonly rule: string;
}
/**
 * The problems of a record form, whether the API's schema or the plan's checks found them, each with the field
 * it is about — so every type's form names the field next to it, the same way.
 */
const formProblems = (v: View, error: DomainError | null | undefined, checks: readonly CheckResult[]): FormProblem[] => {
  const fromSchema =
    error?.code === 'validation_failed'
      ? (error.details ?? []).map((d) => {
          const m = /^\/body\/changes\/0\/(name|type|ttl|values)(\/|$)/.exec(typeof d.field === 'string' ? d.field : '');
          const msg = d.message as { uk?: string; en?: string } | string | undefined;
          const text = typeof msg === 'string' ? msg : ((v.lang === 'uk' ? msg?.uk : msg?.en) ?? String(d.rule ?? ''));
          return { field: (m?.[1] as RecordField | undefined) ?? null, text, rule: String(d.rule ?? error.code) };
        })
      : [];
  const fromChecks = checks.map((c) => ({
    field: c.rule in FIELD_OF_RULE ? FIELD_OF_RULE[c.rule]! : ('values' as const),
    text: v.lang === 'uk' ? c.message.uk : c.message.en,
    rule: c.rule,
  }));
  // In the order the form shows its fields; the set as a whole last.
  const order = (p: FormProblem) => (p.field === null ? 4 : ['name', 'type', 'ttl', 'values'].indexOf(p.field));
  return [...fromSchema, ...fromChecks].sort((a, b) => order(a) - order(b));
};

const recordForm = (v: View, zone: string, draft: Draft, f: RecordForm, err?: { error?: DomainError | null; checks?: CheckResult[] }) => {
  const problems = formProblems(v, err?.error, err?.checks ?? []);
  // An error that is not about what was typed (a right missing, say) is said as every console error is.
  const other = err?.error && err.error.code !== 'validation_failed' ? err.error : null;
  const mine = (field: RecordField) => problems.filter((p) => p.field === field);
  /** A field's hint, and its problems when it has any: what the field points screen readers to. */
  const described = (field: RecordField, hint = true) =>
    html`aria-describedby="${[hint ? `rec-${field}-hint` : '', mine(field).length ? `rec-${field}-error` : ''].filter(Boolean).join(' ')}"${
      mine(field).length ? raw(' aria-invalid="true"') : ''
    }`;
  const problemText = (field: RecordField) =>
    mine(field)
      .map((p) => p.text)
      .join(' ');
  const problemAt = (field: RecordField) =>
    mine(field).length ? html`<p class="field-error" id="rec-${field}-error">${problemText(field)}</p>` : '';
  const update = f.action === 'update';
  const ttlHint = update
    ? v.t(`Порожньо — як зараз, ${f.current?.ttl ?? DEFAULT_TTL}.`, `Empty: as now, ${f.current?.ttl ?? DEFAULT_TTL}.`)
    : v.t(`Порожньо — ${DEFAULT_TTL}.`, `Empty: ${DEFAULT_TTL}.`);
  return postForm(
    v,
    `${base(zone)}/draft`,
    html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" />
      <input type="hidden" name="action" value="${f.action}" />
      ${f.current ? html`<input type="hidden" name="current" value="${JSON.stringify(f.current)}" />` : ''} ${errorBox(v, other)}
      ${
        problems.length > 0
          ? alert(
              'error',
              html`<p>
                  ${v.t('Цей набір записів ще не додано до плану; виправте:', 'This record set is not in the plan yet; please correct:')}
                </p>
                <ul class="checks">
                  ${problems.map(
                    (p) =>
                      html`<li class="error">
                        <strong>${p.field ? v.t(...FIELD_LABEL[p.field]) : v.t('Набір записів', 'The record set')}</strong>: ${p.text}
                        <span class="muted">(${p.rule})</span>
                      </li>`,
                  )}
                </ul>`,
            )
          : ''
      }
      <label for="rec-name">${v.t(...FIELD_LABEL.name)}</label>
      ${
        update
          ? html`<input type="hidden" name="name" value="${f.name}" /><input
                id="rec-name"
                type="text"
                value="${rel(f.name, zone)}"
                readonly
                ${described('name')}
              />`
          : html`<input id="rec-name" name="name" type="text" value="${f.name}" placeholder="www" ${described('name')} />`
      }
      ${problemAt('name')}
      <p class="hint" id="rec-name-hint">${v.t(`Відносно ${zone}; @ — сама зона.`, `Relative to ${zone}; @ is the zone itself.`)}</p>
      <label for="rec-type">${v.t(...FIELD_LABEL.type)}</label>
      ${
        update
          ? html`<input type="hidden" name="type" value="${f.type}" /><input
                id="rec-type"
                type="text"
                value="${typeTitle(v, f.type)}"
                readonly
                ${described('type')}
              />`
          : html`<select id="rec-type" name="type" ${described('type')}>
              ${EDITABLE.map(
                (t) =>
                  html`<option
                    value="${t}"
                    data-hint="${valuesHint(v, t)}"
                    data-example="${helpOf(t).example}"
                    ${t === f.type ? html`selected` : ''}
                  >
                    ${typeTitle(v, t)}
                  </option>`,
              )}
            </select>`
      }
      ${problemAt('type')}
      <p class="hint" id="rec-type-hint">
        ${
          update
            ? v.t(
                'Ім’я й тип набору не змінюються: щоб змінити їх, видаліть набір і додайте новий.',
                'A set’s name and type stay as they are: to change them, delete the set and add a new one.',
              )
            : v.t('Один набір — усі записи одного типу на одному імені.', 'A set is every record of one type at one name.')
        }
      </p>
      <label for="rec-ttl">TTL (${v.t('секунди', 'seconds')})</label>
      <input
        id="rec-ttl"
        name="ttl"
        type="text"
        inputmode="numeric"
        value="${f.ttl}"
        placeholder="${update ? (f.current?.ttl ?? DEFAULT_TTL) : DEFAULT_TTL}"
        ${described('ttl')}
      />
      ${problemAt('ttl')}
      <p class="hint" id="rec-ttl-hint">
        ${v.t('3600 — година; менше — швидші зміни, більше запитів.', '3600 is an hour; lower means faster changes and more queries.')}
        ${ttlHint}
      </p>
      <label for="rec-values">${v.t(...FIELD_LABEL.values)}</label>
      <textarea id="rec-values" name="values" placeholder="${helpOf(f.type).example}" ${described('values')}>${f.values}</textarea>
      ${problemAt('values')}
      <p class="hint" id="rec-values-hint">
        <span id="rec-values-what">${valuesHint(v, f.type)}</span> ${v.t('Наприклад', 'For example')}:
        <code id="rec-values-example">${helpOf(f.type).example}</code>
      </p>
      <div class="actions">
        <button type="submit">${v.t('Додати до плану', 'Add to the plan')}</button>
        <a class="button secondary" href="${editorUrl(zone, draft)}">${v.t('Скасувати', 'Cancel')}</a>
      </div>`,
  );
};

export const dnsPages = (uc: UseCases): ConsolePage[] => {
  const routes = dnsRoutes(uc);

  const editor = async (
    r: ConsoleRequest,
    draft: Draft,
    form?: { f: RecordForm; error?: DomainError | null; checks?: CheckResult[] },
    status?: number,
  ): Promise<PageOut> => {
    const v = r.view;
    const { domain: d, records, serial } = await uc.humanReads.domain(r.human!.actor, v.env, r.params[0]!);
    const zone = d.domain;
    const key = await keyFor(uc, r);
    const history = await uc.listEvents
      .newestFirst(key, { types: 'dns.plan_applied', domain: zone, limit: 20 })
      .catch(() => ({ data: [] }));
    const acme = records.filter((s) => s.type === 'TXT' && s.name.startsWith('_acme-challenge.'));
    // The values added as challenges (removable by id, as DELETE …/acme-challenges/{id}); a TXT value typed in
    // the editor at the same name is listed as such (the editor changes it). A key without the right sees none.
    const challenges = await uc.acmeChallenges.list(key, zone).catch(() => []);
    const typedInEditor = acme.flatMap((s) =>
      s.values.filter((x) => !challenges.some((c) => c.name === s.name && c.value === x)).map((x) => ({ name: s.name, value: x })),
    );
    const pending = new Set(draft.map((c) => `${c.name}|${c.type}`));
    const fq = (n: string) => (n === '@' || n === '' ? zone : n.endsWith(`.${zone}`) || n === zone ? n : `${n}.${zone}`);
    const inDraft = (name: string, type: string) =>
      pending.has(`${name}|${type}`) || pending.has(`${rel(name, zone)}|${type}`) || pending.has(`${fq(name)}|${type}`);
    const edit = r.query.edit ? records.find((s) => `${s.name}|${s.type}` === r.query.edit) : undefined;
    const shownForm: RecordForm | null =
      form?.f ??
      (edit
        ? {
            action: 'update',
            name: edit.name,
            type: edit.type,
            ttl: String(edit.ttl),
            values: edit.values.join('\n'),
            current: { ttl: edit.ttl, values: [...edit.values] },
          }
        : r.query.add
          ? {
              action: 'create',
              name: '',
              type: r.query.type && TYPE_HELP[r.query.type] ? r.query.type : 'A',
              ttl: String(DEFAULT_TTL),
              values: '',
            }
          : null);
    return {
      title: v.t(`DNS — ${zone}`, `DNS — ${zone}`),
      ...(status ? { status } : {}),
      body: html`${pageHead({ href: `/console/domains/${enc(zone)}`, label: zone }, v.t('DNS-записи', 'DNS records'), zone)}
        ${doneBanner(r, {
          challenge: [
            'Значення ACME додано; наш сервер уже відповідає ним.',
            'The ACME value was added; our server already answers with it.',
          ],
          'challenge-removed': [
            'Значення ACME прибрано; наш сервер більше ним не відповідає.',
            'The ACME value was removed; our server no longer answers with it.',
          ],
        })}
        <p class="lead">
          ${v.t('Зміни спершу збираються в план (він зберігається в адресі сторінки й не губиться), потім «Переглянути» показує всі перевірки, а «Застосувати» змінює зону.', 'Changes are first collected in a plan (kept in the page address, so it is never lost); "Review" then shows every check, and "Apply" changes the zone.')}
          ${serial !== null ? html`<span class="muted">Serial ${serial}.</span>` : ''}
        </p>
        ${
          draft.length > 0
            ? html`<section class="card" aria-labelledby="draft-h">
                <h2 id="draft-h">${v.t(`Чернетка плану: змін — ${draft.length}`, `Draft plan: ${draft.length} change(s)`)}</h2>
                ${diffTable(v, zone, draft, {
                  draftRemove: (i) =>
                    postForm(
                      v,
                      `${base(zone)}/draft`,
                      html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" /><input
                          type="hidden"
                          name="action"
                          value="drop"
                        /><input type="hidden" name="index" value="${i}" /><button class="small secondary" type="submit">
                          ${v.t('Прибрати', 'Remove')}
                        </button>`,
                      { cls: 'inline' },
                    ),
                })}
                ${postForm(
                  v,
                  `${base(zone)}/review`,
                  html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" />
                    <div class="actions">
                      <button type="submit">${v.t('Переглянути план', 'Review the plan')}</button>
                      <a class="button secondary" href="${base(zone)}">${v.t('Відкинути чернетку', 'Discard the draft')}</a>
                    </div>`,
                )}
              </section>`
            : ''
        }
        ${
          shownForm
            ? html`<section class="card" aria-labelledby="form-h" id="record-form">
                <h2 id="form-h">
                  ${shownForm.action === 'update' ? v.t('Змінити набір записів', 'Change a record set') : v.t('Новий набір записів', 'New record set')}
                </h2>
                ${recordForm(v, zone, draft, shownForm, form)}
              </section>`
            : html`<p class="actions">
                <a class="button" href="${editorUrl(zone, draft, 'add=1')}#record-form">${v.t('Додати запис', 'Add a record')}</a>
                <a class="button secondary" href="${base(zone)}/zone">${v.t('Завантажити файл зони', 'Download the zone file')}</a>
              </p>`
        }
        <form id="edit-set" method="get" action="${base(zone)}">
          ${draft.length ? html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" />` : ''}
        </form>
        ${postForm(v, `${base(zone)}/draft`, html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" /><input type="hidden" name="action" value="delete" />`, { cls: 'inline', id: 'delete-set' })}
        ${dataTable([v.t('Ім’я', 'Name'), v.t('Тип', 'Type'), 'TTL', v.t('Значення', 'Values'), html`<span class="muted">${v.t('Дії', 'Actions')}</span>`], recordRows(v, zone, records, inDraft), { caption: v.t(`Наборів записів: ${records.length}`, `${records.length} record sets`), id: 'records', cls: 'stack' })}
        <h2 id="import">${v.t('Імпорт файлу зони', 'Import a zone file')}</h2>
        <div class="card">
          <p>
            ${v.t('Вставте файл зони у форматі BIND: з нього буде зроблено план заміни всієї зони (SOA і NS вершини лишаються наші). Нічого не зміниться, доки ви не застосуєте план.', 'Paste a BIND zone file: it becomes a plan replacing the whole zone (the apex SOA and NS stay ours). Nothing changes until you apply the plan.')}
          </p>
          ${postForm(
            v,
            `${base(zone)}/review`,
            html`<label for="zone-file">${v.t('Файл зони', 'Zone file')}</label>
              <textarea id="zone-file" name="zone_file" rows="8" placeholder="$ORIGIN ${zone}.&#10;www 3600 IN A 203.0.113.10"></textarea>
              <div class="actions">
                <button type="submit" class="secondary">${v.t('Зробити план з файлу', 'Plan from the file')}</button>
              </div>`,
          )}
        </div>
        <p>
          <a class="button secondary" href="${base(zone)}/imports"
            >${v.t('Імпорт від нинішнього провайдера (файл зони або AXFR)', 'Import from the current provider (zone file or AXFR)')}</a
          >
        </p>
        <h2 id="acme">${v.t('Перевірки ACME (_acme-challenge)', 'ACME challenges (_acme-challenge)')}</h2>
        <div class="card">
          <p>
            ${v.t('Значення TXT для перевірки DNS-01: додаються до наявних, TTL 60 с, зникають самі через 24 години.', 'TXT values for the DNS-01 check: added next to the existing ones, TTL 60 s, gone by themselves after 24 hours.')}
          </p>
          ${
            challenges.length + typedInEditor.length === 0
              ? html`<p class="muted">${v.t('Зараз немає жодного значення.', 'There are no values now.')}</p>`
              : dataTable(
                  [
                    v.t('Ім’я', 'Name'),
                    v.t('Значення', 'Value'),
                    v.t('Зникне', 'Goes away'),
                    html`<span class="visually-hidden">${v.t('Дія', 'Action')}</span>`,
                  ],
                  [
                    ...challenges.map(
                      (c) =>
                        html`<tr>
                          <td class="mono">${c.name}</td>
                          <td class="mono">${c.value}</td>
                          <td>${when(c.expires_at, v)}</td>
                          <td>
                            ${postForm(
                              v,
                              `${base(zone)}/acme/${enc(c.id)}/remove`,
                              html`<button type="submit" class="danger small">
                                ${v.t('Прибрати', 'Remove')}<span class="visually-hidden"> ${c.name} ${c.value}</span>
                              </button>`,
                              {
                                cls: 'inline',
                                back: `${base(zone)}#acme`,
                                confirm: v.t(`Прибрати значення ${c.value} з ${c.name}?`, `Remove the value ${c.value} from ${c.name}?`),
                              },
                            )}
                          </td>
                        </tr>`,
                    ),
                    ...typedInEditor.map(
                      (x) =>
                        html`<tr>
                          <td class="mono">${x.name}</td>
                          <td class="mono">${x.value}</td>
                          <td colspan="2" class="muted">
                            ${v.t('введено в редакторі вище (там і змінюється)', 'typed in the editor above (changed there)')}
                          </td>
                        </tr>`,
                    ),
                  ],
                  { id: 'acme-values', cls: 'stack' },
                )
          }
          ${postForm(
            v,
            `${base(zone)}/acme`,
            html`<label for="acme-name">${v.t('Ім’я вузла', 'Host name')}</label>
              <input id="acme-name" name="name" type="text" placeholder="${zone}" />
              <label for="acme-value">${v.t('Значення', 'Value')}</label>
              <input id="acme-value" name="value" type="text" />
              <div class="actions"><button type="submit" class="secondary">${v.t('Додати значення', 'Add the value')}</button></div>`,
          )}
        </div>
        <h2 id="history">${v.t('Історія застосованих планів', 'Applied plans')}</h2>
        ${
          history.data.length === 0
            ? html`<p class="muted">${v.t('Ще жодного.', 'None yet.')}</p>`
            : dataTable(
                [v.t('Коли', 'When'), v.t('План', 'Plan'), 'Serial', v.t('Змін', 'Changes')],
                history.data.map((e) => {
                  const data = e.data as { plan_id?: string; serial?: number; counts?: Record<string, number> };
                  const c = data.counts ?? {};
                  return html`<tr>
                    <td data-label="${v.t('Коли', 'When')}">${when(e.created_at, v)}</td>
                    <td data-label="${v.t('План', 'Plan')}">
                      <a class="mono" href="${base(zone)}/plans/${enc(data.plan_id ?? '')}">${data.plan_id}</a>
                    </td>
                    <td class="num" data-label="Serial">${data.serial}</td>
                    <td data-label="${v.t('Змін', 'Changes')}">+${c.create ?? 0} ~${c.update ?? 0} −${c.delete ?? 0}</td>
                  </tr>`;
                }),
                { cls: 'stack', id: 'applied-plans', caption: v.t('Найновіші зверху (до 20).', 'Newest first (up to 20).') },
              )
        }`,
    };
  };

  const planPage = async (
    r: ConsoleRequest,
    plan: PlanView,
    extra: { error?: DomainError | null; stale?: boolean; unsafe?: boolean } = {},
    status?: number,
  ): Promise<PageOut> => {
    const v = r.view;
    const zone = plan.domain;
    const draft = draftOf(plan);
    const applied = plan.applied_at !== null;
    return {
      title: v.t('План DNS', 'DNS plan'),
      ...(status ? { status } : {}),
      body: html`<p><a href="${applied ? base(zone) : editorUrl(zone, draft)}">← ${v.t('До записів', 'Back to the records')}</a></p>
        <h1>
          ${applied ? v.t('Застосований план', 'Applied plan') : v.t('Перегляд плану', 'Plan review')} <small class="muted">${zone}</small>
        </h1>
        ${r.query.done === 'applied' ? alert('ok', v.t('План застосовано; наш DNS-сервер уже відповідає новими записами.', 'The plan was applied; our DNS server already answers with the new records.')) : ''}
        ${
          extra.stale
            ? alert(
                'error',
                html`<p>
                    <strong
                      >${v.t('Зона змінилася після того, як план було складено.', 'The zone changed after this plan was made.')}</strong
                    >
                    ${v.t('Хтось інший (людина, ключ або перевірка ACME) змінив ті самі записи, тому цей план не застосовано, щоб не затерти їхню зміну. Складіть план знову на зоні, як вона є зараз, перегляньте й застосуйте.', 'Someone else (a person, a key or an ACME check) changed the same records, so this plan was not applied, lest it overwrite their change. Plan it again on the zone as it is now, review it and apply it.')}
                  </p>
                  ${extra.error ? html`<p class="muted">${v.lang === 'uk' ? '' : ''}<code>${extra.error.code}</code></p>` : ''}
                  ${(extra.error?.details ?? []).length > 0 ? checkList(v, (extra.error?.details ?? []) as unknown as CheckResult[]) : ''}
                  ${postForm(
                    v,
                    `${base(zone)}/review`,
                    html`<input type="hidden" name="draft" value="${encodeDraft(draft)}" /><input
                        type="hidden"
                        name="refresh"
                        value="1"
                      /><button type="submit">${v.t('Скласти план знову', 'Plan it again')}</button>`,
                  )}`,
              )
            : errorBox(v, extra.error)
        }
        <dl class="kv card">
          <dt>${v.t('План', 'Plan')}</dt>
          <dd class="mono">${plan.id}</dd>
          <dt>${v.t('Складено на serial', 'Made on serial')}</dt>
          <dd>${plan.base_serial}</dd>
          <dt>${v.t('Змін', 'Changes')}</dt>
          <dd>+${plan.counts.create} ~${plan.counts.update} −${plan.counts.delete}</dd>
          <dt>${applied ? v.t('Застосовано', 'Applied') : v.t('Дійсний до', 'Valid until')}</dt>
          <dd>${when(applied ? plan.applied_at : plan.expires_at, v)}</dd>
        </dl>
        <h2>${v.t('Зміни по черзі', 'Changes, in order')}</h2>
        ${plan.changes.length === 0 ? html`<p>${v.t('План нічого не змінює.', 'The plan changes nothing.')}</p>` : diffTable(v, zone, plan.changes)}
        <h2>${v.t('Перевірки', 'Checks')}</h2>
        ${checkList(v, plan.checks)}
        ${
          applied
            ? ''
            : plan.valid
              ? plan.changes.length > 0 && !extra.stale
                ? postForm(
                    v,
                    `${base(zone)}/plans/${enc(plan.id)}/apply`,
                    html`${
                        extra.unsafe
                          ? html`<div class="choice">
                              <input id="force" name="force" type="checkbox" value="1" /><label for="force"
                                >${v.t('Так, я свідомо змінюю або видаляю понад 30% зони', 'Yes, I mean to change or delete over 30% of the zone')}</label
                              >
                            </div>`
                          : ''
                      }
                      <div class="actions">
                        <button type="submit">${v.t('Застосувати цей план', 'Apply this plan')}</button>
                        <a class="button secondary" href="${editorUrl(zone, draft)}"
                          >${v.t('Повернутися до редагування', 'Back to editing')}</a
                        >
                      </div>`,
                  )
                : ''
              : html`<p>
                  ${v.t('План має помилки, тому його не можна застосувати. Виправте їх у чернетці.', 'The plan has errors, so it cannot be applied. Fix them in the draft.')}
                  <a class="button" href="${editorUrl(zone, draft)}">${v.t('Повернутися до редагування', 'Back to editing')}</a>
                </p>`
        }`,
    };
  };

  /** The change the record form describes, as the API's change (TTL as typed: the schema judges it). */
  const changeFromForm = (r: ConsoleRequest): { change: ChangeInput; f: RecordForm } => {
    const action = field(r, 'action') === 'update' ? 'update' : 'create';
    const ttlText = field(r, 'ttl').trim();
    let current: RecordForm['current'];
    try {
      const c = JSON.parse(field(r, 'current') || 'null') as RecordForm['current'] | null;
      if (c && typeof c.ttl === 'number' && Array.isArray(c.values)) current = { ttl: c.ttl, values: c.values.map(String) };
    } catch {
      current = undefined;
    }
    const f: RecordForm = {
      action,
      name: field(r, 'name'),
      type: field(r, 'type'),
      ttl: ttlText,
      values: field(r, 'values'),
      ...(current ? { current } : {}),
    };
    const values = f.values
      .split(/\r?\n/)
      .map((x) => x.trim())
      .filter((x) => x !== '');
    // An empty TTL is what the API does without one: the default on a new set, the set's own TTL on a change.
    const ttl =
      ttlText === '' ? (action === 'update' && current ? current.ttl : DEFAULT_TTL) : /^-?\d+$/.test(ttlText) ? Number(ttlText) : ttlText;
    const change: ChangeInput = {
      action,
      name: f.name.trim(),
      type: f.type,
      ttl: ttl as number,
      values,
      ...(current ? { current } : {}),
    };
    return { change, f };
  };

  return [
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/dns$/,
      auth: true,
      handle: (r) => editor(r, decodeDraft(r.query.draft)),
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/draft$/,
      auth: true,
      handle: async (r) => {
        const zone = r.params[0]!;
        const draft = decodeDraft(field(r, 'draft'));
        const action = field(r, 'action');
        if (action === 'drop') {
          const i = Number(field(r, 'index'));
          return {
            redirect: editorUrl(
              zone,
              draft.filter((_, j) => j !== i),
            ),
          };
        }
        if (action === 'delete') {
          // The set as it is now is the delete's precondition: a change made meanwhile makes the plan stale.
          const [name = '', type = ''] = field(r, 'target').split('|');
          const set = (await uc.humanReads.domain(r.human!.actor, r.view.env, zone)).records.find(
            (x) => x.name === name && x.type === type,
          );
          if (!set) return { redirect: editorUrl(zone, draft) };
          const change: ChangeInput = { action: 'delete', name, type, current: { ttl: set.ttl, values: [...set.values] } };
          return { redirect: editorUrl(zone, [...draft, change]) };
        }
        const { change, f } = changeFromForm(r);
        const next = [...draft, change];
        // The API's own schema, then a plan of the draft with this change: its checks about this record set
        // are shown on the form, with what was typed; nothing is written to the zone.
        const judged = await attempt(async () => {
          validateBody(routes, 'createPlan', { changes: [change] });
          const key = await keyFor(uc, r);
          return uc.dnsPlans.create(key, zone, { changes: next });
        });
        if ('error' in judged) return editor(r, draft, { f, error: judged.error }, 422);
        const plan = judged.ok;
        const mine = plan.checks.filter(
          (c) => c.severity === 'error' && c.name === (plan.changes.at(-1)?.name ?? c.name) && (c.type === null || c.type === change.type),
        );
        const errors = mine.length > 0 ? mine : plan.valid ? [] : plan.checks.filter((c) => c.severity === 'error');
        if (errors.length > 0) return editor(r, draft, { f, checks: errors }, 422);
        return { redirect: editorUrl(zone, next) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/review$/,
      auth: true,
      handle: async (r) => {
        const zone = r.params[0]!;
        const zoneFile = field(r, 'zone_file');
        let draft = decodeDraft(field(r, 'draft'));
        if (field(r, 'refresh') === '1') draft = refreshed(draft, (await uc.humanReads.domain(r.human!.actor, r.view.env, zone)).records);
        const input = zoneFile.trim() !== '' ? { zone_file: zoneFile } : { changes: draft };
        const made = await attempt(async () => {
          validateBody(routes, 'createPlan', input);
          return uc.dnsPlans.create(await keyFor(uc, r), zone, input);
        });
        if ('error' in made)
          return editor(r, draft, undefined, 422).then((p) =>
            'body' in p ? { ...p, body: html`${errorBox(r.view, made.error)}${p.body}` } : p,
          );
        return { redirect: `${base(zone)}/plans/${enc(made.ok.id)}` };
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/plans\/([^/]+)$/,
      auth: true,
      handle: async (r) => {
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'getPlan', key, { params: { domain: r.params[0]!, id: r.params[1]! } });
        return planPage(r, await uc.dnsPlans.get(key, r.params[0]!, r.params[1]!));
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/plans\/([^/]+)\/apply$/,
      auth: true,
      handle: async (r) => {
        const [zone, id] = [r.params[0]!, r.params[1]!];
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'applyPlan', key, { params: { domain: zone, id } });
        const out = await attempt(() => uc.dnsPlans.apply(key, zone, id, { force: field(r, 'force') === '1' }, checkpoints(uc)));
        if ('ok' in out) return { redirect: `${base(zone)}/plans/${enc(id)}?done=applied` };
        const plan = await uc.dnsPlans.get(key, zone, id);
        const e = out.error;
        if (e.code === 'plan_stale' || e.code === 'plan_expired') return planPage(r, plan, { error: e, stale: true }, 409);
        if (e.code === 'plan_unsafe') return planPage(r, plan, { error: e, unsafe: true }, 409);
        // Already applied (a second tab, a repeated post): the plan's page says so, nothing is done twice.
        if (e.code === 'plan_already_applied') return { redirect: `${base(zone)}/plans/${enc(id)}` };
        return planPage(r, plan, { error: e }, 409);
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/zone$/,
      auth: true,
      handle: async (r) => {
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'exportZone', key, { params: { domain: r.params[0]! } });
        const text = await uc.readZone.zoneFile(key, r.params[0]!);
        return { file: { body: text, type: 'text/dns; charset=utf-8', name: `${r.params[0]!}.zone` } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/acme$/,
      auth: true,
      handle: async (r) => {
        const zone = r.params[0]!;
        const body = { name: field(r, 'name').trim(), value: field(r, 'value').trim() };
        const out = await attempt(async () => {
          validateBody(routes, 'addAcmeChallenge', body);
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'addAcmeChallenge', key, { params: { domain: zone }, body });
          return uc.acmeChallenges.add(key, zone, body, checkpoints(uc));
        });
        if ('error' in out)
          return editor(r, [], undefined, 422).then((p) =>
            'body' in p ? { ...p, body: html`${errorBox(r.view, out.error)}${p.body}` } : p,
          );
        return { redirect: `${base(zone)}?done=challenge#acme` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/acme\/([^/]+)\/remove$/,
      auth: true,
      handle: async (r) => {
        const [zone, id] = [r.params[0]!, r.params[1]!];
        const out = await attempt(async () => {
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'removeAcmeChallenge', key, { params: { domain: zone, id } });
          await uc.acmeChallenges.remove(key, zone, id, checkpoints(uc));
        });
        if ('error' in out)
          return editor(r, [], undefined, ERROR_TABLE[out.error.code].status).then((p) =>
            'body' in p ? { ...p, body: html`${errorBox(r.view, out.error)}${p.body}` } : p,
          );
        return { redirect: `${base(zone)}?done=challenge-removed#acme` };
      },
    },
  ];
};
