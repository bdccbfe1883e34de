import { personMay } from '../../../core/access/person-key.js';
import type { TransactionView } from '../../../core/billing/read-billing.use-case.js';
import { kyivMonth } from '../../../core/kernel/dates.js';
import { DomainError } from '../../../core/kernel/errors.js';
import { billingRoutes } from '../routes/billing.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, checkpoints, errorBox, field, fieldError, keyFor, postForm, uah, when } from './acting.js';
import { html, type Html } from './html.js';
import { alert, type View } from './layout.js';
import { pageHead } from './fields.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';
import { validateBody } from './acting.js';

/**
 * Money in the console: the spend this month, a top-up from the saved card (typed in hryvnias, sent as
 * kopiykas to the same use case as POST /v1/billing/topups) and the transactions with filters.
 */
const SPENDING = new Set(['registration', 'renewal', 'restore']);
const KINDS = ['grant', 'topup', 'registration', 'renewal', 'restore', 'refund'] as const;
const STATUSES = ['pending', 'posted', 'voided'] as const;

/** Hryvnias as typed ("500", "500,50", "1 000.5") → kopiykas; null when it is not an amount. */
export const kopiykasOf = (text: string): number | null => {
  const m = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*(?:₴|грн|uah)?\s*$/i.exec(text.replace(/[\s\u00a0](?=\d{3}\b)/g, ''));
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
};

const kindName = (v: View, k: string) =>
  ({
    grant: v.t('нарахування', 'grant'),
    topup: v.t('поповнення', 'top-up'),
    registration: v.t('реєстрація', 'registration'),
    renewal: v.t('продовження', 'renewal'),
    restore: v.t('відновлення', 'restore'),
    refund: v.t('повернення', 'refund'),
  })[k] ?? k;

export const statusName = (v: View, s: string) =>
  ({ pending: v.t('очікує', 'pending'), posted: v.t('проведено', 'posted'), voided: v.t('анульовано', 'voided') })[s] ?? s;

/**
 * A transaction's description in the page's language. The ledger keeps the English text the use case wrote
 * (registration, renewal, transfer, top-up, the sandbox grant); each known form is said in Ukrainian too, and
 * any other text is shown as kept.
 */
const DESCRIPTIONS: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^Registration of (\S+) for (\d+) year\(s\)$/, (m) => `Реєстрація ${m[1]} на ${m[2]} р.`],
  [/^Restore and renewal of (\S+) for (\d+) year\(s\)$/, (m) => `Відновлення й продовження ${m[1]} на ${m[2]} р.`],
  [/^Renewal of (\S+) for (\d+) year\(s\)$/, (m) => `Продовження ${m[1]} на ${m[2]} р.`],
  [/^Transfer of (\S+) with (\d+) year\(s\)$/, (m) => `Перенесення ${m[1]} з ${m[2]} р.`],
  [/^Top-up from (.+)$/, (m) => `Поповнення з картки ${m[1]}`],
  [/^Domivka balance top-up (\S+)$/, (m) => `Поповнення балансу Domivka ${m[1]}`],
  [/^Sandbox demo balance$/, () => 'Демо-баланс пісочниці'],
];
export const transactionText = (v: View, description: string): string => {
  if (v.lang !== 'uk') return description;
  for (const [re, uk] of DESCRIPTIONS) {
    const m = re.exec(description);
    if (m) return uk(m);
  }
  return description;
};

/** Up to `max` newest transactions through the API's use case (cursor pages). */
const recent = async (uc: UseCases, r: ConsoleRequest, max = 1000): Promise<TransactionView[]> => {
  const key = await keyFor(uc, r);
  await authorizeAs(uc, billingRoutes(uc), 'listTransactions', key, {});
  const out: TransactionView[] = [];
  let cursor: string | undefined;
  do {
    const page = await uc.readBilling.transactions(key, { limit: 200, ...(cursor ? { cursor } : {}) });
    out.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && out.length < max);
  return out;
};

