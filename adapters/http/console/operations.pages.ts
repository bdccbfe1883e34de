import type { OperationActor } from '../../../core/kernel/actor.js';
import type { OperationView } from '../../../core/operations/operation.js';
import type { UseCases } from '../use-cases.js';
import { html, type Html } from './html.js';
import { postForm } from './acting.js';
import { when } from './layout.js';
import { dataTable } from './table.js';
import type { ConsolePage, ConsoleRequest } from './page.js';

/**
 * Class 3 operations in the console (DESIGN: a second owner confirms in the console, or it activates by
 * itself 24 hours later; any owner may cancel). The same use cases as /v1/operations — the person is the
 * actor, so the requester's own confirmation is refused by the same rule that refuses their keys.
 */
const actorOf = (r: ConsoleRequest): OperationActor => {
  const h = r.human!;
  return { kind: 'person', personId: h.person.id, accountId: h.actor.accountId, role: h.actor.role, environment: r.view.env };
};

const table = async (uc: UseCases, r: ConsoleRequest, ops: OperationView[], withDomain: boolean): Promise<Html> => {
  const v = r.view;
  const { people } = await uc.managePeople.list(r.human!.actor);
  const who = (p: OperationView['requested_by']) => {
    const person = people.find((x) => x.id === p.person_id)?.email ?? p.person_id;
    return p.type === 'key' ? v.t(`ключ ${p.key_id} (${person})`, `key ${p.key_id} (${person})`) : person;
  };
  const mine = (op: OperationView) => op.requested_by.person_id === r.human!.person.id;
  const owners = people.filter((p) => p.role === 'owner').length;
  return dataTable(
    [
      ...(withDomain ? [v.t('Домен', 'Domain')] : []),
      v.t('Що зміниться', 'What changes'),
      v.t('Хто попросив', 'Requested by'),
      v.t('Набуде чинності', 'Takes effect'),
      v.t('Підтвердження', 'Confirmations'),
      html`<span class="muted">${v.t('Дії', 'Actions')}</span>`,
    ],
    ops.map(
      (op) =>
        html`<tr id="op-${op.id}">
          ${withDomain ? html`<td><a href="/console/domains/${encodeURIComponent(op.domain)}">${op.domain}</a></td>` : ''}
          <td>
            ${v.lang === 'uk' ? op.effect.uk : op.effect.en}${op.warnings.map((w) => html`<br /><span class="note warn">${v.lang === 'uk' ? w.message.uk : w.message.en}</span>`)}
          </td>
          <td>${who(op.requested_by)}<br /><span class="muted">${when(op.created_at, v)}</span></td>
          <td>${when(op.activates_at, v)}</td>
          <td>${op.confirmations.length === 0 ? '—' : op.confirmations.map((c) => html`${who(c.by)}<br />`)}</td>
          <td>
            ${r.human!.actor.role === 'owner' && !mine(op) ? html`${postForm(v, `/console/operations/${op.id}/confirm`, html`<button class="small" type="submit">${v.t('Підтвердити', 'Confirm')}</button>`, { cls: 'inline', back: '/console/operations' })} ` : ''}
            ${
              mine(op)
                ? html`<span class="muted"
                      >${
                        owners > 1
                          ? v.t('Підтвердити має інший власник.', 'Another owner confirms.')
                          : v.t(
                              `Ви єдиний власник: операція набуде чинності ${when(op.activates_at, v)} сама, або запросіть другого власника на сторінці «Люди», щоб він її підтвердив.`,
                              `You are the only owner: it takes effect by itself ${when(op.activates_at, v)}, or invite a second owner on the People page to confirm it.`,
                            )
                      }</span
                    ><br />`
                : ''
            }
            ${
              r.human!.actor.role === 'owner'
                ? postForm(
                    v,
                    `/console/operations/${op.id}/cancel`,
                    html`<button class="small danger" type="submit">${v.t('Скасувати', 'Cancel')}</button>`,
                    {
                      cls: 'inline',
                      back: '/console/operations',
                      confirm: v.t(
                        `Скасувати операцію «${op.effect.uk}»? Її не буде виконано. (OK — скасувати; Cancel — залишити її.)`,
                        `Cancel the operation "${op.effect.en}"? It will not take effect. (OK cancels it; Cancel keeps it.)`,
                      ),
                    },
                  )
                : ''
            }
          </td>
        </tr>`,
    ),
  );
};

export const operationPages = {
  pendingFor: async (uc: UseCases, r: ConsoleRequest, domain: string): Promise<Html> => {
    const page = await uc.listOperations.execute(actorOf(r), { domain, status: 'pending', limit: 50 });
    if (page.data.length === 0) return html``;
    return html`<h2>${r.view.t('Операції класу 3, що очікують', 'Pending class 3 operations')}</h2>
      ${await table(uc, r, page.data, false)}`;
  },
  pages: (uc: UseCases): ConsolePage[] => [
    {
      method: 'GET',
      pattern: /^\/console\/operations$/,
      auth: true,
      handle: async (r) => {
        const v = r.view;
        const page = await uc.listOperations.execute(actorOf(r), { status: 'pending', limit: 100 });
        return {
          title: v.t('Операції', 'Operations'),
          body: html`<h1>${v.t('Операції, що очікують', 'Pending operations')}</h1>
            ${r.query.done ? html`<div class="alert ok" role="status">${v.t('Готово.', 'Done.')}</div>` : ''}
            <p class="lead">
              ${v.t('Операції класу 3 (сервери імен, зняття блокування передачі, мітки) чекають: інший власник підтверджує їх тут, інакше вони набудуть чинності самі через 24 години. Будь-який власник може скасувати.', 'Class 3 operations (nameservers, lifting the transfer lock, labels) wait: another owner confirms them here, or they take effect by themselves after 24 hours. Any owner may cancel.')}
            </p>
            ${page.data.length === 0 ? html`<p>${v.t('Немає операцій класу 3, що очікують.', 'No class 3 operations are pending.')}</p>` : await table(uc, r, page.data, true)}`,
        };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/operations\/([^/]+)\/confirm$/,
      auth: true,
      handle: async (r) => {
        await uc.confirmOperation.execute(actorOf(r), r.params[0]!);
        return { redirect: '/console/operations?done=confirmed' };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/operations\/([^/]+)\/cancel$/,
      auth: true,
      handle: async (r) => {
        await uc.cancelOperation.execute(actorOf(r), r.params[0]!);
        return { redirect: '/console/operations?done=cancelled' };
      },
    },
  ],
};
