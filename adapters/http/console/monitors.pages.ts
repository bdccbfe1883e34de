import { DNS_MONITOR_TYPES, MONITOR_KINDS } from '../../../core/monitoring/monitor.js';
import type { MonitorView } from '../../../core/monitoring/monitor-view.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { monitorRoutes } from '../routes/monitors.routes.js';
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
import { html, raw, type Html } from './html.js';
import type { View } from './layout.js';
import { pageHead } from './fields.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Monitoring in the console: create, edit, delete checks (the same use cases as /v1/monitors) and each
 * check's history as charts drawn on the server as inline SVG — readable without JavaScript, with the
 * numbers also in text for screen readers — plus the 24 h / 7 d / 30 d report.
 */
type Kind = (typeof MONITOR_KINDS)[number];
const base = '/console/monitors';

/** What a check looks at, in a line: "www A → 192.0.2.99", a URL, "host:port", or nothing (an expiry check). */
const targetOf = (v: View, m: MonitorView): string => {
  switch (m.kind) {
    case 'dns': {
      const expected = Array.isArray(m.expected) && m.expected.length > 0 ? ` → ${(m.expected as string[]).join(', ')}` : '';
      return `${String(m.name)} ${String(m.type)}${expected}`;
    }
    case 'http':
      return String(m.url);
    case 'tls':
      return `${String(m.host)}:${String(m.port)}`;
    case 'domain_expiry':
      return v.t(`щонайменше ${String(m.min_days_valid)} дн. до кінця строку`, `at least ${String(m.min_days_valid)} day(s) before expiry`);
    default:
      return '';
  }
};

const kindName = (v: View, k: string) =>
  ({
    dns: v.t('DNS-відповідь', 'DNS answer'),
    http: v.t('Вебсторінка (HTTP)', 'Web page (HTTP)'),
    tls: v.t('Сертифікат TLS', 'TLS certificate'),
    domain_expiry: v.t('Закінчення домену', 'Domain expiry'),
  })[k] ?? k;

/** The kind's fields: [name, uk label, en label, uk hint, en hint, input type]. */
const FIELDS: Record<Kind, Array<[string, string, string, string, string, 'text' | 'number' | 'lines' | 'type']>> = {
  dns: [
    ['name', 'Ім’я', 'Name', '@ — сам домен; інше — відносно домену.', '@ is the domain itself; others are relative to it.', 'text'],
    ['type', 'Тип запису', 'Record type', '', '', 'type'],
    [
      'expected',
      'Очікувані значення',
      'Expected values',
      'Одне в рядку; порожньо — будь-яка відповідь.',
      'One per line; empty means any answer.',
      'lines',
    ],
    [
      'nameservers',
      'Додаткові сервери імен',
      'Extra nameservers',
      'IP-адреси, одна в рядку (крім нашого сервера).',
      'IP addresses, one per line (besides our server).',
      'lines',
    ],
  ],
  http: [
    [
      'url',
      'Адреса',
      'URL',
      'http:// або https:// у вашому домені; переспрямування не виконуються.',
      'http:// or https:// in your domain; redirects are not followed.',
      'text',
    ],
    ['expected_status', 'Очікуваний код', 'Expected status', 'Типово 200.', '200 by default.', 'number'],
    ['body_contains', 'Сторінка містить', 'The page contains', 'Необов’язково.', 'Optional.', 'text'],
    [
      'max_latency_ms',
      'Найдовша затримка, мс',
      'Longest latency, ms',
      'Повільніше — вважається збоєм.',
      'Slower counts as down.',
      'number',
    ],
  ],
  tls: [
    ['host', 'Вузол', 'Host', 'Типово сам домен.', 'The domain by default.', 'text'],
    ['port', 'Порт', 'Port', 'Типово 443.', '443 by default.', 'number'],
    ['min_days_valid', 'Попередити за днів', 'Warn days before', 'Типово 14.', '14 by default.', 'number'],
  ],
  domain_expiry: [['min_days_valid', 'Попередити за днів', 'Warn days before', 'Типово 30.', '30 by default.', 'number']],
};

