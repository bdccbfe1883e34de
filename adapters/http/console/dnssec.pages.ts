import { personMay } from '../../../core/access/person-key.js';
import type { DnssecView } from '../../../core/dnssec/dnssec-view.js';
import type { DomainError } from '../../../core/kernel/errors.js';
import { requireRecentSignIn } from '../../../core/kernel/human-guards.js';
import { dnssecRoutes } from '../routes/dnssec.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, doneBanner, enc, errorBox, field, fieldError, keyFor, postForm, validateBody } from './acting.js';
import { html, raw } from './html.js';
import { alert, when, type View } from './layout.js';
import { pageHead } from './fields.js';
import type { ConsolePage, ConsoleRequest, PageOut } from './page.js';

/**
 * A domain's DNSSEC in the console: the same use cases as GET/PUT/DELETE /v1/domains/{d}/dnssec, under the
 * same class 3 right (dns.dnssec: owners only, by the key rule), and, being able to take a domain off the
 * internet, only within five minutes of signing in (as the console's other sensitive acts).
 */
const ALGORITHMS: ReadonlyArray<{ n: number; uk: string; en: string }> = [
  {
    n: 13,
    uk: '13 — ECDSA P-256 SHA-256 (рекомендовано, підтримують усі валідатори)',
    en: '13 — ECDSA P-256 SHA-256 (recommended, every validator knows it)',
  },
  {
    n: 15,
    uk: '15 — Ed25519 (коротші підписи; деякі старі валідатори не знають)',
    en: '15 — Ed25519 (shorter signatures; some old validators do not know it)',
  },
];
const algName = (n: number | null) => (n === 13 ? 'ECDSA P-256 SHA-256' : n === 15 ? 'Ed25519' : n === null ? '—' : String(n));

const statusText = (v: View, s: DnssecView): [string, 'ok' | 'warn' | ''] => {
  if (!s.enabled) return [v.t('вимкнено: зона не підписана', 'off: the zone is not signed'), ''];
  switch (s.status) {
    case 'secure':
      return [v.t('захищено: батьківська зона має наш DS', 'secure: the parent zone holds our DS'), 'ok'];
    case 'signed':
    case 'ds_pending':
      return [v.t('підписано, але DS ще не опубліковано в батьківській зоні', 'signed, but the DS is not yet at the parent zone'), 'warn'];
    case 'rolling':
      return [v.t('триває заміна ключа', 'a key rollover is under way'), 'warn'];
    case 'disabling':
      return [v.t('вимикається', 'being switched off'), 'warn'];
    default:
      return [s.status ?? '—', ''];
  }
};