export const billingPages = (uc: UseCases) => {
  const routes = billingRoutes(uc);

  const panel = async (r: ConsoleRequest, typed?: { amount: string; error: DomainError }): Promise<Html> => {
    const v = r.view;
    const month = kyivMonth(new Date());
    const rows = await recent(uc, r, 400);
    const spent = rows
      .filter(
        (t) => SPENDING.has(t.kind) && t.status !== 'voided' && new Date(t.created_at) >= month.start && new Date(t.created_at) < month.end,
      )
      .reduce((s, t) => s - t.amount.amount, 0);
    const may = personMay(r.human!.actor, 'billing.topup');
    const error = typed?.error;
    // The amount is marked wrong only when it is what is wrong (not a refused card, say).
    const amountWrong = error?.code === 'validation_failed';
    return html`<h2 id="spend">${v.t('Витрати цього місяця', 'Spent this month')}</h2>
      <div class="card">
        <p>
          <strong>${uah(Math.max(0, spent))}</strong>
          <span class="muted">(${month.month}; ${v.t('реєстрації й продовження', 'registrations and renewals')})</span>
        </p>
        <p><a href="/console/billing/transactions">${v.t('Усі операції з фільтрами', 'All transactions, with filters')}</a></p>
      </div>
      <h2 id="top-up">${v.t('Поповнити баланс', 'Top up the balance')}</h2>
      <div class="card">
        ${r.query.done === 'topup' ? alert('ok', v.t('Баланс поповнено зі збереженої картки; власників сповіщено.', 'The balance was topped up from the saved card; the owners were notified.')) : ''}
        ${
          !may
            ? html`${errorBox(v, error)}
                <p class="muted">
                  ${v.t('Поповнюють лише власники (учасники — до класу 1).', 'Only owners top up (members go up to class 1).')}
                </p>`
            : html`${alert('info', v.t('Дія класу 2 (гроші): списання зі збереженої картки; усі власники отримають сповіщення.', 'A class 2 action (money): the saved card is charged; every owner is notified.'))}
              ${errorBox(v, error)}
              ${postForm(
                v,
                // The answer to a failed top-up is this page again: the fragment brings the person back to this form.
                '/console/billing/top-up#top-up',
                html`<label for="topup-amount">${v.t('Сума, ₴', 'Amount, UAH')}</label>
                  <input
                    id="topup-amount"
                    name="amount"
                    type="text"
                    inputmode="decimal"
                    value="${typed?.amount ?? ''}"
                    placeholder="500"
                    aria-describedby="topup-hint${amountWrong ? ' err-amount' : ''}"
                    ${amountWrong ? html`aria-invalid="true"` : ''}
                  />
                  ${amountWrong ? fieldError(v, error, 'amount') : ''}
                  <p class="hint" id="topup-hint">
                    ${v.t('Від 100 до 500 000 ₴; копійки через кому.', 'From 100 to 500,000 UAH; kopiykas after a comma or point.')}
                  </p>
                  <div class="actions"><button type="submit">${v.t('Поповнити', 'Top up')}</button></div>`,
              )}`
        }
      </div>`;
  };

  /**
   * The balance page: the balance and card, this month's spend, the top-up form, the payment method and the
   * latest transactions. A failed top-up answers this same page, the reason on the top-up form and the
   * amount as typed.
   */
  const page = async (r: ConsoleRequest, typed?: { amount: string; error: DomainError }): Promise<PageOut> => {
    const v = r.view;
    const b = await uc.humanReads.billing(r.human!.actor, v.env);
    const card = await uc.changePaymentMethod.current(r.human!, v.env);
    return {
      title: v.t('Баланс', 'Balance'),
      body: html`<h1>${v.t('Баланс і оплата', 'Balance and payment')}</h1>
        ${r.query.done === 'card' ? alert('ok', v.t('Спосіб оплати змінено.', 'The payment method was changed.')) : ''}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Баланс', 'Balance')}</dt>
            <dd><strong>${uah(b.balance.amount)}</strong></dd>
            <dt>${v.t('Картка', 'Card')}</dt>
            <dd>${card ? `${card.brand} •••• ${card.last4}` : v.t('не збережено', 'none saved')}</dd>
          </dl>
        </div>
        ${await panel(r, typed)}
        <h2>${v.t('Змінити спосіб оплати', 'Change the payment method')}</h2>
        <div class="card">
          ${
            v.env === 'test'
              ? postForm(
                  v,
                  '/console/billing/card',
                  html`<label for="card_number">${v.t('Номер картки пісочниці', 'Sandbox card number')}</label
                    ><input
                      id="card_number"
                      name="card_number"
                      type="text"
                      inputmode="numeric"
                      autocomplete="off"
                      required
                      aria-describedby="card-hint"
                    />
                    <p class="hint" id="card-hint">
                      ${v.t('Тестові номери Stripe: 4242 4242 4242 4242 — успіх; 4000 0000 0000 0002 — відмова; …9995 — бракує коштів; …0119 — збій обробки. Потрібен повторний вхід.', 'Stripe test numbers: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined; …9995 insufficient funds; …0119 processing error. Signing in again is required.')}
                    </p>
                    <div class="actions"><button type="submit">${v.t('Зберегти картку', 'Save the card')}</button></div>`,
                  { back: '/console/billing' },
                )
              : html`<p>
                  ${v.t('У робочому середовищі картку зберігає Stripe (SetupIntent): номер картки не проходить через Domivka. API: POST /v1/account/payment-method/setups, потім …/complete.', 'In live, Stripe saves the card (SetupIntent): the card number never passes through Domivka. API: POST /v1/account/payment-method/setups, then …/complete.')}
                </p>`
          }
        </div>
        <h2>${v.t('Операції', 'Transactions')}</h2>
        ${
          b.transactions.length === 0
            ? html`<p>${v.t('Операцій ще немає.', 'No transactions yet.')}</p>`
            : dataTable(
                [
                  v.t('Коли', 'When'),
                  v.t('Опис', 'Description'),
                  v.t('Домен', 'Domain'),
                  v.t('Стан', 'Status'),
                  { head: v.t('Сума', 'Amount'), cls: 'num' },
                ],
                b.transactions.map(
                  (t) =>
                    html`<tr>
                      <td>${when(t.created_at, v)}</td>
                      <td>${transactionText(v, t.description)}</td>
                      <td>${t.domain ?? ''}</td>
                      <td>
                        <span class="pill ${t.status === 'posted' ? 'ok' : t.status === 'pending' ? 'warn' : 'bad'}"
                          >${statusName(v, t.status)}</span
                        >
                      </td>
                      <td class="num">${uah(t.amount.amount)}</td>
                    </tr>`,
                ),
              )
        }`,
    };
  };

  const transactions = async (r: ConsoleRequest): Promise<PageOut> => {
    const v = r.view;
    const q = {
      kind: r.query.kind ?? '',
      status: r.query.status ?? '',
      domain: (r.query.domain ?? '').trim().toLowerCase(),
      from: r.query.from ?? '',
      to: r.query.to ?? '',
    };
    const all = await recent(uc, r);
    const rows = all.filter(
      (t) =>
        (!q.kind || t.kind === q.kind) &&
        (!q.status || t.status === q.status) &&
        (!q.domain || (t.domain ?? '').includes(q.domain)) &&
        (!q.from || t.created_at.slice(0, 10) >= q.from) &&
        (!q.to || t.created_at.slice(0, 10) <= q.to),
    );
    const total = rows.filter((t) => t.status !== 'voided').reduce((s, t) => s + t.amount.amount, 0);
    return {
      title: v.t('Операції', 'Transactions'),
      body: html`${pageHead({ href: `/console/billing`, label: v.t('Баланс', 'Balance') }, v.t('Операції з балансом', 'Balance transactions'))}
        <form method="get" action="/console/billing/transactions" class="filters">
          <div>
            <label for="f-kind">${v.t('Вид', 'Kind')}</label>
            <select id="f-kind" name="kind">
              <option value="">${v.t('усі', 'all')}</option>
              ${KINDS.map((k) => html`<option value="${k}" ${q.kind === k ? html`selected` : ''}>${kindName(v, k)}</option>`)}
            </select>
          </div>
          <div>
            <label for="f-status">${v.t('Стан', 'Status')}</label>
            <select id="f-status" name="status">
              <option value="">${v.t('усі', 'all')}</option>
              ${STATUSES.map((k) => html`<option value="${k}" ${q.status === k ? html`selected` : ''}>${statusName(v, k)}</option>`)}
            </select>
          </div>
          <div>
            <label for="f-domain">${v.t('Домен', 'Domain')}</label><input id="f-domain" name="domain" type="text" value="${q.domain}" />
          </div>
          <div><label for="f-from">${v.t('Від', 'From')}</label><input id="f-from" name="from" type="date" value="${q.from}" /></div>
          <div><label for="f-to">${v.t('До', 'To')}</label><input id="f-to" name="to" type="date" value="${q.to}" /></div>
          <button type="submit">${v.t('Показати', 'Show')}</button>
          <a href="/console/billing/transactions">${v.t('Скинути', 'Reset')}</a>
        </form>
        ${dataTable(
          [
            v.t('Коли', 'When'),
            v.t('Вид', 'Kind'),
            v.t('Опис', 'Description'),
            v.t('Домен', 'Domain'),
            v.t('Стан', 'Status'),
            { head: v.t('Сума', 'Amount'), cls: 'num' },
          ],
          rows.map(
            (t) =>
              html`<tr>
                <td data-label="${v.t('Коли', 'When')}">${when(t.created_at, v)}</td>
                <td data-label="${v.t('Вид', 'Kind')}">${kindName(v, t.kind)}</td>
                <td data-label="${v.t('Опис', 'Description')}">${transactionText(v, t.description)}</td>
                <td data-label="${v.t('Домен', 'Domain')}">${t.domain ?? '—'}</td>
                <td data-label="${v.t('Стан', 'Status')}">
                  <span class="pill ${t.status === 'posted' ? 'ok' : t.status === 'pending' ? 'warn' : 'bad'}"
                    >${statusName(v, t.status)}</span
                  >
                </td>
                <td class="num" data-label="${v.t('Сума', 'Amount')}">${uah(t.amount.amount)}</td>
              </tr>`,
          ),
          {
            caption: v.t(
              `Операцій: ${rows.length}; разом (без анульованих): ${uah(total)}`,
              `${rows.length} transaction(s); total (voided excluded): ${uah(total)}`,
            ),
            id: 'transactions',
            cls: 'stack',
          },
        )}`,
    };
  };

  const pages: ConsolePage[] = [
    { method: 'GET', pattern: /^\/console\/billing$/, auth: true, handle: (r) => page(r) },
    { method: 'GET', pattern: /^\/console\/billing\/transactions$/, auth: true, handle: transactions },
    {
      method: 'POST',
      pattern: /^\/console\/billing\/top-up$/,
      auth: true,
      handle: async (r) => {
        const typed = field(r, 'amount');
        const amount = kopiykasOf(typed);
        const out = await attempt(async () => {
          if (amount === null)
            throw new DomainError('validation_failed', {}, [
              {
                field: '/body/amount',
                rule: 'type',
                message: {
                  uk: 'Введіть суму в гривнях, наприклад 500 або 500,50.',
                  en: 'Type an amount in hryvnias, such as 500 or 500.50.',
                },
              },
            ]);
          validateBody(routes, 'topUp', { amount });
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'topUp', key, { body: { amount } });
          return uc.topUp.execute(key, amount, checkpoints(uc));
        });
        if ('error' in out) {
          const e = out.error;
          // The schema counts kopiykas; the person typed hryvnias: say the limits in hryvnias.
          const shown =
            e.code === 'validation_failed' && amount !== null
              ? new DomainError('validation_failed', {}, [
                  {
                    field: '/body/amount',
                    rule: 'range',
                    message: { uk: 'Сума має бути від 100 до 500 000 ₴.', en: 'The amount must be from 100 to 500,000 UAH.' },
                  },
                ])
              : e;
          return { ...(await page(r, { amount: typed, error: shown })), status: 422 };
        }
        return { redirect: '/console/billing?done=topup#top-up' };
      },
    },
  ];
  return { pages };
};