const asNumber = (s: string): number | string => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : s.trim());
const lines = (s: string) =>
  s
    .split(/\r?\n/)
    .map((x) => x.trim())
    .filter(Boolean);

/** The API body from the form: only the kind's fields that were filled (the use case applies defaults). */
const bodyOf = (kind: Kind, f: Record<string, string>, withDomain: boolean): Record<string, unknown> => {
  const b: Record<string, unknown> = withDomain ? { kind, domain: f.domain ?? '' } : {};
  if ((f.interval_seconds ?? '').trim() !== '') b.interval_seconds = asNumber(f.interval_seconds!);
  b.enabled = f.enabled === '1';
  for (const [name, , , , , type] of FIELDS[kind]) {
    const raw = f[name] ?? '';
    if (type === 'lines') {
      if (raw.trim() !== '' || !withDomain) b[name] = name === 'expected' && raw.trim() === '' ? null : lines(raw);
    } else if (raw.trim() !== '') b[name] = type === 'number' ? asNumber(raw) : raw.trim();
  }
  return b;
};

const formOf = (m: MonitorView): Record<string, string> => {
  const f: Record<string, string> = { domain: m.domain, interval_seconds: String(m.interval_seconds), enabled: m.enabled ? '1' : '' };
  for (const [name] of FIELDS[m.kind as Kind] ?? []) {
    const x = m[name];
    f[name] = Array.isArray(x) ? x.join('\n') : x === null || x === undefined ? '' : String(x);
  }
  return f;
};

// ── the charts ─────────────────────────────────────────────────────────────────────────────────────
interface Bucket {
  from: number;
  checks: number;
  ok: number;
  latencies: number[];
}
const W = 720;
const H = 190;

