import { personMay } from '../../../core/access/person-key.js';
import { yearlyPrice } from '../../../core/domains/price-list.js';
import type { TransferView } from '../../../core/domains/transfer.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { normalizeDomain } from '../../../core/kernel/domain-name.js';
import { transferRoutes } from '../routes/transfers.routes.js';
import type { UseCases } from '../use-cases.js';
import {
  attempt,
  authorizeAs,
  checkpoints,
  doneBanner,
  enc,
  errorBox,
  field,
  fieldError,
  keyFor,
  postForm,
  uah,
  validateBody,
} from './acting.js';
import { errorText } from './error-text.js';
import { html, raw } from './html.js';
import { alert, when, type View } from './layout.js';
import { dataTable } from './table.js';
import { pageHead } from './fields.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Transfers in the console: request a transfer in (auth code, years, the price and the class 2 notice),
 * watch it, cancel it; reject a pending transfer out (owners). The same use cases as
 * /v1/domains/{d}/transfers and /transfer-out/reject; class 2 and the owners' acts follow the key rule.
 */
const YEARS = [1, 2, 3, 5, 10];
const PAGE = 50;
const ownersOnly = (v: View) =>
  html`<p class="muted">
    ${v.t('Цю дію виконують лише власники облікового запису (учасники — до класу 1).', 'Only the account’s owners do this (members go up to class 1).')}
  </p>`;
const statusWords = (v: View, s: string, direction: 'in' | 'out' = 'in'): [string, 'ok' | 'warn' | 'bad' | ''] => {
  if (direction === 'out')
    switch (s) {
      case 'pending':
        return [
          v.t('інший реєстратор просить домен; власник може відхилити', 'another registrar asks for it; an owner may reject'),
          'warn',
        ];
      case 'completed':
        return [v.t('завершено: домен перейшов до іншого реєстратора', 'completed: the domain went to the other registrar'), ''];
      case 'rejected':
        return [v.t('відхилено: домен лишився в нас', 'rejected: the domain stayed here'), 'ok'];
      case 'cancelled':
        return [v.t('скасовано іншим реєстратором: домен лишився в нас', 'cancelled by the other registrar: the domain stayed here'), 'ok'];
    }
  switch (s) {
    case 'pending':
      return [
        v.t('триває: чекаємо відповіді реєстратора, що віддає домен', 'under way: waiting for the losing registrar to answer'),
        'warn',
      ];
    case 'completed':
      return [v.t('завершено: домен тепер у нас', 'completed: the domain is here now'), 'ok'];
    case 'cancelled':
      return [v.t('скасовано; зарезервовані кошти повернено', 'cancelled; the reserved amount was returned'), ''];
    case 'rejected':
      return [
        v.t('відхилено реєстратором, що віддає домен; кошти повернено', 'rejected by the losing registrar; the amount was returned'),
        'bad',
      ];
    case 'failed':
      return [v.t('не вдалося; кошти повернено', 'failed; the amount was returned'), 'bad'];
    default:
      return [s, ''];
  }
};

/** Transfers as rows: the domain (a link to the transfer's page), direction, status, amount, when asked. */
export const transferTable = (v: View, items: readonly TransferView[], opts: { id?: string; caption?: string } = {}) =>
  dataTable(
    [v.t('Домен', 'Domain'), v.t('Напрям', 'Direction'), v.t('Стан', 'Status'), v.t('Сума', 'Amount'), v.t('Подано', 'Requested')],
    items.map((t) => {
      const [words, tone] = statusWords(v, t.status, t.direction);
      return html`<tr>
        <th scope="row"><a href="/console/transfers/${enc(t.domain)}/${enc(t.id)}">${t.domain}</a></th>
        <td>${t.direction === 'in' ? v.t('до нас', 'in') : v.t('від нас', 'out')}</td>
        <td><span class="pill ${tone}">${words}</span></td>
        <td>${t.amount ? uah(t.amount.amount) : '—'}</td>
        <td>${when(t.created_at, v)}</td>
      </tr>`;
    }),
    opts,
  );

