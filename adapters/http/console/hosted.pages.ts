import type { DomainView } from '../../../core/domains/domain.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { normalizeDomain } from '../../../core/kernel/domain-name.js';
import { hostedDomainRoutes } from '../routes/hosted-domains.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, doneBanner, enc, field, fieldError, keyFor, postForm, validateBody } from './acting.js';
import { errorText } from './error-text.js';
import { html } from './html.js';
import { alert, when } from './layout.js';
import { pageHead } from './fields.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * Hosted domains in the console (DNS for a domain registered at another registrar): add one, then the
 * exact TXT record and delegation to set at the other registrar, the verification status and a "check
 * now" button — the same use cases as POST /v1/hosted-domains and /v1/domains/{d}/hosting/verify.
 */
export const hostedPages = (uc: UseCases): ConsolePage[] => {
  const routes = hostedDomainRoutes(uc);
  const self = (d: string) => `/console/domains/${enc(d)}/hosting`;

  const addPage = (r: ConsoleRequest, typed?: { domain: string; error: DomainError }): PageOut => {
    const v = r.view;
    return {
      title: v.t('Домен з іншого реєстратора', 'A domain from another registrar'),
      ...(typed ? { status: 422 } : {}),
      body: html`${pageHead({ href: `/console/`, label: v.t('Домени', 'Domains') }, v.t('Обслуговувати DNS домену з іншого реєстратора', 'Host the DNS of a domain registered elsewhere'))}
        <p>
          ${v.t('Домен лишається у вашого реєстратора; ми обслуговуємо його зону, щойно ви доведете, що домен ваш (запис TXT), і вкажете наші сервери імен.', 'The domain stays at your registrar; we serve its zone once you prove the domain is yours (a TXT record) and point it at our nameservers.')}
        </p>
        <div class="card">
          ${postForm(
            v,
            '/console/hosted',
            html`<label for="hosted-domain">${v.t('Домен', 'Domain')}</label>
              <input
                id="hosted-domain"
                name="domain"
                type="text"
                required
                autocomplete="off"
                spellcheck="false"
                value="${typed?.domain ?? ''}"
                aria-describedby="hosted-hint${typed ? ' err-domain' : ''}"
              />
              <p class="hint" id="hosted-hint">${v.t('Наприклад, example.com (без www).', 'For example, example.com (no www).')}</p>
              ${
                typed?.error.details?.length
                  ? fieldError(v, typed.error, 'domain')
                  : typed
                    ? html`<p class="field-error" id="err-domain">
                        ${errorText(v.lang, typed.error)} <span class="muted">(<code>${typed.error.code}</code>)</span>
                      </p>`
                    : ''
              }
              <div class="actions"><button type="submit">${v.t('Додати домен', 'Add the domain')}</button></div>`,
          )}
        </div>`,
    };
  };

  const statusPage = async (r: ConsoleRequest, d: DomainView): Promise<PageOut> => {
    const v = r.view;
    const h = d.hosting!;
    const active = h.status === 'active';
    const steps = html`<h2>${v.t('Крок 1. Запис TXT — доказ, що домен ваш', 'Step 1. The TXT record — proof the domain is yours')}</h2>
      <p>
        ${v.t('Додайте цей запис у DNS домену там, де він обслуговується зараз (у вашого реєстратора чи DNS-провайдера), до зміни серверів імен:', 'Add this record to the domain’s DNS where it is served now (at your registrar or DNS provider), before changing the nameservers:')}
      </p>
      <dl class="kv card">
        <dt>${v.t('Тип', 'Type')}</dt>
        <dd class="mono">TXT</dd>
        <dt>${v.t('Ім’я', 'Name')}</dt>
        <dd class="mono wrap" id="txt-name">${h.verification.name}</dd>
        <dt>${v.t('Значення', 'Value')}</dt>
        <dd>
          <div class="secret">
            <code id="txt-value" class="wrap">${h.verification.value}</code
            ><button type="button" class="secondary" data-copy="txt-value" data-copied="${v.t('Скопійовано', 'Copied')}">
              ${v.t('Копіювати', 'Copy')}
            </button>
          </div>
        </dd>
      </dl>
      <p class="hint">
        ${v.t('Деякі панелі просять лише частину імені перед доменом: тоді впишіть _domivka-challenge.', 'Some panels ask only for the part before the domain: then enter _domivka-challenge.')}
      </p>
      <h2>${v.t('Крок 2. Сервери імен', 'Step 2. The nameservers')}</h2>
      <p>
        ${v.t('Коли запис TXT перевірено, у реєстратора замініть сервери імен домену на ці (і лише на ці):', 'Once the TXT record is verified, at the registrar replace the domain’s nameservers with these (and only these):')}
      </p>
      <ul class="mono" id="our-nameservers">
        ${h.nameservers.map((ns) => html`<li>${ns}</li>`)}
      </ul>
      <p class="hint">
        ${v.t('Зміна делегування поширюється до 48 годин. Поки домен не перевірено, ми не відповідаємо на запити до його зони; редагувати записи можна вже зараз.', 'A delegation change can take up to 48 hours to spread. Until the domain is verified we do not answer for its zone; you may edit its records already.')}
      </p>`;
    return {
      title: `${v.t('Обслуговування DNS', 'DNS hosting')} — ${d.domain}`,
      body: html`${pageHead({ href: `/console/domains/${enc(d.domain)}`, label: d.domain }, v.t('Обслуговування DNS', 'DNS hosting'), d.domain)}
        ${doneBanner(r, {
          added: ['Домен додано. Виконайте два кроки нижче.', 'The domain was added. Do the two steps below.'],
          checked: ['Перевірено щойно.', 'Checked just now.'],
        })}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'Status')}</dt>
            <dd>
              <span class="pill ${active ? 'ok' : 'warn'}" id="hosting-status"
                >${active ? v.t('перевірено: зону обслуговуємо', 'verified: the zone is served') : v.t('чекає на перевірку', 'waiting for verification')}</span
              >
            </dd>
            <dt>${v.t('Остання перевірка', 'Last check')}</dt>
            <dd>${h.verification.checked_at ? when(h.verification.checked_at, v) : v.t('ще не було', 'not yet')}</dd>
          </dl>
          ${h.problem ? alert('error', html`<p id="hosting-problem">${v.lang === 'uk' ? h.problem.message.uk : h.problem.message.en}</p>`) : ''}
          ${postForm(
            v,
            `${self(d.domain)}/verify`,
            html`<div class="actions"><button type="submit">${v.t('Перевірити зараз', 'Check now')}</button></div>`,
            { back: self(d.domain) },
          )}
        </div>
        ${
          active
            ? html`<p id="hosting-next">
                  ${v.t('Домен перевірено. Залиште в реєстратора наші сервери імен', 'The domain is verified. Keep our nameservers at the registrar')}
                  (<span class="mono">${h.nameservers.join(', ')}</span>);
                  ${v.t('запис TXT тепер можна прибрати.', 'the TXT record may now be removed.')}
                </p>
                <details>
                  <summary>
                    ${v.t('Як його було перевірено: запис TXT і сервери імен', 'How it was verified: the TXT record and the nameservers')}
                  </summary>
                  ${steps}
                </details>`
            : steps
        }
        <p><a class="button secondary" href="/console/domains/${enc(d.domain)}/dns">${v.t('Записи зони', 'Zone records')}</a></p>`,
    };
  };

  const load = async (r: ConsoleRequest, d: string): Promise<DomainView> => {
    const { domain } = await uc.humanReads.domain(r.human!.actor, r.view.env, d);
    return domain;
  };

  return [
    { method: 'GET', pattern: /^\/console\/hosted$/, auth: true, handle: async (r) => addPage(r) },
    {
      method: 'POST',
      pattern: /^\/console\/hosted$/,
      auth: true,
      handle: async (r) => {
        const typed = field(r, 'domain').trim();
        const out = await attempt(async () => {
          const body = { domain: typed };
          validateBody(routes, 'createHostedDomain', body);
          let name = typed;
          try {
            name = normalizeDomain(typed);
          } catch {
            // the use case gives the API's own refusal for a name that is not one
          }
          const key = await keyFor(uc, r, [name]);
          await authorizeAs(uc, routes, 'createHostedDomain', key, { body: { domain: name } });
          return uc.hostDomain.execute(key, { domain: typed });
        });
        if ('error' in out) return addPage(r, { domain: typed, error: out.error });
        return { redirect: `${self(out.ok.domain)}?done=added` };
      },
    },
    {
      method: 'GET',
      pattern: /^\/console\/domains\/([^/]+)\/hosting$/,
      auth: true,
      handle: async (r) => {
        const d = await load(r, r.params[0]!);
        if (!d.hosting) return { redirect: `/console/domains/${enc(d.domain)}` };
        return statusPage(r, d);
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/hosting\/verify$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const key = await keyFor(uc, r);
        await authorizeAs(uc, routes, 'verifyHosting', key, { params: { domain: d } });
        await uc.verifyHosting.execute(key, d);
        return { redirect: `${self(d)}?done=checked` };
      },
    },
  ];
};
