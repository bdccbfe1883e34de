import { EVENT_CATALOGUE, PUBLIC_EVENT_TYPES } from '../../../core/events/catalogue.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import type { WebhookView } from '../../../core/webhooks/webhook.js';
import { webhookRoutes } from '../routes/webhooks.routes.js';
import type { UseCases } from '../use-cases.js';
import {
  attempt,
  authorizeAs,
  doneBanner,
  enc,
  errorBox,
  field,
  fieldError,
  fieldMessages,
  keyFor,
  postForm,
  validateBody,
  when,
} from './acting.js';
import { html, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Webhooks and the event feed in the console (the same use cases as /v1/webhooks and /v1/events). A new
 * or rotated signing secret is shown once, after the redirect, through the console's one-time view (a sealed
 * cookie bound to the session, cleared by the first GET; see console.app.ts) — a reload shows that it was
 * already shown (rotate it if it was lost). Nothing is held in this process, so any node of a cluster serves it.
 */
const base = '/console/webhooks';

const PUBLIC = [...PUBLIC_EVENT_TYPES.keys()].sort();
const describe = (v: View, name: string) => {
  const t = PUBLIC_EVENT_TYPES.get(name);
  return t ? (v.lang === 'uk' ? EVENT_CATALOGUE[t].describe.uk : EVENT_CATALOGUE[t].describe.en) : '';
};
const lines = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);

interface HookForm {
  url: string;
  events: string[];
  domains: string;
}

