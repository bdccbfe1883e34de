import { DURATION_MESSAGE } from '../../../core/sandbox/advance-clock.use-case.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import type { UseCases } from '../use-cases.js';
import { html, raw } from './html.js';
import { postForm } from './acting.js';
import { alert, when } from './layout.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * The sandbox clock in the console (DESIGN: moving it needs sandbox.clock on a test key, or an owner in the
 * console). The same use case as /v1/sandbox/clock, with the person as the event's actor.
 */
const MOVES: ReadonlyArray<{ value: string; uk: string; en: string }> = [
  { value: 'P1D', uk: '1 день', en: '1 day' },
  { value: 'P7D', uk: '7 днів', en: '7 days' },
  { value: 'P30D', uk: '30 днів', en: '30 days' },
  { value: 'P100D', uk: '100 днів', en: '100 days' },
  { value: 'P365D', uk: '1 рік (365 днів)', en: '1 year (365 days)' },
  { value: 'PT1H', uk: '1 година', en: '1 hour' },
];

const field = (r: ConsoleRequest, name: string): string => {
  const v = r.form[name];
  return (typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : '').trim();
};

/** Offset in whole days and hours, e.g. "30 d 0 h" (the clock only ever moves forward). */
const offsetText = (ms: number, t: (uk: string, en: string) => string) => {
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const d = Math.floor(hours / 24);
  const h = hours % 24;
  return t(`${d} дн. ${h} год. ${minutes} хв.`, `${d} d ${h} h ${minutes} min`);
};

const page = async (uc: UseCases, r: ConsoleRequest, refused: { advance: string } | null = null): Promise<PageOut> => {
  const v = r.view;
  const clock = await uc.advanceSandboxClock.readAsPerson(r.human!);
  const owner = r.human!.actor.role === 'owner';
  const kyiv = when(clock.now, v);
  return {
    ...(refused ? { status: 422 } : {}),
    title: v.t('Пісочниця', 'Sandbox'),
    body: html`<h1>${v.t('Годинник пісочниці', 'Sandbox clock')}</h1>
      <p class="hint">
        ${v.t('Годинник пісочниці переводить уперед домени пісочниці цього рахунку, затримки дій класу 3 і сертифікати; строк дії ключів він не змінює.', "The sandbox clock moves this account's sandbox domains, class 3 delays and certificates forward; it does not change key validity.")}
      </p>
      ${r.query.done ? alert('ok', v.t('Годинник пісочниці переведено.', 'The sandbox clock was moved.')) : ''}
      ${refused ? alert('error', html`<p>${v.t(DURATION_MESSAGE.uk, DURATION_MESSAGE.en)}: <code>${refused.advance}</code></p>`) : ''}
      <div class="card">
        <dl class="kv">
          <dt>${v.t('Час пісочниці', 'Sandbox time')}</dt>
          <dd><time id="sandbox-now" datetime="${clock.now}">${kyiv}</time></dd>
          <dt>${v.t('Випередження', 'Ahead of real time')}</dt>
          <dd id="sandbox-offset" data-offset-ms="${String(clock.offset_ms)}">${offsetText(clock.offset_ms, v.t)}</dd>
        </dl>
      </div>
      ${
        owner
          ? html`<h2 id="move">${v.t('Перевести годинник', 'Move the clock')}</h2>
              ${postForm(
                v,
                '/console/sandbox/clock',
                html`<label for="move">${v.t('На скільки', 'By how much')}</label
                  ><select id="move" name="move">
                    ${MOVES.map((m) => html`<option value="${m.value}">${v.t(m.uk, m.en)}</option>`)}
                  </select>
                  <label for="advance">${v.t('Або тривалість ISO 8601', 'Or an ISO 8601 duration')}</label
                  ><input
                    id="advance"
                    name="advance"
                    type="text"
                    maxlength="20"
                    placeholder="P30D"
                    autocomplete="off"
                    value="${refused?.advance ?? ''}"
                    aria-describedby="advance-hint"
                    ${refused ? raw(' aria-invalid="true"') : ''}
                  />
                  <p class="hint" id="advance-hint">
                    ${v.t('Якщо поле заповнене, діє воно, а не вибір зі списку. Дні, години або хвилини (P30D, PT12H), не більше 3 років. Годинник рухається лише вперед.', 'When filled, this field wins over the list. Days, hours or minutes (P30D, PT12H), at most 3 years. The clock only moves forward.')}
                  </p>
                  <div class="actions"><button type="submit">${v.t('Перевести вперед', 'Move forward')}</button></div>`,
                { cls: 'stack card', back: '/console/sandbox' },
              )}`
          : html`<p class="muted">
              ${v.t('Переводити годинник можуть лише власники (або ключ пісочниці з правом sandbox.clock).', 'Only owners can move the clock (or a test key holding sandbox.clock).')}
            </p>`
      }`,
  };
};

export const sandboxPages = (uc: UseCases): ConsolePage[] => [
  { method: 'GET', pattern: /^\/console\/sandbox$/, auth: true, handle: (r) => page(uc, r) },
  {
    method: 'POST',
    pattern: /^\/console\/sandbox\/clock$/,
    auth: true,
    handle: async (r) => {
      const advance = field(r, 'advance') || field(r, 'move');
      try {
        await uc.advanceSandboxClock.executeAsPerson(r.human!, advance);
      } catch (err) {
        // A refused duration is shown next to the form it came from; anything else (owner_only …) takes the usual error page.
        if (isDomainError(err) && err.code === 'validation_failed') return page(uc, r, { advance });
        throw err;
      }
      return { redirect: '/console/sandbox?done=1' };
    },
  },
];
