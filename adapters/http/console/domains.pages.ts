import { personMay } from '../../../core/access/person-key.js';
import type { DomainView } from '../../../core/domains/domain.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { isLabel } from '../../../core/kernel/labels.js';
import { normalizeDomain } from '../../../core/kernel/domain-name.js';
import { domainRoutes } from '../routes/domains.routes.js';
import type { UseCases } from '../use-cases.js';
import {
  attempt,
  authorizeAs,
  checkpoints,
  enc,
  errorBox,
  field,
  fieldError,
  fieldMessages,
  keyFor,
  postForm,
  uah,
  validateBody,
} from './acting.js';
import { html, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { pageHead } from './fields.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Domains and money in the console: search with prices and alternatives, register (years, labels),
 * renew, automatic renewal. Class 2: only owners (the key rule); every owner is told, as through the API.
 */
const classTwoNote = (v: View) =>
  alert(
    'info',
    v.t(
      'Це дія класу 2 (гроші): кошти списуються з балансу, і всі власники отримають сповіщення, як і для ключа API.',
      'This is a class 2 action (money): the balance is charged and every owner is notified, as for an API key.',
    ),
  );
const ownersOnly = (v: View) =>
  html`<p class="muted">
    ${v.t('Цю дію виконують лише власники облікового запису (учасники — до класу 1).', 'Only the account’s owners do this (members go up to class 1).')}
  </p>`;

const YEARS = [1, 2, 3, 5, 10];

interface RegisterForm {
  domain: string;
  years: string;
  auto_renew: boolean;
  labels: string;
}

export const domainPages = (uc: UseCases) => {
  const routes = domainRoutes(uc);

  const registerPage = async (r: ConsoleRequest, f: RegisterForm, error?: DomainError | null, status?: number): Promise<PageOut> => {
    const v = r.view;
    let price: number | null = null;
    if (f.domain) {
      const found = await uc.searchDomains.execute(v.env, f.domain).catch(() => null);
      price = found?.results.find((x) => x.exact)?.price.amount ?? null;
    }
    const may = personMay(r.human!.actor, 'domain.register');
    const inv = (n: string) => (fieldMessages(v, error, n).length > 0 ? html` aria-invalid="true"` : '');
    return {
      title: v.t('Реєстрація домену', 'Register a domain'),
      ...(status ? { status } : {}),
      body: html`${pageHead({ href: `/console/search?q=${enc(f.domain)}`, label: v.t('До пошуку', 'Back to the search') }, v.t('Реєстрація домену', 'Register a domain'))}
      ${
        !may
          ? html`${errorBox(v, error)}${ownersOnly(v)}`
          : html`${classTwoNote(v)}
              <div class="card">
                ${errorBox(v, error)}
                ${postForm(
                  v,
                  '/console/register',
                  html`<label for="reg-domain">${v.t('Домен', 'Domain')}</label>
                    <input id="reg-domain" name="domain" type="text" value="${f.domain}" required ${inv('domain')} />
                    ${fieldError(v, error, 'domain')}
                    ${price !== null ? html`<p class="hint">${v.t('Ціна за рік', 'Price per year')}: <strong>${uah(price)}</strong></p>` : ''}
                    <label for="reg-years">${v.t('Років', 'Years')}</label>
                    <select id="reg-years" name="years" ${inv('years')}>
                      ${YEARS.map((y) => html`<option value="${y}" ${String(y) === f.years ? html`selected` : ''}>${y}${price !== null ? ` — ${uah(price * y)}` : ''}</option>`)}
                    </select>
                    ${fieldError(v, error, 'years')}
                    <div class="choice">
                      <input id="reg-auto" name="auto_renew" type="checkbox" value="1" ${f.auto_renew ? html`checked` : ''} />
                      <label for="reg-auto">${v.t('Продовжувати автоматично', 'Renew automatically')}</label>
                    </div>
                    <label for="reg-labels">${v.t('Мітки (необов’язково)', 'Labels (optional)')}</label>
                    <input
                      id="reg-labels"
                      name="labels"
                      type="text"
                      value="${f.labels}"
                      placeholder="prod, shop"
                      aria-describedby="reg-labels-hint"
                      ${error?.code === 'validation_failed' && fieldMessages(v, error, 'labels').length ? html`aria-invalid="true"` : ''}
                    />
                    ${fieldError(v, error, 'labels')}
                    <p class="hint" id="reg-labels-hint">
                      ${v.t('Через кому; малі латинські літери, цифри й дефіс. Ключі, обмежені міткою, одразу бачитимуть домен.', 'Comma-separated; lower-case letters, digits and hyphens. Keys scoped to a label see the domain at once.')}
                    </p>
                    <div class="actions"><button type="submit">${v.t('Зареєструвати й сплатити', 'Register and pay')}</button></div>`,
                )}
              </div>`
      }`,
    };
  };

  const search = async (r: ConsoleRequest): Promise<PageOut> => {
    const v = r.view;
    const q = (r.query.q ?? '').trim();
    const found = q ? await attempt(() => uc.searchDomains.execute(v.env, q)) : null;
    const mayRegister = personMay(r.human!.actor, 'domain.register');
    return {
      title: v.t('Пошук домену', 'Find a domain'),
      body: html`<h1>${v.t('Пошук домену', 'Find a domain')}</h1>
        <form method="get" action="/console/search" class="filters" role="search">
          <div>
            <label for="q">${v.t('Ім’я або домен', 'Name or domain')}</label
            ><input id="q" name="q" type="text" value="${q}" placeholder="my-shop" />
          </div>
          <button type="submit">${v.t('Шукати', 'Search')}</button>
        </form>
        ${found && 'error' in found ? errorBox(v, found.error) : ''}
        ${
          found && 'ok' in found
            ? dataTable(
                [
                  v.t('Домен', 'Domain'),
                  v.t('Доступний', 'Available'),
                  { head: v.t('Ціна за рік', 'Price per year'), cls: 'num' },
                  html`<span class="muted">${v.t('Дії', 'Actions')}</span>`,
                ],
                found.ok.results.map(
                  (x) =>
                    html`<tr>
                      <th scope="row">
                        ${x.domain}${x.exact ? html` <span class="pill">${v.t('точний збіг', 'exact match')}</span>` : ''}
                      </th>
                      <td data-label="${v.t('Доступний', 'Available')}">
                        ${x.available ? html`<span class="pill ok">${v.t('вільний', 'available')}</span>` : html`<span class="pill bad">${v.t('зайнятий', 'taken')}</span>${x.registered_until ? html` <span class="muted">${v.t('до', 'until')} ${x.registered_until}</span>` : ''}`}
                      </td>
                      <td class="num" data-label="${v.t('Ціна за рік', 'Price per year')}">${uah(x.price.amount)}</td>
                      <td>
                        ${x.available && mayRegister ? html`<a class="button small" href="/console/register?domain=${enc(x.domain)}">${v.t('Зареєструвати', 'Register')}<span class="visually-hidden"> ${x.domain}</span></a>` : ''}
                      </td>
                    </tr>`,
                ),
                {
                  caption: v.t(
                    'Точний збіг — першим; далі — той самий ярлик в інших зонах.',
                    'The exact match first; then the same label in other zones.',
                  ),
                  id: 'results',
                  cls: 'stack',
                },
              )
            : ''
        }`,
    };
  };

  const pages: ConsolePage[] = [
    { method: 'GET', pattern: /^\/console\/search$/, auth: true, handle: search },
    {
      method: 'GET',
      pattern: /^\/console\/register$/,
      auth: true,
      handle: (r) => registerPage(r, { domain: r.query.domain ?? '', years: '1', auto_renew: true, labels: '' }),
    },
    {
      method: 'POST',
      pattern: /^\/console\/register$/,
      auth: true,
      handle: async (r) => {
        const f: RegisterForm = {
          domain: field(r, 'domain').trim(),
          years: field(r, 'years'),
          auto_renew: field(r, 'auto_renew') === '1',
          labels: field(r, 'labels'),
        };
        const labels = f.labels
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        const out = await attempt(async () => {
          const body = { domain: f.domain, years: /^\d+$/.test(f.years) ? Number(f.years) : f.years, auto_renew: f.auto_renew };
          validateBody(routes, 'registerDomain', body);
          const bad = labels.filter((l) => !isLabel(l));
          if (bad.length > 0)
            throw new DomainError('validation_failed', {}, [
              {
                field: '/body/labels',
                rule: 'pattern',
                message: { uk: `Неправильні мітки: ${bad.join(', ')}`, en: `Not valid labels: ${bad.join(', ')}` },
              },
            ]);
          const name = normalizeDomain(f.domain);
          const key = await keyFor(uc, r, [name], labels);
          await authorizeAs(uc, routes, 'registerDomain', key, { body: { ...body, domain: name } });
          return uc.registerDomain.execute(key, { domain: name, years: body.years as number, auto_renew: f.auto_renew }, checkpoints(uc));
        });
        if ('error' in out) return registerPage(r, f, out.error, 422);
        return { redirect: `/console/domains/${enc(out.ok.domain)}?done=registered` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/renew$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const years = field(r, 'years');
        const out = await attempt(async () => {
          const body = { years: /^\d+$/.test(years) ? Number(years) : years };
          validateBody(routes, 'renewDomain', body);
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'renewDomain', key, { params: { domain: d }, body });
          return uc.renewDomain.execute({ kind: 'key', key }, { domain: d, years: body.years as number }, checkpoints(uc));
        });
        if ('error' in out) {
          const { domain } = await uc.humanReads.domain(r.human!.actor, r.view.env, d);
          return {
            status: 422,
            title: domain.domain,
            body: html`${pageHead({ href: `/console/domains/${enc(domain.domain)}`, label: domain.domain }, domain.domain)}
            ${errorBox(r.view, out.error)}${await panel(r, domain)}`,
          };
        }
        return { redirect: `/console/domains/${enc(d)}?done=renewed` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/auto-renew$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'updateDomain', key, { params: { domain: d } });
        await uc.setAutoRenew.execute(key, d, field(r, 'auto_renew') === '1');
        return { redirect: `/console/domains/${enc(d)}?done=auto-renew` };
      },
    },
  ];

  /** The money part of a domain's page: renew for N years and the automatic-renewal switch (owners). */
  const panel = async (r: ConsoleRequest, d: DomainView): Promise<Html> => {
    const v = r.view;
    const price = (await uc.searchDomains.execute(v.env, d.domain).catch(() => null))?.results.find((x) => x.exact)?.price.amount ?? null;
    const done = r.query.done;
    return html`<h2 id="money">${v.t('Продовження', 'Renewal')}</h2>
      <div class="card">
        ${done === 'registered' ? alert('ok', v.t('Домен зареєстровано; кошти списано, власників сповіщено.', 'The domain is registered; the balance was charged and the owners notified.')) : ''}
        ${done === 'renewed' ? alert('ok', v.t('Домен продовжено; кошти списано, власників сповіщено.', 'The domain was renewed; the balance was charged and the owners notified.')) : ''}
        ${done === 'auto-renew' ? alert('ok', v.t('Автопродовження змінено.', 'Automatic renewal was changed.')) : ''}
        ${
          !personMay(r.human!.actor, 'domain.renew')
            ? ownersOnly(v)
            : html`${classTwoNote(v)}
              ${postForm(
                v,
                `/console/domains/${enc(d.domain)}/renew`,
                html`<label for="renew-years">${v.t('Продовжити на', 'Renew for')}</label>
                  <select id="renew-years" name="years">
                    ${YEARS.map((y) => html`<option value="${y}">${v.t(`${y} р.`, `${y} year(s)`)}${price !== null ? ` — ${uah(price * y)}` : ''}</option>`)}
                  </select>
                  <div class="actions"><button type="submit">${v.t('Продовжити й сплатити', 'Renew and pay')}</button></div>`,
              )}
              ${postForm(
                v,
                `/console/domains/${enc(d.domain)}/auto-renew`,
                html`<input type="hidden" name="auto_renew" value="${d.auto_renew ? '0' : '1'}" />
                  <p>
                    ${v.t('Автопродовження', 'Automatic renewal')}:
                    <strong>${d.auto_renew ? v.t('увімкнено', 'on') : v.t('вимкнено', 'off')}</strong>
                    <button class="small secondary" type="submit">
                      ${d.auto_renew ? v.t('Вимкнути', 'Switch off') : v.t('Увімкнути', 'Switch on')}
                    </button>
                  </p>`,
              )}`
        }
      </div>`;
  };
  return { pages, panel };
};
