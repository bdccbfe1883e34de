import type { ZoneImportView } from '../../../core/dns/imports/zone-import.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { dnsRoutes } from '../routes/dns.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, enc, field, fieldError, keyFor, postForm, validateBody } from './acting.js';
import { errorText } from './error-text.js';
import { html, raw, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { pageHead } from './fields.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Zone import in the console: paste a zone file, or name an AXFR server (and a TSIG key) — the same use
 * case as POST /v1/domains/{d}/dns/imports. The import ends in an unapplied plan, reviewed and applied on
 * the DNS editor's own plan page; nothing changes in the zone before that. The TSIG secret goes straight to
 * the use case (sealed while the pull runs) and is never shown back in the form.
 */
const sizeText = (v: View, bytes: number): string =>
  bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} ${v.t('МіБ', 'MiB')}` : `${Math.floor(bytes / 1024)} ${v.t('КіБ', 'KiB')}`;

interface ImportForm {
  source: 'file' | 'axfr';
  zone_file: string;
  server: string;
  tsig_name: string;
  tsig_algorithm: string;
}

/** How long the console waits for a pasted file to be read before it hands over to the import's own page:
 * a file that fails (a bad line, $INCLUDE) fails within this, so the form comes back with the text. */
const WAIT_MS = 3_000;
/** Percent-encoding makes a byte at most three characters in the form body; the rest of the form is small. */
export const importFormBytes = (maxBytes: number): number => 3 * maxBytes + 64 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const zoneImportPages = (uc: UseCases): ConsolePage[] => {
  const routes = dnsRoutes(uc);
  const maxBytes = uc.importZone.maxBytes;
  const base = (d: string) => `/console/domains/${enc(d)}/dns/imports`;

  const formPage = (r: ConsoleRequest, f: ImportForm, error?: DomainError | null): PageOut => {
    const v = r.view;
    const d = r.params[0]!;
    const near = (name: string): Html | '' => {
      if (!error) return '';
      if (error.details?.length) return fieldError(v, error, name);
      const owner =
        error.code.startsWith('zone_file') || error.code === 'payload_too_large' || error.code === 'import_too_large' ? 'zone_file' : null;
      return owner === name || (owner === null && name === (f.source === 'axfr' ? 'server' : 'zone_file'))
        ? html`<p class="field-error" id="err-${name}">
            ${errorText(v.lang, error)} <span class="muted">(<code>${error.code}</code>)</span>
          </p>`
        : '';
    };
    return {
      title: v.t('Імпорт зони', 'Import the zone'),
      ...(error ? { status: 422 } : {}),
      body: html`${pageHead({ href: `/console/domains/${enc(d)}/dns`, label: v.t('Записи зони', 'Zone records') }, v.t('Імпорт зони', 'Import the zone'), d)}
        <p>
          ${v.t('Імпорт лише готує план змін: ви переглянете його (що додається, змінюється, видаляється, і всі перевірки), і лише потім застосуєте. SOA і NS вершини та записи DNSSEC пропускаються.', 'An import only prepares a plan: you review it (what is added, changed, removed, and every check) and apply it only then. The apex SOA and NS and DNSSEC records are skipped.')}
        </p>
        <h2>${v.t('З файлу зони', 'From a zone file')}</h2>
        <div class="card">
          ${postForm(
            v,
            base(d),
            html`<input type="hidden" name="source" value="file" />
              <label for="zone-file">${v.t('Текст файлу зони (формат BIND)', 'The zone file text (BIND format)')}</label>
              <textarea id="zone-file" name="zone_file" rows="12" spellcheck="false" class="mono" aria-describedby="zone-file-hint">
${f.source === 'file' ? f.zone_file : ''}</textarea>
              <p class="hint" id="zone-file-hint">
                ${v.t(`Вставте експорт від нинішнього DNS-провайдера, до ${sizeText(v, maxBytes)}. $INCLUDE не приймається.`, `Paste the export from your current DNS provider, up to ${sizeText(v, maxBytes)}. $INCLUDE is not accepted.`)}
              </p>
              ${near('zone_file')}
              <div class="actions">
                <button type="submit">${v.t('Прочитати файл і скласти план', 'Read the file and build a plan')}</button>
              </div>`,
          )}
        </div>
        <h2>${v.t('Із сервера (AXFR)', 'From a server (AXFR)')}</h2>
        <div class="card">
          ${postForm(
            v,
            base(d),
            html`<input type="hidden" name="source" value="axfr" />
              <label for="axfr-server">${v.t('Сервер (адреса:порт)', 'Server (host:port)')}</label>
              <input
                id="axfr-server"
                name="server"
                type="text"
                autocomplete="off"
                spellcheck="false"
                value="${f.server}"
                placeholder="ns1.example.net:53"
              />
              ${near('server')}
              <fieldset>
                <legend>${v.t('Ключ TSIG (необов’язково)', 'TSIG key (optional)')}</legend>
                <label for="tsig-name">${v.t('Ім’я ключа', 'Key name')}</label>
                <input id="tsig-name" name="tsig_name" type="text" autocomplete="off" spellcheck="false" value="${f.tsig_name}" />
                <label for="tsig-algorithm">${v.t('Алгоритм', 'Algorithm')}</label>
                <select id="tsig-algorithm" name="tsig_algorithm">
                  ${['hmac-sha256', 'hmac-sha512'].map((a) => html`<option value="${a}" ${f.tsig_algorithm === a ? raw(' selected') : ''}>${a}</option>`)}
                </select>
                <label for="tsig-secret">${v.t('Секрет (base64)', 'Secret (base64)')}</label>
                <input id="tsig-secret" name="tsig_secret" type="password" autocomplete="off" />
                ${fieldError(v, error, 'axfr/tsig')}
              </fieldset>
              <div class="actions">
                <button type="submit">${v.t('Забрати зону й скласти план', 'Pull the zone and build a plan')}</button>
              </div>`,
          )}
        </div>`,
    };
  };

  const statusPage = (r: ConsoleRequest, job: ZoneImportView): PageOut => {
    const v: View = r.view;
    const d = job.domain;
    const failure = job.error ? new DomainError(job.error.code, job.error.params as never) : null;
    return {
      title: v.t('Імпорт зони', 'Zone import'),
      body: html`${pageHead({ href: `/console/domains/${enc(d)}/dns`, label: v.t('Записи зони', 'Zone records') }, v.t('Імпорт зони', 'Zone import'), d)}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Джерело', 'Source')}</dt>
            <dd>${job.source === 'axfr' ? html`AXFR <span class="mono">${job.server ?? ''}</span>` : v.t('файл зони', 'zone file')}</dd>
            <dt>${v.t('Прочитано записів', 'Records read')}</dt>
            <dd id="import-read">${job.records_read}</dd>
          </dl>
          ${
            job.status === 'running'
              ? html`${alert('info', html`<p id="import-status">${v.t('Ще читаємо зону…', 'Still reading the zone…')}</p>`)}
                  <p><a class="button secondary" href="${base(d)}/${enc(job.id)}">${v.t('Перевірити знову', 'Check again')}</a></p>`
              : job.status === 'failed'
                ? html`${alert(
                      'error',
                      html`<p id="import-status">${failure ? errorText(v.lang, failure) : ''}</p>
                        <p class="muted">${v.t('Код помилки', 'Error code')}: <code>${job.error?.code ?? ''}</code></p>`,
                    )}
                    <p><a class="button secondary" href="${base(d)}">${v.t('Спробувати ще', 'Try again')}</a></p>`
                : html`<p id="import-status">${v.t('Готово: план складено.', 'Ready: the plan is built.')}</p>
                    <p>
                      <a class="button" href="/console/domains/${enc(d)}/dns/plans/${enc(job.plan_id ?? '')}"
                        >${v.t('Переглянути план', 'Review the plan')}</a
                      >
                    </p>`
          }
          ${
            job.skipped.length
              ? html`<h2>${v.t('Пропущено', 'Skipped')}</h2>
                  <ul>
                    ${job.skipped.map((s) => html`<li><span class="mono">${s.type}</span> × ${s.count} — ${s.reason}</li>`)}
                  </ul>`
              : ''
          }
        </div>`,
    };
  };

  const read = (r: ConsoleRequest): ImportForm => ({
    source: field(r, 'source') === 'axfr' ? 'axfr' : 'file',
    zone_file: field(r, 'zone_file'),
    server: field(r, 'server').trim(),
    tsig_name: field(r, 'tsig_name').trim(),
    tsig_algorithm: field(r, 'tsig_algorithm') || 'hmac-sha256',
  });

  return [
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/imports$/,
      auth: true,
      handle: async (r) => {
        // A domain not in the account is not found (as its own page is), rather than a form whose send would
        // answer in terms of a key's rights.
        await uc.humanReads.domain(r.human!.actor, r.view.env, r.params[0]!);
        return formPage(r, { source: 'file', zone_file: '', server: '', tsig_name: '', tsig_algorithm: 'hmac-sha256' });
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/imports$/,
      auth: true,
      maxFormBytes: importFormBytes(maxBytes),
      handle: async (r) => {
        const d = r.params[0]!;
        await uc.humanReads.domain(r.human!.actor, r.view.env, d);
        const f = read(r);
        const secret = field(r, 'tsig_secret').trim();
        if (f.source === 'file' && Buffer.byteLength(f.zone_file, 'utf8') > maxBytes)
          return formPage(r, { ...f, zone_file: '' }, new DomainError('import_too_large', { limit: maxBytes }));
        const out = await attempt(async () => {
          const body =
            f.source === 'axfr'
              ? {
                  axfr: {
                    server: f.server,
                    ...(f.tsig_name || secret ? { tsig: { name: f.tsig_name, algorithm: f.tsig_algorithm, secret } } : {}),
                  },
                }
              : { zone_file: f.zone_file };
          validateBody(routes, 'startZoneImport', body);
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'startZoneImport', key, { params: { domain: d }, body });
          const text = f.zone_file;
          return uc.importZone.start(
            key,
            d,
            'axfr' in body
              ? { axfr: body.axfr as { server: string; tsig?: { name: string; algorithm: 'hmac-sha256' | 'hmac-sha512'; secret: string } } }
              : {
                  text: (async function* () {
                    yield text;
                  })(),
                },
          );
        });
        if ('error' in out) return formPage(r, f, out.error);
        // A pasted file is read after the answer (as through the API); wait a little for its outcome, so a
        // file that fails comes back in the form with the reason, not lost behind a "try again" link.
        let job = out.ok;
        if (f.source === 'file') {
          const key = await keyFor(uc, r);
          for (let waited = 0; job.status === 'running' && waited < WAIT_MS; waited += 50) {
            await sleep(50);
            job = await uc.importZone.get(key, d, job.id);
          }
          if (job.status === 'failed' && job.error) return formPage(r, f, new DomainError(job.error.code, job.error.params as never));
        }
        return { redirect: `${base(d)}/${enc(job.id)}` };
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/dns\/imports\/([^/]+)$/,
      auth: true,
      handle: async (r) => {
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'getZoneImport', key, { params: { domain: r.params[0]!, id: r.params[1]! } });
        return statusPage(r, await uc.importZone.get(key, r.params[0]!, r.params[1]!));
      },
    },
  ];
};