/** Uptime bars (height = share of passed checks) and the mean latency line, per bucket. */
export const chartSvg = (v: View, title: string, buckets: Bucket[], labelOf: (t: number) => string): Html => {
  const n = buckets.length;
  const bw = (W - 50) / n;
  const lat = buckets.map((b) => (b.latencies.length ? b.latencies.reduce((s, x) => s + x, 0) / b.latencies.length : null));
  const measured = lat.some((x) => x !== null);
  const maxLat = Math.max(1, ...lat.map((x) => x ?? 0));
  const checks = buckets.reduce((s, b) => s + b.checks, 0);
  const ok = buckets.reduce((s, b) => s + b.ok, 0);
  const up = checks ? ((ok / checks) * 100).toFixed(2) : null;
  const summary =
    up === null
      ? v.t(`${title}: перевірок ще не було.`, `${title}: no checks yet.`)
      : v.t(
          `${title}: доступність ${up}% за ${checks} перевірок; ${measured ? `найбільша середня затримка ${Math.round(maxLat)} мс` : 'затримку ця перевірка не вимірює'}.`,
          `${title}: ${up}% up over ${checks} check(s); ${measured ? `highest mean latency ${Math.round(maxLat)} ms` : 'this kind of check measures no latency'}.`,
        );
  const bars = buckets
    .map((b, i) => {
      const x = 40 + i * bw;
      if (b.checks === 0)
        return `<rect class="none" x="${x.toFixed(1)}" y="96" width="${Math.max(1, bw - 1).toFixed(1)}" height="4"><title>${labelOf(b.from)}: —</title></rect>`;
      const share = b.ok / b.checks;
      const h = Math.max(4, share * 90);
      const cls = share === 1 ? 'up' : 'down';
      return `<rect class="${cls}" x="${x.toFixed(1)}" y="${(100 - h).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h.toFixed(1)}"><title>${labelOf(b.from)}: ${b.ok}/${b.checks}</title></rect>`;
    })
    .join('');
  const points = lat
    .map((x, i) => (x === null ? null : `${(40 + i * bw + bw / 2).toFixed(1)},${(180 - (x / maxLat) * 60).toFixed(1)}`))
    .filter((p): p is string => p !== null);
  const line =
    points.length > 1
      ? `<polyline class="lat" points="${points.join(' ')}"/>`
      : points.length === 1
        ? `<circle class="lat" cx="${points[0]!.split(',')[0]}" cy="${points[0]!.split(',')[1]}" r="2"/>`
        : '';
  const ticks = [0, Math.floor(n / 2), n - 1]
    .map(
      (i, j) =>
        `<text x="${(40 + i * bw + (j === 2 ? bw : 0)).toFixed(1)}" y="${H - 2}" text-anchor="${['start', 'middle', 'end'][j]}">${labelOf(buckets[i]!.from)}</text>`,
    )
    .join('');
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  return html`<figure>
    <figcaption><strong>${title}</strong></figcaption>
    ${raw(
      `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(summary)}" xmlns="http://www.w3.org/2000/svg">` +
        `<text x="0" y="12">${esc(v.t('доступність', 'uptime'))}</text><line class="axis" x1="40" y1="100" x2="${W - 10}" y2="100"/>` +
        bars +
        `<text x="0" y="124">${esc(v.t('затримка', 'latency'))}</text><text x="0" y="138">${measured ? `${Math.round(maxLat)} ms` : '—'}</text><line class="axis" x1="40" y1="180" x2="${W - 10}" y2="180"/>` +
        line +
        ticks +
        `</svg>`,
    )}
    <p class="muted">${summary}</p>
  </figure>`;
};

const bucketize = (
  results: Array<{ checked_at: string; ok: boolean; latency_ms: number | null }>,
  end: number,
  size: number,
  count: number,
): Bucket[] => {
  const start = end - size * count;
  const out: Bucket[] = Array.from({ length: count }, (_, i) => ({ from: start + i * size, checks: 0, ok: 0, latencies: [] }));
  for (const r of results) {
    const t = Date.parse(r.checked_at);
    const i = Math.floor((t - start) / size);
    if (i < 0 || i >= count) continue;
    const b = out[i]!;
    b.checks++;
    if (r.ok) b.ok++;
    if (r.latency_ms !== null) b.latencies.push(r.latency_ms);
  }
  return out;
};

export const monitorPages = (uc: UseCases): ConsolePage[] => {
  const routes = monitorRoutes(uc);

  const editForm = async (
    r: ConsoleRequest,
    kind: Kind,
    f: Record<string, string>,
    opts: { id?: string; error?: DomainError | null },
  ): Promise<Html> => {
    const v = r.view;
    const domains = (await uc.humanReads.domainList(r.human!.actor, v.env)).map((d) => d.domain);
    const e = opts.error;
    const inv = (n: string) => (fieldMessages(v, e, n).length ? html` aria-invalid="true"` : '');
    return html`${errorBox(v, e)}
    ${postForm(
      v,
      opts.id ? `${base}/${enc(opts.id)}` : base,
      html`<input type="hidden" name="kind" value="${kind}" />
        ${
          opts.id
            ? html`<p>${kindName(v, kind)} · <strong>${f.domain}</strong></p>`
            : html`<label for="mon-domain">${v.t('Домен', 'Domain')}</label>
                <select id="mon-domain" name="domain" ${inv('domain')}>
                  ${domains.map((d) => html`<option value="${d}" ${d === f.domain ? html`selected` : ''}>${d}</option>`)}
                </select>
                ${fieldError(v, e, 'domain')}`
        }
        ${FIELDS[kind].map(([name, uk, en, hintUk, hintEn, type]) => {
          const id = `mon-${name}`;
          const input =
            type === 'lines'
              ? html`<textarea id="${id}" name="${name}" rows="3" ${inv(name)}>${f[name] ?? ''}</textarea>`
              : type === 'type'
                ? html`<select id="${id}" name="${name}">
                    ${DNS_MONITOR_TYPES.map((t) => html`<option value="${t}" ${t === (f[name] || 'A') ? html`selected` : ''}>${t}</option>`)}
                  </select>`
                : html`<input
                    id="${id}"
                    name="${name}"
                    type="text"
                    ${type === 'number' ? html`inputmode="numeric"` : ''}
                    value="${f[name] ?? ''}"
                    ${inv(name)}
                  />`;
          return html`<label for="${id}">${v.t(uk, en)}</label
            >${input}${fieldError(v, e, name)}${hintUk ? html`<p class="hint">${v.t(hintUk, hintEn)}</p>` : ''}`;
        })}
        <label for="mon-interval">${v.t('Як часто, секунд', 'How often, seconds')}</label>
        <input
          id="mon-interval"
          name="interval_seconds"
          type="text"
          inputmode="numeric"
          value="${f.interval_seconds ?? '300'}"
          ${inv('interval_seconds')}
        />
        ${fieldError(v, e, 'interval_seconds')}
        <p class="hint">${v.t('Щонайменше 60 у робочому середовищі, 10 у пісочниці.', 'At least 60 in live, 10 in the sandbox.')}</p>
        <div class="choice">
          <input id="mon-enabled" name="enabled" type="checkbox" value="1" ${f.enabled === '1' ? html`checked` : ''} />
          <label for="mon-enabled">${v.t('Увімкнено', 'Enabled')}</label>
        </div>
        <div class="actions">
          <button type="submit">${opts.id ? v.t('Зберегти', 'Save') : v.t('Створити перевірку', 'Create the check')}</button>
        </div>`,
    )}`;
  };

  const listPage = async (r: ConsoleRequest): Promise<PageOut> => {
    const v = r.view;
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, 'listMonitors', key, {});
    const page = await uc.monitors.list.execute(key, { limit: 200 });
    return {
      title: v.t('Моніторинг', 'Monitoring'),
      body: html`<h1>${v.t('Моніторинг', 'Monitoring')}</h1>
        ${doneBanner(r, { deleted: ['Перевірку видалено разом з історією.', 'The check was deleted with its history.'] })}
        <p class="actions">
          ${MONITOR_KINDS.map((k) => html`<a class="button secondary" href="${base}/new?kind=${k}">+ ${kindName(v, k)}</a>`)}
        </p>
        ${
          page.data.length === 0
            ? html`<p>${v.t('Перевірок ще немає.', 'No checks yet.')}</p>`
            : dataTable(
                [v.t('Перевірка', 'Check'), v.t('Домен', 'Domain'), v.t('Стан', 'State'), v.t('Остання', 'Last checked')],
                page.data.map(
                  (m) =>
                    html`<tr>
                      <td>
                        <a href="${base}/${enc(m.id)}">${kindName(v, m.kind)}</a
                        >${m.enabled ? '' : html` <span class="pill">${v.t('призупинено', 'paused')}</span>`}<br /><span class="mono wrap"
                          >${targetOf(v, m)}</span
                        >
                      </td>
                      <td data-label="${v.t('Домен', 'Domain')}">${m.domain}</td>
                      <td data-label="${v.t('Стан', 'State')}">${statePill(v, m.state)}</td>
                      <td data-label="${v.t('Остання', 'Last checked')}">${when(m.last_checked_at, v)}</td>
                    </tr>`,
                ),
                { id: 'monitors', cls: 'stack' },
              )
        }`,
    };
  };

  const detail = async (r: ConsoleRequest, edit?: { f: Record<string, string>; error: DomainError }): Promise<PageOut> => {
    const v = r.view;
    const key = await keyFor(uc, r);
    const id = r.params[0]!;
    const m = await uc.monitors.get.execute(key, id);
    const [day, week, month] = await Promise.all(['24h', '7d', '30d'].map((p) => uc.monitors.report.execute(key, id, p as '24h')));
    // The report ends now; a check made at this very instant belongs to the last bucket too.
    const end = Date.parse(month!.to) + 1000;
    const results: Array<{ checked_at: string; ok: boolean; latency_ms: number | null }> = [];
    let cursor: string | undefined;
    do {
      const p = await uc.monitors.results.execute(key, id, { from: month!.from, limit: 200, ...(cursor ? { cursor } : {}) });
      results.push(...p.data);
      cursor = p.next_cursor ?? undefined;
    } while (cursor && results.length < 10_000);
    const hour = 3600_000;
    const fmt = (o: Intl.DateTimeFormatOptions) => (t: number) =>
      new Date(t).toLocaleString(v.lang === 'uk' ? 'uk-UA' : 'en-GB', { timeZone: v.tz, ...o });
    const reports = [
      [v.t('24 години', '24 hours'), day!],
      [v.t('7 днів', '7 days'), week!],
      [v.t('30 днів', '30 days'), month!],
    ] as const;
    return {
      title: v.t('Перевірка', 'Check'),
      ...(edit ? { status: 422 } : {}),
      body: html`${pageHead({ href: base, label: v.t('Моніторинг', 'Monitoring') }, kindName(v, m.kind), `${m.domain} · ${targetOf(v, m)}`)}
        ${doneBanner(r, { created: ['Перевірку створено.', 'The check was created.'], saved: ['Зміни збережено.', 'The changes were saved.'] })}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'State')}</dt>
            <dd>${statePill(v, m.state)}${m.last_failure_reason ? html` <span class="muted">${m.last_failure_reason}</span>` : ''}</dd>
            <dt>${v.t('Остання перевірка', 'Last checked')}</dt>
            <dd>${when(m.last_checked_at, v)}</dd>
            <dt>${v.t('Наступна', 'Next')}</dt>
            <dd>${m.enabled ? when(m.next_check_at, v) : v.t('призупинено', 'paused')}</dd>
          </dl>
        </div>
        <h2 id="charts">${v.t('Історія', 'History')}</h2>
        ${chartSvg(v, v.t('Останні 24 години (щогодини)', 'The last 24 hours (hourly)'), bucketize(results, end, hour, 24), fmt({ hour: '2-digit', minute: '2-digit' }))}
        ${chartSvg(v, v.t('Останні 30 днів (щодня)', 'The last 30 days (daily)'), bucketize(results, end, 24 * hour, 30), fmt({ day: 'numeric', month: 'short' }))}
        <h2 id="report">${v.t('Звіт', 'Report')}</h2>
        ${dataTable(
          [
            v.t('Період', 'Period'),
            { head: v.t('Перевірок', 'Checks'), cls: 'num' },
            { head: v.t('Збоїв', 'Failures'), cls: 'num' },
            { head: v.t('Доступність', 'Uptime'), cls: 'num' },
            { head: v.t('Затримка p50 / p95', 'Latency p50 / p95'), cls: 'num' },
            { head: v.t('Інцидентів', 'Incidents'), cls: 'num' },
          ],
          reports.map(
            ([label, rep]) =>
              html`<tr>
                <th scope="row">${label}</th>
                <td class="num" data-label="${v.t('Перевірок', 'Checks')}">${rep.checks}</td>
                <td class="num" data-label="${v.t('Збоїв', 'Failures')}">${rep.failures}</td>
                <td class="num" data-label="${v.t('Доступність', 'Uptime')}">
                  ${rep.uptime_percent === null ? '—' : `${rep.uptime_percent}%`}
                </td>
                <td class="num" data-label="${v.t('Затримка', 'Latency')}">
                  ${rep.latency_ms.p50 ?? '—'} / ${rep.latency_ms.p95 ?? '—'} ms
                </td>
                <td class="num" data-label="${v.t('Інцидентів', 'Incidents')}">${rep.incidents.length}</td>
              </tr>`,
          ),
          { id: 'report-table', cls: 'stack' },
        )}
        ${
          month!.incidents.length > 0
            ? html`<h3>${v.t('Інциденти за 30 днів', 'Incidents in 30 days')}</h3>
                <ul>
                  ${month!.incidents.map((i) => html`<li>${when(i.started_at, v)} — ${i.ended_at ? when(i.ended_at, v) : v.t('триває', 'ongoing')}: ${i.reason ?? ''}</li>`)}
                </ul>`
            : ''
        }
        <h2 id="edit">${v.t('Змінити', 'Edit')}</h2>
        <div class="card">${await editForm(r, m.kind as Kind, edit?.f ?? formOf(m), { id: m.id, error: edit?.error ?? null })}</div>
        ${postForm(
          v,
          `${base}/${enc(m.id)}/delete`,
          html`<button class="danger" type="submit">${v.t('Видалити перевірку', 'Delete the check')}</button>`,
          { confirm: v.t('Видалити перевірку разом з історією?', 'Delete the check with its history?') },
        )}`,
    };
  };

  return [
    { method: 'GET', pattern: /^\/console\/monitors$/, auth: true, handle: listPage },
    {
      method: 'GET',
      pattern: /^\/console\/monitors\/new$/,
      auth: true,
      handle: async (r) => {
        const v = r.view;
        const kind = (MONITOR_KINDS as readonly string[]).includes(r.query.kind ?? '') ? (r.query.kind as Kind) : 'dns';
        return {
          title: v.t('Нова перевірка', 'New check'),
          body: html`${pageHead({ href: base, label: v.t('Моніторинг', 'Monitoring') }, `${v.t('Нова перевірка', 'New check')}: ${kindName(v, kind)}`)}
            <div class="card">
              ${await editForm(r, kind, { enabled: '1', interval_seconds: '300', domain: r.query.domain ?? '' }, {})}
            </div>`,
        };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/monitors$/,
      auth: true,
      handle: async (r) => {
        const kind = (MONITOR_KINDS as readonly string[]).includes(field(r, 'kind')) ? (field(r, 'kind') as Kind) : 'dns';
        const f = Object.fromEntries(Object.keys(r.form).map((k) => [k, field(r, k)]));
        const out = await attempt(async () => {
          const body = bodyOf(kind, f, true);
          validateBody(routes, 'createMonitor', body);
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'createMonitor', key, { body });
          return uc.monitors.create.execute(key, body as never);
        });
        if ('error' in out) {
          const v = r.view;
          return {
            status: 422,
            title: v.t('Нова перевірка', 'New check'),
            body: html`${pageHead({ href: base, label: v.t('Моніторинг', 'Monitoring') }, `${v.t('Нова перевірка', 'New check')}: ${kindName(v, kind)}`)}
              <div class="card">${await editForm(r, kind, f, { error: out.error })}</div>`,
          };
        }
        return { redirect: `${base}/${enc(out.ok.id)}?done=created` };
      },
    },
    { method: 'GET', pattern: /^\/console\/monitors\/([^/]+)$/, auth: true, handle: (r) => detail(r) },
    {
      method: 'POST',
      pattern: /^\/console\/monitors\/([^/]+)$/,
      auth: true,
      handle: async (r) => {
        const id = r.params[0]!;
        const key = await keyFor(uc, r);
        const m = await uc.monitors.get.execute(key, id);
        const f = { ...Object.fromEntries(Object.keys(r.form).map((k) => [k, field(r, k)])), domain: m.domain };
        const out = await attempt(async () => {
          const body = bodyOf(m.kind as Kind, f, false);
          validateBody(routes, 'updateMonitor', body);
          return uc.monitors.update.execute(key, id, body as never);
        });
        if ('error' in out) return detail(r, { f, error: out.error });
        return { redirect: `${base}/${enc(id)}?done=saved` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/monitors\/([^/]+)\/delete$/,
      auth: true,
      handle: async (r) => {
        await uc.monitors.delete.execute(await keyFor(uc, r), r.params[0]!);
        return { redirect: `${base}?done=deleted` };
      },
    },
  ];
};

const statePill = (v: View, s: string) =>
  html`<span class="pill ${s === 'ok' ? 'ok' : s === 'failing' ? 'bad' : 'warn'}"
    >${({ ok: v.t('працює', 'up'), failing: v.t('збій', 'failing'), pending: v.t('ще не перевірено', 'not checked yet') } as Record<string, string>)[s] ?? s}</span
  >`;