/** The account's transfers under way, for the domains list (owners; nothing for members, as for their keys). */
export const pendingTransfersNote = async (uc: UseCases, r: ConsoleRequest) => {
  const v = r.view;
  if (!personMay(r.human!.actor, 'domain.register')) return '';
  const pending = (await uc.readTransfers.listForPerson(r.human!.actor, v.env, { active: true, limit: 20 })).data;
  if (pending.length === 0) return '';
  return html`<section aria-labelledby="tr-pending-h">
    <h2 id="tr-pending-h">${v.t('Перенесення, що тривають', 'Transfers under way')}</h2>
    ${transferTable(v, pending, { id: 'transfers-pending' })}
    <p><a href="/console/transfers">${v.t('Усі перенесення', 'All transfers')}</a></p>
  </section>`;
};

/** A domain's own transfers (in or out) on its page; nothing when there are none or the role may not see them. */
export const domainTransfersPanel = async (uc: UseCases, r: ConsoleRequest, domain: string) => {
  const v = r.view;
  if (!personMay(r.human!.actor, 'domain.register')) return '';
  const key = await keyFor(uc, r, [domain]);
  const { items } = await uc.readTransfers.list(key, domain);
  if (items.length === 0) return '';
  return html`<h2>${v.t('Перенесення', 'Transfers')}</h2>
    ${transferTable(v, items.slice(0, 10), { id: 'domain-transfers' })}`;
};

interface RequestForm {
  domain: string;
  years: string;
}