export const webhookPages = (uc: UseCases): ConsolePage[] => {
  const routes = webhookRoutes(uc);
  /** The person's key, with the route's declared right checked as the API's middleware does. */
  const manageKey = async (r: ConsoleRequest, routeId: string, body?: unknown) => {
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, routeId, key, { ...(r.params[0] ? { params: { id: r.params[0] } } : {}), body });
    return key;
  };

  const form = (v: View, action: string, f: HookForm, e: DomainError | null | undefined, submit: string): Html =>
    postForm(
      v,
      action,
      html`<label for="wh-url">${v.t('Адреса (URL)', 'URL')}</label>
        <input
          id="wh-url"
          name="url"
          type="text"
          value="${f.url}"
          placeholder="https://example.com/hooks/domivka"
          ${fieldMessages(v, e, 'url').length || e?.code === 'webhook_url_refused' ? html`aria-invalid="true"` : ''}
        />
        ${fieldError(v, e, 'url')}
        <p class="hint">
          ${v.t('Публічна адреса https://; переспрямування не виконуються.', 'A public https:// address; redirects are not followed.')}
        </p>
        <fieldset class="events">
          <legend>${v.t('Події', 'Events')}</legend>
          ${fieldError(v, e, 'events')}
          <div class="choice">
            <input id="ev-all" type="checkbox" name="events" value="*" ${f.events.includes('*') ? html`checked` : ''} /><label for="ev-all"
              ><strong>${v.t('Усі події', 'Every event')}</strong>
              <small class="muted"
                >${v.t('(з цією позначкою окремі події нижче не потрібні: надходять усі)', '(with this ticked the events below need no ticks: all of them come)')}</small
              ></label
            >
          </div>
          ${PUBLIC.map(
            (n, i) =>
              html`<div class="choice">
                <input id="ev-${i}" type="checkbox" name="events" value="${n}" ${f.events.includes(n) ? html`checked` : ''} /><label
                  for="ev-${i}"
                  ><code>${n}</code> <small class="muted">${describe(v, n)}</small></label
                >
              </div>`,
          )}
        </fieldset>
        <label for="wh-domains">${v.t('Лише для доменів (необов’язково)', 'Only for domains (optional)')}</label>
        <input id="wh-domains" name="domains" type="text" value="${f.domains}" placeholder="example.com, example.net" />
        ${fieldError(v, e, 'domains')}
        <p class="hint">${v.t('Порожньо — усі домени.', 'Empty means every domain.')}</p>
        <div class="actions"><button type="submit">${submit}</button></div>`,
    );

  const bodyOf = (r: ConsoleRequest) => {
    const raw = r.form.events;
    const events = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    const f: HookForm = { url: field(r, 'url').trim(), events, domains: field(r, 'domains') };
    const domains = lines(f.domains);
    return { f, body: { url: f.url, events: events.includes('*') ? ['*'] : events, domains: domains.length ? domains : null } };
  };

  const list = async (r: ConsoleRequest, typed?: { f: HookForm; error: DomainError }): Promise<PageOut> => {
    const v = r.view;
    const hooks = await uc.webhooks.list(await manageKey(r, 'listWebhooks'), null, 100);
    return {
      title: v.t('Вебхуки', 'Webhooks'),
      ...(typed ? { status: 422 } : {}),
      body: html`<h1>${v.t('Вебхуки', 'Webhooks')}</h1>
        ${doneBanner(r, { deleted: ['Вебхук видалено.', 'The webhook was deleted.'] })}
        <p class="lead">
          ${v.t('Ми надсилаємо події на вашу адресу, підписані за Standard Webhooks. Усі події також є у стрічці:', 'We send events to your address, signed per Standard Webhooks. Every event is also in the feed:')}
          <a href="/console/events">${v.t('Стрічка подій', 'Event feed')}</a>
        </p>
        ${
          hooks.data.length === 0
            ? html`<p>${v.t('Вебхуків ще немає.', 'No webhooks yet.')}</p>`
            : dataTable(
                ['URL', v.t('Події', 'Events'), v.t('Стан', 'State')],
                hooks.data.map(
                  (w) =>
                    html`<tr>
                      <td class="mono"><a href="${base}/${enc(w.id)}">${w.url}</a></td>
                      <td data-label="${v.t('Події', 'Events')}">${eventsText(v, w.events)}</td>
                      <td data-label="${v.t('Стан', 'State')}">${statePill(v, w)}</td>
                    </tr>`,
                ),
                { id: 'webhooks', cls: 'stack' },
              )
        }
        <h2 id="new">${v.t('Новий вебхук', 'New webhook')}</h2>
        <div class="card">
          ${errorBox(v, typed?.error)}
          ${form(v, base, typed?.f ?? { url: '', events: ['*'], domains: '' }, typed?.error, v.t('Створити вебхук', 'Create the webhook'))}
        </div>`,
    };
  };

  const detail = async (r: ConsoleRequest, typed?: { f: HookForm; error: DomainError }): Promise<PageOut> => {
    const v = r.view;
    const key = await manageKey(r, 'getWebhook');
    const id = r.params[0]!;
    const w = await uc.webhooks.get(key, id);
    const deliveries = await uc.webhooks.deliveries(key, id, null, 50);
    const secret = r.once?.kind === 'webhook-secret' && r.once.data.id === id ? (r.once.data.secret ?? null) : null;
    const self = `${base}/${enc(w.id)}`;
    return {
      title: v.t('Вебхук', 'Webhook'),
      ...(typed ? { status: 422 } : {}),
      body: html`<p><a href="${base}">← ${v.t('Вебхуки', 'Webhooks')}</a></p>
        <h1>${v.t('Вебхук', 'Webhook')} <small class="muted mono wrap">${w.url}</small></h1>
        ${doneBanner(r, {
          created: ['Вебхук створено.', 'The webhook was created.'],
          rotated: ['Секрет замінено; старий підписує ще 24 години.', 'The secret was rotated; the old one keeps signing for 24 hours.'],
          saved: ['Зміни збережено.', 'The changes were saved.'],
          enabled: ['Вебхук увімкнено.', 'The webhook was enabled.'],
          disabled: ['Вебхук вимкнено.', 'The webhook was disabled.'],
          redelivered: ['Подію поставлено в чергу на повторне надсилання.', 'The event was queued to be sent again.'],
        })}
        ${
          secret
            ? alert(
                'info',
                html`<p>
                    <strong
                      >${v.t('Секрет підпису — показується лише зараз, один раз:', 'The signing secret — shown now, only once:')}</strong
                    >
                  </p>
                  <div class="secret">
                    <code id="wh-secret">${secret}</code
                    ><button type="button" class="secondary" data-copy="wh-secret" data-copied="${v.t('Скопійовано', 'Copied')}">
                      ${v.t('Копіювати', 'Copy')}
                    </button>
                  </div>
                  <p>
                    ${v.t('Збережіть його у своєму сервері. Якщо його буде втрачено — замініть.', 'Keep it in your server. If it is lost, rotate it.')}
                  </p>`,
              )
            : r.query.done === 'created' || r.query.done === 'rotated'
              ? alert(
                  'info',
                  v.t(
                    'Секрет уже було показано один раз. Якщо його втрачено — замініть його нижче.',
                    'The secret was already shown once. If it was lost, rotate it below.',
                  ),
                )
              : ''
        }
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'State')}</dt>
            <dd>${statePill(v, w)}</dd>
            <dt>${v.t('Події', 'Events')}</dt>
            <dd class="mono">${eventsText(v, w.events)}</dd>
            <dt>${v.t('Домени', 'Domains')}</dt>
            <dd>${w.domains ? w.domains.join(', ') : v.t('усі', 'all')}</dd>
            ${
              w.secret_rotation_ends_at
                ? html`<dt>${v.t('Старий секрет діє до', 'Old secret valid until')}</dt>
                    <dd>${when(w.secret_rotation_ends_at, v)}</dd>`
                : ''
            }
          </dl>
          <div class="actions">
            ${postForm(v, `${self}/${w.enabled ? 'disable' : 'enable'}`, html`<button type="submit" class="secondary">${w.enabled ? v.t('Вимкнути', 'Disable') : v.t('Увімкнути', 'Enable')}</button>`, { cls: 'inline' })}
            ${postForm(
              v,
              `${self}/rotate`,
              html`<button type="submit" class="secondary">${v.t('Замінити секрет', 'Rotate the secret')}</button>`,
              {
                cls: 'inline',
                confirm: v.t(
                  'Замінити секрет? Старий підписуватиме ще 24 години.',
                  'Rotate the secret? The old one keeps signing for 24 hours.',
                ),
              },
            )}
            ${postForm(v, `${self}/delete`, html`<button type="submit" class="danger">${v.t('Видалити', 'Delete')}</button>`, {
              cls: 'inline',
              confirm: v.t('Видалити цей вебхук?', 'Delete this webhook?'),
            })}
          </div>
        </div>
        <h2 id="deliveries">${v.t('Надсилання', 'Deliveries')}</h2>
        ${
          deliveries.data.length === 0
            ? html`<p>${v.t('Ще нічого не надсилали.', 'Nothing was sent yet.')}</p>`
            : dataTable(
                [
                  v.t('Подія', 'Event'),
                  v.t('Стан', 'Status'),
                  v.t('Спроби (код відповіді, затримка)', 'Attempts (response code, latency)'),
                  html`<span class="muted">${v.t('Дії', 'Actions')}</span>`,
                ],
                deliveries.data.map(
                  (d) =>
                    html`<tr>
                      <td><code>${d.event_type}</code><br /><span class="muted">${when(d.created_at, v)}</span></td>
                      <td data-label="${v.t('Стан', 'Status')}">
                        <span class="pill ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'bad' : 'warn'}">${d.status}</span>
                      </td>
                      <td data-label="${v.t('Спроби', 'Attempts')}">
                        ${d.attempt_log.map(
                          (a) =>
                            html`<span class="response-code"
                                >#${a.number}:
                                ${a.response_code ?? '—'}${a.latency_ms !== null ? ` · ${a.latency_ms} ms` : ''}${a.error ? ` · ${a.error}` : ''}</span
                              ><br />`,
                        )}
                      </td>
                      <td>
                        ${postForm(v, `${self}/deliveries/${enc(d.id)}/redeliver`, html`<button class="small secondary" type="submit">${v.t('Надіслати знову', 'Send again')}</button>`, { cls: 'inline' })}
                      </td>
                    </tr>`,
                ),
                { id: 'delivery-log', cls: 'stack' },
              )
        }
        <h2 id="edit">${v.t('Змінити', 'Edit')}</h2>
        <div class="card">
          ${errorBox(v, typed?.error)}
          ${form(v, self, typed?.f ?? { url: w.url, events: w.events, domains: (w.domains ?? []).join(', ') }, typed?.error, v.t('Зберегти', 'Save'))}
        </div>`,
    };
  };

  /**
   * The feed as a person reads one: newest at the top. The first page is the newest events; "Older" goes on
   * with `before` (the log's own cursor, walked backwards); "Newer" reads forwards from just above the page
   * with `after`, as the API does, and shows that page newest first too — pages stay contiguous either way.
   */
  const feed = async (r: ConsoleRequest): Promise<PageOut> => {
    const v = r.view;
    const type = r.query.type ?? '';
    const domain = (r.query.domain ?? '').trim();
    const cursor = (s: string | undefined) => (s !== undefined && /^\d{1,18}$/.test(s) ? BigInt(s) : null);
    const after = cursor(r.query.after);
    const before = after === null ? cursor(r.query.before) : null;
    const filters = { ...(type ? { types: type } : {}), ...(domain ? { domain } : {}), limit: 50 };
    const out = await attempt(async () => {
      const key = await keyFor(uc, r);
      if (after === null) {
        const page = await uc.listEvents.newestFirst(key, { ...filters, ...(before !== null ? { before: String(before) } : {}) });
        return {
          data: page.data,
          older: page.has_more && page.next_cursor ? page.next_cursor : null,
          // Everything at or above `before` is newer than this page.
          newer: before !== null && before > 0n ? String(before - 1n) : null,
        };
      }
      const page = await uc.listEvents.execute(key, { ...filters, after: String(after) });
      return {
        data: [...page.data].reverse(),
        // Everything at or below `after` is older than this page.
        older: String(after + 1n),
        newer: page.has_more && page.next_cursor ? page.next_cursor : null,
      };
    });
    const qs = (at: Record<string, string>) =>
      `/console/events?${new URLSearchParams({ ...(type ? { type } : {}), ...(domain ? { domain } : {}), ...at }).toString()}`;
    const paging =
      'ok' in out
        ? html`<p class="actions" id="events-paging">
            ${after !== null || before !== null ? html`<a class="button secondary" href="${qs({})}">${v.t('Найновіші', 'Newest')}</a>` : ''}
            ${out.ok.newer !== null ? html`<a class="button secondary" href="${qs({ after: out.ok.newer })}" rel="prev">${v.t('Новіші', 'Newer')}</a>` : ''}
            ${out.ok.older !== null ? html`<a class="button secondary" href="${qs({ before: out.ok.older })}" rel="next">${v.t('Старіші', 'Older')}</a>` : ''}
          </p>`
        : '';
    return {
      title: v.t('Події', 'Events'),
      body: html`<h1>${v.t('Стрічка подій', 'Event feed')}</h1>
        <p class="lead">
          ${v.t('Усе, що сталося в обліковому записі, за 30 днів — найновіше зверху.', 'Everything that happened in the account, kept 30 days — newest first.')}
        </p>
        <form method="get" action="/console/events" class="filters">
          <div>
            <label for="ev-type">${v.t('Вид', 'Type')}</label>
            <select id="ev-type" name="type">
              <option value="">${v.t('усі', 'all')}</option>
              ${PUBLIC.map((n) => html`<option value="${n}" ${n === type ? html`selected` : ''}>${n}</option>`)}
            </select>
          </div>
          <div>
            <label for="ev-domain">${v.t('Домен', 'Domain')}</label><input id="ev-domain" name="domain" type="text" value="${domain}" />
          </div>
          <button type="submit">${v.t('Показати', 'Show')}</button>
          <a href="/console/events">${v.t('Скинути', 'Reset')}</a>
        </form>
        ${'error' in out ? errorBox(v, out.error) : ''}
        ${
          'ok' in out
            ? out.ok.data.length === 0
              ? html`<p>${v.t('Подій немає.', 'No events.')}</p>`
              : html`${dataTable(
                  [v.t('Коли', 'When'), v.t('Подія', 'Event'), v.t('Домен', 'Domain'), v.t('Дані', 'Data')],
                  out.ok.data.map(
                    (e) =>
                      html`<tr>
                        <td data-label="${v.t('Коли', 'When')}">${when(e.created_at, v)}</td>
                        <td data-label="${v.t('Подія', 'Event')}">
                          <code>${e.type}</code><br /><small class="muted">${describe(v, e.type)}</small>
                        </td>
                        <td data-label="${v.t('Домен', 'Domain')}">${e.domain ?? '—'}</td>
                        <td class="mono" data-label="${v.t('Дані', 'Data')}">${dataLines(v, e.data)}</td>
                      </tr>`,
                  ),
                  { id: 'events', cls: 'stack' },
                )}`
            : ''
        }
        ${paging}`,
    };
  };

  return [
    { method: 'GET', pattern: /^\/console\/events$/, auth: true, handle: feed },
    { method: 'GET', pattern: /^\/console\/webhooks$/, auth: true, handle: (r) => list(r) },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks$/,
      auth: true,
      handle: async (r) => {
        const { f, body } = bodyOf(r);
        const out = await attempt(async () => {
          validateBody(routes, 'createWebhook', body);
          return uc.webhooks.create(await manageKey(r, 'createWebhook', body), body);
        });
        if ('error' in out) return list(r, { f, error: out.error });
        return {
          redirect: `${base}/${enc(out.ok.id)}?done=created`,
          once: { kind: 'webhook-secret', data: { id: out.ok.id, secret: out.ok.secret } },
        };
      },
    },
    { method: 'GET', pattern: /^\/console\/webhooks\/([^/]+)$/, auth: true, handle: (r) => detail(r) },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks\/([^/]+)$/,
      auth: true,
      handle: async (r) => {
        const id = r.params[0]!;
        const { f, body } = bodyOf(r);
        const out = await attempt(async () => {
          validateBody(routes, 'updateWebhook', body);
          return uc.webhooks.update(await manageKey(r, 'updateWebhook', body), id, body);
        });
        if ('error' in out) return detail(r, { f, error: out.error });
        return { redirect: `${base}/${enc(id)}?done=saved` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks\/([^/]+)\/(enable|disable)$/,
      auth: true,
      handle: async (r) => {
        const [id, what] = [r.params[0]!, r.params[1]!];
        await uc.webhooks.update(await manageKey(r, 'updateWebhook'), id, { enabled: what === 'enable' });
        return { redirect: `${base}/${enc(id)}?done=${what}d` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks\/([^/]+)\/rotate$/,
      auth: true,
      handle: async (r) => {
        const id = r.params[0]!;
        const w = await uc.webhooks.rotateSecret(await manageKey(r, 'rotateWebhookSecret'), id);
        return { redirect: `${base}/${enc(id)}?done=rotated`, once: { kind: 'webhook-secret', data: { id, secret: w.secret } } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks\/([^/]+)\/delete$/,
      auth: true,
      handle: async (r) => {
        await uc.webhooks.delete(await manageKey(r, 'deleteWebhook'), r.params[0]!);
        return { redirect: `${base}?done=deleted` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/webhooks\/([^/]+)\/deliveries\/([^/]+)\/redeliver$/,
      auth: true,
      handle: async (r) => {
        const id = r.params[0]!;
        await uc.webhooks.redeliver(await manageKey(r, 'redeliverWebhook'), id, r.params[1]!);
        return { redirect: `${base}/${enc(id)}?done=redelivered#deliveries` };
      },
    },
  ];
};

/** An event's data as "field: value" lines (nested objects on one line), not raw JSON. */
/**
 * An event's data value as a person reads it: a text in both languages ({uk, en}) in the page's language,
 * a list item by item, an object as its fields — never "[object Object]".
 */
const dataText = (v: View, x: unknown, depth = 0): string => {
  if (x === null || x === undefined) return '—';
  if (Array.isArray(x)) return x.map((i) => dataText(v, i, depth + 1)).join('; ');
  if (typeof x !== 'object') return String(x);
  const o = x as Record<string, unknown>;
  if (typeof o.uk === 'string' && typeof o.en === 'string') return v.t(o.uk, o.en);
  if (depth > 3) return JSON.stringify(o);
  return Object.entries(o)
    .map(([a, b]) => `${a} ${dataText(v, b, depth + 1)}`)
    .join(', ');
};

/** A webhook's subscription as a person reads it: "*" is every event. */
const eventsText = (v: View, events: readonly string[]): string =>
  events.includes('*') ? v.t('усі події', 'every event') : events.join(', ');

const dataLines = (v: View, data: Readonly<Record<string, unknown>>): Html[] =>
  Object.entries(data).map(([k, x]) => html`<span class="muted">${k}:</span> ${dataText(v, x)}<br />`);

const statePill = (v: View, w: WebhookView) =>
  w.enabled
    ? html`<span class="pill ok">${v.t('увімкнено', 'enabled')}</span>`
    : html`<span class="pill bad"
        >${v.t('вимкнено', 'disabled')}${w.disabled_reason === 'gone' ? v.t(' (адреса відповіла 410)', ' (the URL answered 410)') : w.disabled_reason === 'failing' ? v.t(' (надсилання не вдаються)', ' (deliveries keep failing)') : ''}</span
      >`;
