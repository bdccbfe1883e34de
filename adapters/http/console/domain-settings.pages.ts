import { personMay } from '../../../core/access/person-key.js';
import type { DomainView } from '../../../core/domains/domain.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { requireRecentSignIn } from '../../../core/kernel/human-guards.js';
import type { OperationView } from '../../../core/operations/operation.js';
import { domainRoutes } from '../routes/domains.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, enc, errorBox, field, fieldError, keyFor, postForm, validateBody } from './acting.js';
import { pageHead } from './fields.js';
import { html, type Html } from './html.js';
import { alert, type View } from './layout.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * A domain's delegation and reach in the console: its nameservers, its transfer lock and its labels — what
 * `PUT …/nameservers`, `DELETE`/`PUT …/transfer-lock` and `PUT …/labels` do through the API, through the same
 * use cases and the same rule of classes. Each change that can take the domain off the internet or widen what
 * keys reach is a class 3 operation (it waits for a second owner or 24 hours; owners only, signed in again
 * within five minutes); setting the transfer lock again is safe and takes effect at once.
 */
export const domainSettings = (uc: UseCases) => {
  const routes = domainRoutes(uc);
  const self = (d: string) => `/console/domains/${enc(d)}`;
  /** Lines or commas → the names or labels typed, empty ones dropped. */
  const listOf = (text: string) =>
    text
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter(Boolean);

  /** The person's key for the API route's right; a class 3 request also wants a sign-in within five minutes. */
  const keyAs = async (r: ConsoleRequest, routeId: string, input: Parameters<typeof authorizeAs>[4], recent: boolean) => {
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, routeId, key, input);
    if (recent) requireRecentSignIn(r.human!.session, new Date());
    return key;
  };

  /** The form that failed, shown again on the domain's page with its error and what was typed. */
  const failed = async (r: ConsoleRequest, typed: Typed): Promise<PageOut> => {
    const { domain } = await uc.humanReads.domain(r.human!.actor, r.view.env, r.params[0]!);
    return {
      status: 422,
      title: domain.domain,
      body: html`${pageHead({ href: self(domain.domain), label: domain.domain }, domain.domain)}${await panel(r, domain, typed)}`,
    };
  };

  const requested = (r: ConsoleRequest, op: OperationView) => `${self(r.params[0]!)}?done=operation-requested&op=${enc(op.id)}#settings`;

  const pages: ConsolePage[] = [
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/nameservers$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const text = field(r, 'nameservers');
        const out = await attempt(async () => {
          const body = { nameservers: listOf(text) };
          validateBody(routes, 'setNameservers', body);
          const key = await keyAs(r, 'setNameservers', { params: { domain: d }, body }, true);
          return uc.requestOperation.execute({ kind: 'key', key }, { kind: 'nameservers', domain: d, nameservers: body.nameservers });
        });
        if ('error' in out) return failed(r, { form: 'nameservers', error: out.error, nameservers: text });
        return { redirect: requested(r, out.ok) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/labels$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const text = field(r, 'labels');
        const out = await attempt(async () => {
          const body = { labels: listOf(text) };
          validateBody(routes, 'setLabels', body);
          const key = await keyAs(r, 'setLabels', { params: { domain: d }, body }, true);
          return uc.requestOperation.execute({ kind: 'key', key }, { kind: 'labels', domain: d, labels: body.labels });
        });
        if ('error' in out) return failed(r, { form: 'labels', error: out.error, labels: text });
        return { redirect: requested(r, out.ok) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/transfer-lock\/lift$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const out = await attempt(async () => {
          const key = await keyAs(r, 'liftTransferLock', { params: { domain: d } }, true);
          return uc.requestOperation.execute({ kind: 'key', key }, { kind: 'transfer_unlock', domain: d });
        });
        if ('error' in out) return failed(r, { form: 'lock', error: out.error });
        return { redirect: requested(r, out.ok) };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/transfer-lock\/set$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const out = await attempt(async () => {
          const key = await keyAs(r, 'setTransferLock', { params: { domain: d } }, false);
          return uc.lockTransfer.execute(key, d);
        });
        if ('error' in out) return failed(r, { form: 'lock', error: out.error });
        return { redirect: `${self(d)}?done=${out.ok.cancelled_operation ? 'locked-cancelled' : 'locked'}#settings` };
      },
    },
  ];

  /** The part of a domain's page that changes its delegation, transfer lock and labels. */
  const panel = async (r: ConsoleRequest, d: DomainView, typed: Typed | null = null): Promise<Html> => {
    const v = r.view;
    const done = r.query.done;
    const owner = personMay(r.human!.actor, 'domain.nameservers');
    const errorOf = (form: Typed['form']) => (typed?.form === form ? typed.error : null);
    const pending = d.status.includes('pendingUpdate');
    // Registered elsewhere: its delegation and transfer lock are at its own registrar; the labels are ours.
    const hosted = d.registrar === 'external';
    const nameserversAndLock = html`<h3>${v.t('Сервери імен', 'Nameservers')}</h3>
      ${errorBox(v, errorOf('nameservers'))}
      ${postForm(
        v,
        `${self(d.domain)}/nameservers`,
        html`<label for="ns-list">${v.t('Сервери імен (від 2 до 13, кожен з нового рядка)', 'Nameservers (2 to 13, one per line)')}</label>
          <textarea
            id="ns-list"
            name="nameservers"
            rows="3"
            spellcheck="false"
            aria-describedby="ns-hint"
            ${errorOf('nameservers') ? html`aria-invalid="true"` : ''}
          >
${typed?.form === 'nameservers' ? typed.nameservers : d.nameservers.join('\n')}</textarea>
          ${fieldError(v, errorOf('nameservers'), 'nameservers')}
          <p class="hint" id="ns-hint">
            ${v.t('Сервери поза нашими (ns1/ns2.domivka.net) означають, що світ перестане бачити нашу зону, щойно зміна набуде чинності.', 'Nameservers other than ours (ns1/ns2.domivka.net) mean the world stops seeing our zone once the change takes effect.')}
          </p>
          <div class="actions">
            <button type="submit">${v.t('Запитати зміну серверів імен', 'Ask to change the nameservers')}</button>
          </div>`,
        {
          confirm: v.t(
            `Запитати зміну серверів імен ${d.domain}? Це операція класу 3.`,
            `Ask to change the nameservers of ${d.domain}? This is a class 3 operation.`,
          ),
        },
      )}
      <h3>${v.t('Блокування передачі', 'Transfer lock')}</h3>
      ${errorBox(v, errorOf('lock'))}
      <p>
        ${v.t('Блокування передачі', 'Transfer lock')}:
        <strong>${d.transfer_lock ? v.t('увімкнено', 'on') : v.t('вимкнено', 'off')}</strong>.
        ${d.transfer_lock ? v.t('Поки воно ввімкнене, домен не можна перенести до іншого реєстратора.', 'While it is on, the domain cannot move to another registrar.') : v.t('Домен можна перенести до іншого реєстратора з кодом передачі.', 'The domain can move to another registrar with its transfer code.')}
      </p>
      ${
        d.transfer_lock
          ? postForm(
              v,
              `${self(d.domain)}/transfer-lock/lift`,
              html`<div class="actions">
                <button class="danger" type="submit">${v.t('Запитати зняття блокування', 'Ask to lift the lock')}</button>
              </div>`,
              {
                confirm: v.t(
                  `Запитати зняття блокування передачі ${d.domain}? Це операція класу 3.`,
                  `Ask to lift the transfer lock of ${d.domain}? This is a class 3 operation.`,
                ),
              },
            )
          : postForm(
              v,
              `${self(d.domain)}/transfer-lock/set`,
              html`<div class="actions"><button type="submit">${v.t('Увімкнути блокування зараз', 'Lock it now')}</button></div>`,
            )
      }`;
    return html`<h2 id="settings">${v.t('Сервери імен, блокування передачі, мітки', 'Nameservers, transfer lock, labels')}</h2>
      <div class="card">
        ${done === 'operation-requested' ? requestedNote(v, r.query.op ?? null) : ''}
        ${done === 'locked' ? alert('ok', v.t('Блокування передачі знову ввімкнено.', 'The transfer lock is on again.')) : ''}
        ${done === 'locked-cancelled' ? alert('ok', v.t('Блокування передачі знову ввімкнено; запит зняти його скасовано.', 'The transfer lock is on again; the request to lift it was cancelled.')) : ''}
        <p>
          ${v.t('Зміна серверів імен, зняття блокування передачі й зміна міток — операції класу 3: вони набувають чинності через 24 години або раніше, коли їх підтвердить інший власник; будь-який власник може скасувати. Для запиту потрібен повторний вхід у межах 5 хвилин.', 'Changing the nameservers, lifting the transfer lock and changing the labels are class 3 operations: they take effect after 24 hours, or sooner once another owner confirms them; any owner may cancel. Asking needs a sign-in within the last 5 minutes.')}
        </p>
        ${pending ? alert('info', html`${v.t('Для цього домену вже є операція, що очікує; нову можна запитати, коли вона завершиться або її скасують.', 'This domain already has a pending operation; a new one can be asked once it ends or is cancelled.')} <a href="/console/operations">${v.t('Операції', 'Operations')}</a>`) : ''}
        ${
          !owner
            ? html`<p class="muted">
                ${v.t('Ці зміни запитують лише власники облікового запису (учасники — до класу 1).', 'Only the account’s owners ask for these changes (members go up to class 1).')}
              </p>`
            : html`${
                  hosted
                    ? html`${errorBox(v, errorOf('nameservers') ?? errorOf('lock'))}
                        <p class="muted" id="settings-hosted">
                          ${v.t('Домен зареєстровано в іншого реєстратора: його сервери імен і блокування передачі змінюють там. Тут — лише мітки.', 'The domain is registered at another registrar: its nameservers and transfer lock are changed there. Here, the labels only.')}
                        </p>`
                    : nameserversAndLock
                }
                <h3>${v.t('Мітки', 'Labels')}</h3>
                ${errorBox(v, errorOf('labels'))}
                ${postForm(
                  v,
                  `${self(d.domain)}/labels`,
                  html`<label for="labels-list">${v.t('Мітки (через кому; до 20)', 'Labels (comma-separated; up to 20)')}</label>
                    <input
                      id="labels-list"
                      name="labels"
                      type="text"
                      spellcheck="false"
                      value="${typed?.form === 'labels' ? typed.labels : d.labels.join(', ')}"
                      aria-describedby="labels-hint"
                      ${errorOf('labels') ? html`aria-invalid="true"` : ''}
                    />
                    ${fieldError(v, errorOf('labels'), 'labels')}
                    <p class="hint" id="labels-hint">
                      ${v.t('Мітки визначають, до яких доменів сягають ключі, обмежені мітками: нова мітка розширює їхній доступ.', 'Labels decide which domains label-scoped keys reach: a new label widens what they reach.')}
                    </p>
                    <div class="actions"><button type="submit">${v.t('Запитати зміну міток', 'Ask to change the labels')}</button></div>`,
                  {
                    confirm: v.t(
                      `Запитати зміну міток ${d.domain}? Це операція класу 3.`,
                      `Ask to change the labels of ${d.domain}? This is a class 3 operation.`,
                    ),
                  },
                )}`
        }
      </div>`;
  };

  /** After a request: what happens next, with a link to the operation. */
  const requestedNote = (v: View, op: string | null) =>
    alert(
      'ok',
      html`${v.t('Запит записано як операцію класу 3: вона набуде чинності через 24 години або раніше, коли її підтвердить інший власник. Усіх власників сповіщено.', 'The request is recorded as a class 3 operation: it takes effect after 24 hours, or sooner once another owner confirms it. Every owner was notified.')}
      ${op ? html`<a href="/console/operations#op-${enc(op)}">${v.t('Операція на сторінці операцій', 'The operation on the operations page')}</a>` : ''}`,
    );

  return { pages, panel };
};

/** A settings form sent back with its error and what was typed. */
type Typed =
  | { readonly form: 'nameservers'; readonly error: DomainError; readonly nameservers: string }
  | { readonly form: 'labels'; readonly error: DomainError; readonly labels: string }
  | { readonly form: 'lock'; readonly error: DomainError };