export const transferPages = (uc: UseCases): ConsolePage[] => {
  const routes = transferRoutes(uc);
  const view = (d: string, id: string) => `/console/transfers/${enc(d)}/${enc(id)}`;

  const requestPage = async (r: ConsoleRequest, f: RequestForm, error?: DomainError | null): Promise<PageOut> => {
    const v = r.view;
    const may = personMay(r.human!.actor, 'domain.register');
    let price: number | null = null;
    try {
      price = f.domain ? yearlyPrice(normalizeDomain(f.domain)) : null;
    } catch {
      price = null;
    }
    const fieldErr = (name: string) =>
      error?.details?.length
        ? fieldError(v, error, name)
        : error &&
            ((name === 'auth_code' && error.code.startsWith('transfer_auth')) ||
              (name === 'domain' && !error.code.startsWith('transfer_auth')))
          ? html`<p class="field-error" id="err-${name}">
              ${errorText(v.lang, error)} <span class="muted">(<code>${error.code}</code>)</span>
            </p>`
          : '';
    return {
      title: v.t('Перенести домен до нас', 'Transfer a domain in'),
      ...(error ? { status: 422 } : {}),
      body: html`${pageHead({ href: '/console/transfers', label: v.t('Перенесення', 'Transfers') }, v.t('Перенести домен від іншого реєстратора', 'Transfer a domain in from another registrar'))}
      ${
        !may
          ? ownersOnly(v)
          : html`${alert(
                'info',
                v.t(
                  'Це дія класу 2 (гроші): з балансу резервується ціна продовження × роки; її списують, коли домен прийде, і повертають, якщо перенесення скасовано чи відхилено. Усі власники отримають сповіщення, як і для ключа API.',
                  'This is a class 2 action (money): the renewal price × years is reserved on the balance; it is charged when the domain arrives and returned if the transfer is cancelled or rejected. Every owner is notified, as for an API key.',
                ),
              )}
              <div class="card">
                ${error && !error.details?.length && !['domain_invalid', 'domain_not_found', 'tld_not_supported', 'domain_already_yours', 'transfer_domain_locked', 'transfer_not_transferable', 'transfer_already_pending'].includes(error.code) && !error.code.startsWith('transfer_auth') ? errorBox(v, error) : ''}
                ${postForm(
                  v,
                  '/console/transfers',
                  html`<label for="tr-domain">${v.t('Домен', 'Domain')}</label>
                    <input id="tr-domain" name="domain" type="text" required autocomplete="off" spellcheck="false" value="${f.domain}" />
                    ${fieldErr('domain')}
                    <label for="tr-code">${v.t('Код перенесення (auth code)', 'Transfer code (auth code)')}</label>
                    <input id="tr-code" name="auth_code" type="password" required autocomplete="off" aria-describedby="tr-code-hint" />
                    <p class="hint" id="tr-code-hint">
                      ${v.t('Його дає нинішній реєстратор. Ми зберігаємо його зашифрованим і видаляємо, щойно перенесення завершиться.', 'Your current registrar gives it to you. We keep it encrypted and delete it once the transfer ends.')}
                      ${v.env === 'test' ? v.t(' Пісочниця: домени transfer-… приймають код sandbox-auth-ok.', ' Sandbox: transfer-… names accept the code sandbox-auth-ok.') : ''}
                    </p>
                    ${fieldErr('auth_code')}
                    <label for="tr-years">${v.t('Продовжити на', 'Extend by')}</label>
                    <select id="tr-years" name="years">
                      ${YEARS.map(
                        (y) =>
                          html`<option value="${y}" ${f.years === String(y) ? raw(' selected') : ''}>
                            ${v.t(`${y} р.`, `${y} year(s)`)}${price !== null ? ` — ${uah(price * y)}` : ''}
                          </option>`,
                      )}
                    </select>
                    ${fieldErr('years')}
                    <div class="actions">
                      <button type="submit">${v.t('Подати запит і зарезервувати кошти', 'Request and reserve the amount')}</button>
                    </div>`,
                )}
              </div>`
      }`,
    };
  };

  /** The account's transfers, in and out: those under way, then every one newest first, a page at a time. */
  const listPage = async (r: ConsoleRequest): Promise<PageOut> => {
    const v = r.view;
    const title = v.t('Перенесення доменів', 'Domain transfers');
    const head = pageHead({ href: '/console/', label: v.t('Домени', 'Domains') }, title);
    if (!personMay(r.human!.actor, 'domain.register')) return { title, body: html`${head}${ownersOnly(v)}` };
    const cursor = r.query.cursor || undefined;
    const pending = cursor ? [] : (await uc.readTransfers.listForPerson(r.human!.actor, v.env, { active: true, limit: 100 })).data;
    const page = await uc.readTransfers.listForPerson(r.human!.actor, v.env, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    // Only what "Under way" already shows is left out here: nothing under way past its first 100 goes unseen.
    const shown = new Set(pending.map((t) => t.id));
    const ended = page.data.filter((t) => !shown.has(t.id));
    return {
      title,
      body: html`${head}
        <p class="lead">
          ${v.t('Домени, що переходять до нас від інших реєстраторів, і наші домени, які просить інший реєстратор.', 'Domains coming to us from other registrars, and our domains another registrar asks for.')}
        </p>
        <p class="actions">
          <a class="button" href="/console/transfers/new">${v.t('Перенести домен до нас', 'Transfer a domain in')}</a>
        </p>
        ${
          cursor
            ? ''
            : html`<h2>${v.t('Тривають', 'Under way')}</h2>
                ${
                  pending.length
                    ? transferTable(v, pending, { id: 'transfers-pending' })
                    : html`<p class="muted" id="transfers-none-pending">
                        ${v.t('Зараз жодне перенесення не триває.', 'No transfer is under way now.')}
                      </p>`
                }`
        }
        <h2>${cursor ? v.t('Давніші', 'Older') : v.t('Нещодавні', 'Recent')}</h2>
        ${
          ended.length
            ? transferTable(v, ended, { id: 'transfers-recent' })
            : html`<p class="muted">${v.t('Завершених перенесень ще немає.', 'No transfer has ended yet.')}</p>`
        }
        ${
          page.next_cursor
            ? html`<p>
                <a href="/console/transfers?cursor=${enc(page.next_cursor)}" rel="next">${v.t('Давніші перенесення', 'Older transfers')}</a>
              </p>`
            : ''
        }`,
    };
  };

  const statusPage = async (r: ConsoleRequest, t: TransferView, error?: DomainError): Promise<PageOut> => {
    const v = r.view;
    const [words, tone] = statusWords(v, t.status, t.direction);
    return {
      title: `${v.t('Перенесення', 'Transfer')} — ${t.domain}`,
      ...(error ? { status: 422 } : {}),
      body: html`${pageHead({ href: '/console/transfers', label: v.t('Перенесення', 'Transfers') }, v.t('Перенесення', 'Transfer'), t.domain)}
        ${doneBanner(r, {
          requested: ['Запит подано; кошти зарезервовано.', 'Requested; the amount is reserved.'],
          cancelled: ['Перенесення скасовано; кошти повернено.', 'The transfer was cancelled; the amount was returned.'],
        })}
        ${errorBox(v, error)}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'Status')}</dt>
            <dd><span class="pill ${tone}" id="transfer-status">${words}</span></dd>
            <dt>${v.t('Роки', 'Years')}</dt>
            <dd>${t.years ?? '—'}</dd>
            <dt>${v.t('Сума', 'Amount')}</dt>
            <dd>${t.amount ? uah(t.amount.amount) : '—'}</dd>
            ${
              t.action_at && t.status === 'pending'
                ? html`<dt>${v.t('Відповідь очікується до', 'Answer expected by')}</dt>
                    <dd>${when(t.action_at, v)}</dd>`
                : ''
            }
            ${
              t.error
                ? html`<dt>${v.t('Причина', 'Reason')}</dt>
                    <dd>${t.error}</dd>`
                : ''
            }
            <dt>${v.t('Подано', 'Requested')}</dt>
            <dd>${when(t.created_at, v)}</dd>
          </dl>
          ${
            t.status === 'pending' && t.direction === 'out'
              ? html`<p>
                  <a href="/console/domains/${enc(t.domain)}#transfer-out"
                    >${v.t('Відповісти на запит на сторінці домену', 'Answer the request on the domain’s page')}</a
                  >
                </p>`
              : ''
          }
          ${
            t.status === 'pending' && t.direction === 'in' && personMay(r.human!.actor, 'domain.register')
              ? postForm(
                  v,
                  `${view(t.domain, t.id)}/cancel`,
                  html`<div class="actions">
                    <button class="danger" type="submit">${v.t('Скасувати перенесення', 'Cancel the transfer')}</button>
                  </div>`,
                  {
                    back: view(t.domain, t.id),
                    confirm: v.t(
                      'Скасувати перенесення? Кошти повернуться на баланс.',
                      'Cancel the transfer? The amount returns to the balance.',
                    ),
                  },
                )
              : ''
          }
          <p class="hint">${v.t('Оновіть сторінку, щоб побачити новий стан.', 'Reload the page to see a new status.')}</p>
        </div>`,
    };
  };

  const load = async (r: ConsoleRequest, d: string, id: string) => {
    const key = await keyFor(uc, r, [d]);
    await authorizeAs(uc, routes, 'getTransfer', key, { params: { domain: d, id } });
    return uc.readTransfers.get(key, d, id);
  };

  return [
    {
      method: 'GET',
      pattern: /^\/console\/transfers$/,
      auth: true,
      handle: listPage,
    },
    {
      method: 'GET',
      pattern: /^\/console\/transfers\/new$/,
      auth: true,
      handle: async (r) => requestPage(r, { domain: r.query.domain ?? '', years: '1' }),
    },
    {
      method: 'POST',
      pattern: /^\/console\/transfers$/,
      auth: true,
      handle: async (r) => {
        const f: RequestForm = { domain: field(r, 'domain').trim(), years: field(r, 'years') };
        const out = await attempt(async () => {
          const body = { auth_code: field(r, 'auth_code'), years: /^\d+$/.test(f.years) ? Number(f.years) : f.years };
          validateBody(routes, 'requestTransfer', body);
          const name = normalizeDomain(f.domain);
          const key = await keyFor(uc, r, [name]);
          await authorizeAs(uc, routes, 'requestTransfer', key, { params: { domain: name }, body });
          return uc.requestTransfer.execute(key, { domain: name, auth_code: body.auth_code, years: body.years as number }, checkpoints(uc));
        });
        if ('error' in out) return requestPage(r, f, out.error);
        return { redirect: `${view(out.ok.domain, out.ok.id)}?done=requested` };
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/transfers\/([^/]+)\/([^/]+)$/,
      auth: true,
      handle: async (r) => statusPage(r, await load(r, r.params[0]!, r.params[1]!)),
    },
    {
      method: 'POST',
      pattern: /^\/console\/transfers\/([^/]+)\/([^/]+)\/cancel$/,
      auth: true,
      handle: async (r) => {
        const [d, id] = [r.params[0]!, r.params[1]!];
        const out = await attempt(() => uc.cancelTransfer.execute({ kind: 'human', human: r.human!, environment: r.view.env }, d, id));
        if ('error' in out) return statusPage(r, await load(r, d, id), out.error);
        return { redirect: `${view(d, id)}?done=cancelled` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/transfer-out\/reject$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        await uc.rejectTransferOut.execute({ kind: 'human', human: r.human!, environment: r.view.env }, d);
        return { redirect: `/console/domains/${enc(d)}?done=transfer-out-rejected` };
      },
    },
  ];
};