export const dnssecPages = (uc: UseCases): ConsolePage[] => {
  const routes = dnssecRoutes(uc);
  const self = (d: string) => `/console/domains/${enc(d)}/dnssec`;

  const page = async (r: ConsoleRequest, typed?: { error: DomainError; algorithm: string }): Promise<PageOut> => {
    const v = r.view;
    const d = r.params[0]!;
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, 'getDnssec', key, { params: { domain: d } });
    const s = await uc.readDnssec.execute(key, d);
    const owner = personMay(r.human!.actor, 'dns.dnssec');
    const [text, tone] = statusText(v, s);
    const chosen = typed?.algorithm ?? String(s.algorithm ?? 13);
    return {
      title: `DNSSEC — ${d}`,
      ...(typed ? { status: 422 } : {}),
      body: html`${pageHead({ href: `/console/domains/${enc(d)}`, label: d }, 'DNSSEC', d)}
        ${doneBanner(r, {
          enabled: [
            'Зону підписано. Тепер опублікуйте DS у батьківській зоні (нижче).',
            'The zone is signed. Now publish the DS at the parent zone (below).',
          ],
          disabled: ['DNSSEC вимкнено: зону більше не підписано.', 'DNSSEC is off: the zone is no longer signed.'],
        })}
        ${errorBox(v, typed?.error)}
        <div class="card">
          <dl class="kv">
            <dt>${v.t('Стан', 'Status')}</dt>
            <dd><span class="pill ${tone}" id="dnssec-status">${text}</span></dd>
            <dt>${v.t('Алгоритм', 'Algorithm')}</dt>
            <dd>${s.algorithm === null ? '—' : `${s.algorithm} (${algName(s.algorithm)})`}</dd>
            <dt>${v.t('DS у батьківській зоні', 'DS at the parent')}</dt>
            <dd>${s.ds_at_parent ? v.t('так', 'yes') : v.t('ні', 'no')}</dd>
            ${
              s.signatures
                ? html`<dt>${v.t('Підписи дійсні', 'Signatures valid')}</dt>
                    <dd>${when(s.signatures.inception, v)} — ${when(s.signatures.expiration, v)}</dd>`
                : ''
            }
          </dl>
        </div>
        ${
          s.enabled
            ? html`<h2>${v.t('Запис DS для батьківської зони', 'The DS record for the parent zone')}</h2>
                <p>
                  ${v.t('Додайте цей запис DS у реєстратора (або в батьківській зоні). Поки його там немає, валідатори вважають зону непідписаною — нічого не ламається.', 'Add this DS record at the registrar (or the parent zone). Until it is there, validators treat the zone as unsigned — nothing breaks.')}
                </p>
                ${s.ds.map(
                  (ds, i) =>
                    html`<div class="secret">
                      <code id="ds-${i}" class="wrap">${d}. IN DS ${ds}</code
                      ><button type="button" class="secondary" data-copy="ds-${i}" data-copied="${v.t('Скопійовано', 'Copied')}">
                        ${v.t('Копіювати', 'Copy')}
                      </button>
                    </div>`,
                )}
                <h2>${v.t('Ключі', 'Keys')}</h2>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">${v.t('Тег', 'Tag')}</th>
                      <th scope="col">${v.t('Алгоритм', 'Algorithm')}</th>
                      <th scope="col">${v.t('Прапорці', 'Flags')}</th>
                      <th scope="col">${v.t('Роль', 'Role')}</th>
                      <th scope="col">${v.t('Стан', 'State')}</th>
                      <th scope="col">${v.t('Створено', 'Created')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${s.keys.map(
                      (k) =>
                        html`<tr>
                          <td data-label="${v.t('Тег', 'Tag')}" class="mono">${k.tag}</td>
                          <td data-label="${v.t('Алгоритм', 'Algorithm')}">${k.algorithm} (${algName(k.algorithm)})</td>
                          <td data-label="${v.t('Прапорці', 'Flags')}">
                            ${k.flags}${k.flags === 257 ? html` <span class="muted">${v.t('(один ключ підписує все)', '(one key signs everything)')}</span>` : ''}
                          </td>
                          <td data-label="${v.t('Роль', 'Role')}">${k.role.toUpperCase()}</td>
                          <td data-label="${v.t('Стан', 'State')}">${k.state}</td>
                          <td data-label="${v.t('Створено', 'Created')}">${when(k.created_at, v)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
            : ''
        }
        <h2>${s.enabled ? v.t('Змінити', 'Change') : v.t('Увімкнути DNSSEC', 'Switch DNSSEC on')}</h2>
        <div class="card">
          ${
            !owner
              ? html`<p class="muted">
                  ${v.t('DNSSEC вмикають і вимикають лише власники облікового запису: це дія класу 3 (учасники — до класу 1).', 'Only the account’s owners switch DNSSEC on or off: it is a class 3 action (members go up to class 1).')}
                </p>`
              : html`${alert(
                  'info',
                  v.t(
                    'Це дія класу 3: помилка з DNSSEC може зробити домен недоступним. Потрібен вхід не давніше 5 хвилин тому.',
                    'This is a class 3 action: a DNSSEC mistake can take the domain off the internet. It needs a sign-in within the last 5 minutes.',
                  ),
                )}
                ${postForm(
                  v,
                  self(d),
                  html`<fieldset>
                      <legend>${v.t('Алгоритм', 'Algorithm')}</legend>
                      ${ALGORITHMS.map(
                        (a) =>
                          html`<label class="choice"
                            ><input type="radio" name="algorithm" value="${a.n}" ${chosen === String(a.n) ? raw(' checked') : ''} /><span
                              >${v.t(a.uk, a.en)}</span
                            ></label
                          >`,
                      )}
                    </fieldset>
                    ${fieldError(v, typed?.error, 'algorithm')}
                    <div class="actions">
                      <button type="submit">
                        ${s.enabled ? v.t('Підписати заново обраним алгоритмом', 'Sign again with the chosen algorithm') : v.t('Підписати зону', 'Sign the zone')}
                      </button>
                    </div>`,
                  { back: self(d) },
                )}
                ${
                  s.enabled
                    ? postForm(
                        v,
                        `${self(d)}/off`,
                        html`<p>
                            ${
                              s.ds_at_parent
                                ? v.t(
                                    'Батьківська зона ще має наш DS: спершу приберіть його в реєстратора, інакше домен перестане відповідати валідаторам.',
                                    'The parent zone still holds our DS: remove it at the registrar first, or the domain stops answering validators.',
                                  )
                                : v.t(
                                    'Вимкнення одразу прибирає підписи; DS у батьківській зоні немає, тож нічого не зламається.',
                                    'Switching off removes the signatures at once; the parent holds no DS, so nothing breaks.',
                                  )
                            }
                          </p>
                          <div class="actions">
                            <button class="danger" type="submit">${v.t('Вимкнути DNSSEC', 'Switch DNSSEC off')}</button>
                          </div>`,
                        {
                          back: self(d),
                          confirm: v.t(`Вимкнути DNSSEC для ${d}?`, `Switch DNSSEC off for ${d}?`),
                        },
                      )
                    : ''
                }`
          }
        </div>`,
    };
  };

  return [
    { method: 'GET', pattern: /^\/console\/domains\/([^/]+)\/dnssec$/, auth: true, handle: (r) => page(r) },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const algorithm = field(r, 'algorithm');
        const out = await attempt(async () => {
          const body = { algorithm: /^\d+$/.test(algorithm) ? Number(algorithm) : algorithm };
          validateBody(routes, 'enableDnssec', body);
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'enableDnssec', key, { params: { domain: d }, body });
          requireRecentSignIn(r.human!.session, new Date());
          return uc.enableDnssec.execute(key, d, body.algorithm as number);
        });
        if ('error' in out) return page(r, { error: out.error, algorithm });
        return { redirect: `${self(d)}?done=enabled` };
      },
    },
    {
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/off$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const out = await attempt(async () => {
          const key = await keyFor(uc, r);
          await authorizeAs(uc, routes, 'disableDnssec', key, { params: { domain: d } });
          requireRecentSignIn(r.human!.session, new Date());
          return uc.disableDnssec.execute(key, d);
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        return { redirect: `${self(d)}?done=disabled` };
      },
    },
  ];
};
