import { personMay } from '../../../core/access/person-key.js';
import type { DnssecView } from '../../../core/dnssec/dnssec-view.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { OperationActor } from '../../../core/kernel/actor.js';
import type { OperationView } from '../../../core/operations/operation.js';
import { requireRecentSignIn } from '../../../core/kernel/human-guards.js';
import { dnssecRoutes } from '../routes/dnssec.routes.js';
import type { UseCases } from '../use-cases.js';
import { attempt, authorizeAs, doneBanner, enc, errorBox, field, fieldError, keyFor, postForm, validateBody } from './acting.js';
import { html, raw, type Html } from './html.js';
import { alert, when, type View } from './layout.js';
import { pageHead } from './fields.js';
import { errorText } from './error-text.js';
import { historyTable, readDnssecHistory, rolloverNow, stepText } from './dnssec-timeline.js';
import { dataTable } from './table.js';
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

const statusText = (v: View, s: DnssecView, disableOp: OperationView | undefined): [string, 'ok' | 'warn' | ''] => {
  if (!s.enabled) return [v.t('вимкнено: зона не підписана', 'off: the zone is not signed'), ''];
  switch (s.status) {
    case 'secure':
      return disableOp
        ? [
            v.t(
              'захищено; вимкнення запитано: реєстр прибере DS, коли операція набуде чинності',
              'secure; switching off is requested: the registry removes the DS when the operation takes effect',
            ),
            'warn',
          ]
        : [v.t('захищено: батьківська зона має наш DS', 'secure: the parent zone holds our DS'), 'ok'];
    case 'signed':
    case 'ds_pending':
      return [v.t('підписано, але DS ще не опубліковано в батьківській зоні', 'signed, but the DS is not yet at the parent zone'), 'warn'];
    case 'rolling':
      return [v.t('триває заміна ключа', 'a key rollover is under way'), 'warn'];
    case 'disabling':
      return [
        v.t(
          `вимикається: DS прибрано з реєстру, підписи зникнуть ${when(s.stop_signing_at, v)}`,
          `being switched off: the DS left the registry, signing stops ${when(s.stop_signing_at, v)}`,
        ),
        'warn',
      ];
    default:
      return [s.status ?? '—', ''];
  }
};

/** The person as the actor of operation reads (as on the operations page). */
const personActor = (r: ConsoleRequest): OperationActor => {
  const h = r.human!;
  return { kind: 'person', personId: h.person.id, accountId: h.actor.accountId, role: h.actor.role, environment: r.view.env };
};

const OP_KIND: Readonly<Record<string, [string, string]>> = {
  dnssec_ds_publish: ['Публікація DS у реєстрі', 'Publishing the DS at the registry'],
  dnssec_disable: ['Вимкнення DNSSEC (DS прибирається першим)', 'Switching DNSSEC off (the DS goes first)'],
  dnssec_foreign_key_remove: ['Ключ іншого оператора виходить з набору DNSKEY', "Another operator's key leaves the DNSKEY set"],
  dnssec_ds_remove: ['Запис DS іншого оператора прибирається з реєстру', "Another operator's DS leaves the registry"],
};
const OP_STATUS: Readonly<Record<string, [string, string, string]>> = {
  pending: ['очікує', 'pending', 'warn'],
  active: ['виконано', 'done', 'ok'],
  cancelled: ['скасовано', 'cancelled', ''],
  failed: ['не вдалася', 'failed', 'bad'],
};
/** The DS records typed into a form, one per line. */
const dsLines = (typed: string): string[] =>
  typed
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** Where the console shows a pending operation (confirm, cancel). */
const opLink = (id: string) => `/console/operations#op-${encodeURIComponent(id)}`;

/** A failed DNSSEC operation's reason ("<code>: <the registry's words>") as the API's error text. */
const failureText = (v: View, op: OperationView): string => {
  const reason = op.failure_reason ?? '';
  const m = /^(dnssec_ds_removal_refused|dnssec_ds_refused): ([\s\S]*)$/.exec(reason);
  if (!m) return reason;
  return errorText(v.lang, new DomainError(m[1] as 'dnssec_ds_removal_refused', { domain: op.domain, reason: m[2]! }));
};

const opsTable = (v: View, ops: readonly OperationView[]) =>
  dataTable(
    [
      v.t('Операція', 'Operation'),
      v.t('Стан', 'State'),
      v.t('Запитано', 'Requested'),
      v.t('Набуде чинності / вирішено', 'Takes effect / resolved'),
    ],
    ops.map((op) => {
      const [uk, en, tone] = OP_STATUS[op.status] ?? [op.status, op.status, ''];
      return html`<tr id="dnssec-op-${op.id}">
        <td>
          ${OP_KIND[op.kind] ? v.t(...OP_KIND[op.kind]!) : op.kind}<br /><span class="muted effect"
            >${v.lang === 'uk' ? op.effect.uk : op.effect.en}</span
          >
        </td>
        <td>
          <span class="pill ${tone}">${v.t(uk, en)}</span>
          ${op.status === 'failed' ? html`<p class="field-error" id="dnssec-op-${op.id}-failure">${failureText(v, op)}</p>` : ''}
        </td>
        <td>${when(op.created_at, v)}</td>
        <td>
          ${op.status === 'pending' ? html`${when(op.activates_at, v)}<br /><a href="${opLink(op.id)}">${v.t('Підтвердити або скасувати', 'Confirm or cancel')}</a>` : when(op.resolved_at, v)}
        </td>
      </tr>`;
    }),
    { id: 'dnssec-ops' },
  );

export const dnssecPages = (uc: UseCases): ConsolePage[] => {
  const routes = dnssecRoutes(uc);
  const self = (d: string) => `/console/domains/${enc(d)}/dnssec`;
  /** The person's key for a DNSSEC act: the API route's right, and a sign-in within the last five minutes. */
  const sensitiveKey = async (r: ConsoleRequest, routeId: string, input: Parameters<typeof authorizeAs>[4]) => {
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, routeId, key, input);
    requireRecentSignIn(r.human!.session, new Date());
    return key;
  };

  /** The banner after a class 3 request: what was asked, when it takes effect, and where to confirm it. */
  const requested = (v: View, op: OperationView | undefined, ourDs: readonly string[]): Html | '' => {
    if (!op) return '';
    const link = html`<a href="${opLink(op.id)}" id="dnssec-op-link"
      >${v.t('Операція на сторінці операцій', 'The operation on the operations page')}</a
    >`;
    if (op.kind === 'dnssec_ds_remove' || (op.kind === 'dnssec_ds_publish' && !(op.ds ?? []).some((x) => ourDs.includes(x))))
      return alert(
        'ok',
        html`${v.t(
          `${op.kind === 'dnssec_ds_remove' ? 'Прибрання' : 'Додавання'} DS ${(op.ds ?? []).join(', ')} у реєстрі запитано як операцію класу 3. Вона набуде чинності ${when(op.activates_at, v)} або раніше, коли її підтвердить інший власник.`,
          `${op.kind === 'dnssec_ds_remove' ? 'Removing' : 'Adding'} the DS ${(op.ds ?? []).join(', ')} at the registry is requested as a class 3 operation. It takes effect ${when(op.activates_at, v)}, or sooner once another owner confirms it.`,
        )}
        ${link}`,
      );
    if (op.kind === 'dnssec_foreign_key_remove')
      return alert(
        'ok',
        html`${v.t(
          `Ключ іншого оператора вийде з набору DNSKEY ${when(op.activates_at, v)} або раніше, коли операцію класу 3 підтвердить інший власник.`,
          `The other operator's key leaves the DNSKEY set ${when(op.activates_at, v)}, or sooner once another owner confirms the class 3 operation.`,
        )}
        ${link}`,
      );
    return op.kind === 'dnssec_disable'
      ? alert(
          'ok',
          html`${v.t(
            `Вимкнення запитано як операцію класу 3. Вона набуде чинності ${when(op.activates_at, v)} або раніше, коли її підтвердить інший власник. Тоді реєстр прибере DS; зона підписуватиметься, доки не мине TTL DS, і лише потім підписи зникнуть.`,
            `Switching off is requested as a class 3 operation. It takes effect ${when(op.activates_at, v)}, or sooner once another owner confirms it. Then the registry removes the DS; the zone stays signed until the DS TTL has passed, and only then do the signatures go.`,
          )}
          ${link}`,
        )
      : alert(
          'ok',
          html`${v.t(
            `Публікацію DS запитано як операцію класу 3. Вона набуде чинності ${when(op.activates_at, v)} або раніше, коли її підтвердить інший власник; тоді реєстр отримає DS і зона стане захищеною.`,
            `Publishing the DS is requested as a class 3 operation. It takes effect ${when(op.activates_at, v)}, or sooner once another owner confirms it; then the registry receives the DS and the zone becomes secure.`,
          )}
          ${link}`,
        );
  };

  const page = async (r: ConsoleRequest, typed?: { error: DomainError; algorithm: string }): Promise<PageOut> => {
    const v = r.view;
    const d = r.params[0]!;
    const key = await keyFor(uc, r);
    await authorizeAs(uc, routes, 'getDnssec', key, { params: { domain: d } });
    const s = await uc.readDnssec.execute(key, d);
    const { domain } = await uc.humanReads.domain(r.human!.actor, v.env, d);
    const hosted = domain.registrar === 'external';
    const ops = (await uc.listOperations.execute(personActor(r), { domain: domain.domain, limit: 20 })).data.filter(
      (op) => op.kind in OP_KIND,
    );
    const pending = (kind: string) => ops.find((op) => op.kind === kind && op.status === 'pending');
    const disableOp = pending('dnssec_disable');
    const publishOp = pending('dnssec_ds_publish');
    const history = await readDnssecHistory(uc, key, domain.domain);
    const owner = personMay(r.human!.actor, 'dns.dnssec');
    const [text, tone] = statusText(v, s, disableOp);
    // While rolling, the algorithm being rolled to is the one chosen (the same again changes nothing).
    const rollingTo = s.rollover ? s.keys.find((k) => k.tag === s.rollover!.new_key_tag)?.algorithm : undefined;
    const chosen = typed?.algorithm ?? String(rollingTo ?? s.algorithm ?? 13);
    const mayPublish = owner && s.enabled && !hosted && !s.ds_at_parent && s.status !== 'disabling' && !publishOp;
    return {
      title: `DNSSEC — ${d}`,
      ...(typed ? { status: 422 } : {}),
      body: html`${pageHead({ href: `/console/domains/${enc(d)}`, label: d }, 'DNSSEC', d)}
        ${
          r.query.done === 'disable-requested' || r.query.done === 'ds-requested' || r.query.done === 'foreign-remove-requested'
            ? requested(
                v,
                ops.find((op) => op.id === r.query.op),
                s.ds,
              )
            : doneBanner(r, {
                enabled: [
                  'Зону підписано. Тепер опублікуйте DS у батьківській зоні (нижче).',
                  'The zone is signed. Now publish the DS at the parent zone (below).',
                ],
                rolling: [
                  'Алгоритм змінюється: зону підписують заново крок за кроком (нижче), щоб валідатори жодного разу не втратили домен.',
                  'The algorithm is changing: the zone is re-signed step by step (below), so validators never lose the domain.',
                ],
                disabled: ['DNSSEC вимкнено: зону більше не підписано.', 'DNSSEC is off: the zone is no longer signed.'],
                'foreign-added': [
                  'Ключ іншого оператора додано до набору DNSKEY; усі власники отримали сповіщення.',
                  "The other operator's key joined the DNSKEY set; every owner has been told.",
                ],
                'foreign-known': [
                  'Цей ключ уже був у наборі DNSKEY: нічого не змінилося.',
                  'That key was already in the DNSKEY set: nothing changed.',
                ],
                'foreign-removed': [
                  'Ключ іншого оператора прибрано з набору DNSKEY; усі власники отримали сповіщення.',
                  "The other operator's key left the DNSKEY set; every owner has been told.",
                ],
                disabling: [
                  'DNSSEC уже вимикається: DS прибрано, зона підписується, доки не мине TTL DS.',
                  'DNSSEC is already being switched off: the DS is gone, and the zone stays signed until the DS TTL has passed.',
                ],
              })
        }
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
              s.status === 'disabling'
                ? html`<dt>${v.t('Підписи зникнуть', 'Signing stops')}</dt>
                    <dd id="dnssec-stop-signing">${when(s.stop_signing_at, v)}</dd>`
                : ''
            }
            ${
              s.signatures
                ? html`<dt>${v.t('Підписи дійсні', 'Signatures valid')}</dt>
                    <dd>${when(s.signatures.inception, v)} — ${when(s.signatures.expiration, v)}</dd>`
                : ''
            }
            ${
              s.rollover
                ? html`<dt>${v.t('Заміна ключа', 'Key rollover')}</dt>
                    <dd>${stepText(v, s.rollover.step)}</dd>`
                : s.next_rollover_at
                  ? html`<dt>${v.t('Наступна заміна ключа', 'Next key rollover')}</dt>
                      <dd>${when(s.next_rollover_at, v)}</dd>`
                  : ''
            }
          </dl>
        </div>
        ${
          s.rollover
            ? html`<h2>${v.t('Заміна ключа зараз', 'The rollover under way')}</h2>
                ${rolloverNow(v, s.rollover)}`
            : ''
        }
        ${
          ops.length > 0
            ? html`<h2>${v.t('Операції DNSSEC', 'DNSSEC operations')}</h2>
                ${opsTable(v, ops)}`
            : ''
        }
        ${
          s.enabled
            ? html`<h2>${v.t('Запис DS для батьківської зони', 'The DS record for the parent zone')}</h2>
                <p>
                  ${
                    s.status === 'disabling'
                      ? v.t(
                          'Цей DS уже прибрано з реєстру; зона підписується, доки кеші резолверів його не забудуть.',
                          'This DS has already left the registry; the zone stays signed until resolvers’ caches forget it.',
                        )
                      : s.ds_at_parent
                        ? v.t(
                            'Батьківська зона містить цей запис DS: резолвери, що перевіряють DNSSEC, перевіряють підписи зони.',
                            'The parent zone holds this DS record: validating resolvers check the zone’s signatures.',
                          )
                        : hosted
                          ? v.t(
                              'Домен зареєстровано в іншого реєстратора: додайте цей запис DS у нього. Поки DS там немає, валідатори вважають зону непідписаною — нічого не ламається.',
                              'The domain is registered at another registrar: add this DS record there. Until it is there, validators treat the zone as unsigned — nothing breaks.',
                            )
                          : v.t(
                              'Цей запис DS реєстр публікує в батьківській зоні. Поки його там немає, валідатори вважають зону непідписаною — нічого не ламається.',
                              'The registry publishes this DS record in the parent zone. Until it is there, validators treat the zone as unsigned — nothing breaks.',
                            )
                  }
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
                ${
                  mayPublish
                    ? postForm(
                        v,
                        `${self(d)}/ds`,
                        html`<p>
                            ${v.t('Публікація DS — дія класу 3: її підтверджує інший власник, інакше вона набуде чинності сама через 24 години. Потрібен вхід не давніше 5 хвилин тому.', 'Publishing the DS is a class 3 action: another owner confirms it, or it takes effect by itself after 24 hours. It needs a sign-in within the last 5 minutes.')}
                          </p>
                          <div class="actions">
                            <button type="submit">${v.t('Опублікувати DS у реєстрі', 'Publish the DS at the registry')}</button>
                          </div>`,
                        { back: self(d), id: 'dnssec-publish' },
                      )
                    : ''
                }
                <h2>${v.t('Ключі', 'Keys')}</h2>
                ${dataTable(
                  [
                    v.t('Тег', 'Tag'),
                    v.t('Алгоритм', 'Algorithm'),
                    v.t('Прапорці', 'Flags'),
                    v.t('Роль', 'Role'),
                    v.t('Стан', 'State'),
                    v.t('Створено', 'Created'),
                    'DNSKEY',
                  ],
                  s.keys.map(
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
                        <td data-label="DNSKEY" class="mono">
                          <code id="dnskey-${k.tag}" class="wrap">${k.dnskey}</code>
                          <button
                            type="button"
                            class="small secondary"
                            data-copy="dnskey-${k.tag}"
                            data-copied="${v.t('Скопійовано', 'Copied')}"
                          >
                            ${v.t('Копіювати', 'Copy')}
                          </button>
                        </td>
                      </tr>`,
                  ),
                )}
                ${foreignKeys(v, d, s, owner, pending('dnssec_foreign_key_remove'), hosted)}`
            : ''
        }
        ${
          history.length > 0
            ? html`<h2>${v.t('Історія DNSSEC', 'DNSSEC history')}</h2>
                <p class="muted">${v.t('Найновіше зверху; події зберігаються 30 днів.', 'Newest first; events are kept 30 days.')}</p>
                ${historyTable(v, history)}`
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
                ${s.enabled ? switchOff(v, d, s, hosted, disableOp) : ''}`
          }
        </div>`,
    };
  };

  /**
   * Other operators' keys in our DNSKEY set (RFC 8901 model 2): a signed zone moving in or out. Adding is
   * at once; taking one out is the class 3 operation dnssec_foreign_key_remove (README: moving a signed zone).
   */
  const foreignKeys = (v: View, d: string, s: DnssecView, owner: boolean, removing: OperationView | undefined, hosted: boolean): Html => {
    const intro = v.t(
      'Щоб перенести підписану зону від іншого оператора (або до нього) без проміжку, коли вона не захищена, обидва оператори якийсь час підписують її разом: кожен додає ключ іншого до свого набору DNSKEY. Наш ключ для них — запис DNSKEY у таблиці «Ключі» вище (кнопка «Копіювати»).',
      'To move a signed zone from another operator (or to one) without a gap in which it is unprotected, both operators sign it together for a while: each adds the other’s key to its DNSKEY set. Our key for them is the DNSKEY record in the Keys table above (the Copy button).',
    );
    const rows = s.foreign_keys.map(
      (k) =>
        html`<tr>
          <td data-label="${v.t('Тег', 'Tag')}" class="mono">${k.tag}</td>
          <td data-label="${v.t('Алгоритм', 'Algorithm')}">${k.algorithm} (${algName(k.algorithm)})</td>
          <td data-label="${v.t('Прапорці', 'Flags')}">${k.flags}</td>
          <td data-label="${v.t('Чий', 'Whose')}">${k.note ?? '—'}</td>
          <td data-label="${v.t('Додано', 'Added')}">${when(k.added_at, v)}</td>
          <td>
            ${
              owner
                ? postForm(
                    v,
                    `${self(d)}/foreign-keys/${k.tag}/remove`,
                    html`<button class="secondary" type="submit">${v.t('Прибрати зараз', 'Take out now')}</button>`,
                    {
                      back: self(d),
                      confirm: v.t(
                        `Прибрати ключ ${k.tag} зараз? Якщо той оператор ще обслуговує зону, резолвери, що перевіряють DNSSEC, відкидатимуть його відповіді. Прибирайте одразу, лише якщо ви цього ключа не додавали або той оператор уже не обслуговує зону.`,
                        `Take key ${k.tag} out now? If that operator still serves the zone, validating resolvers will refuse its answers. Take it out at once only if you never added this key, or once that operator no longer serves the zone.`,
                      ),
                    },
                  )
                : ''
            }
          </td>
        </tr>`,
    );
    return html`<h2>${v.t('Ключі інших операторів', "Other operators' keys")}</h2>
      <p>${intro}</p>
      ${
        removing
          ? html`<p id="dnssec-foreign-removing">
              ${v.t(
                `Прибрання ключа запитано через API; воно набуде чинності ${when(removing.activates_at, v)}.`,
                `Taking a key out was requested through the API; it takes effect ${when(removing.activates_at, v)}.`,
              )}
              <a href="${opLink(removing.id)}">${v.t('Підтвердити або скасувати', 'Confirm or cancel')}</a>
            </p>`
          : ''
      }
      ${
        s.foreign_keys.length > 0
          ? html`${dataTable([v.t('Тег', 'Tag'), v.t('Алгоритм', 'Algorithm'), v.t('Прапорці', 'Flags'), v.t('Чий', 'Whose'), v.t('Додано', 'Added'), html`<span class="visually-hidden">${v.t('Дія', 'Action')}</span>`], rows, { id: 'dnssec-foreign-keys' })}
              <p class="muted">
                ${v.t(
                  'Поки тут є ключі інших операторів, автоматична заміна нашого ключа чекає, а зміна алгоритму чи вимкнення DNSSEC неможливі. Власник прибирає ключ тут одразу; ключ API лише запитує це як операцію класу 3.',
                  'While other operators’ keys are here, our automatic key rollover waits, and changing the algorithm or switching DNSSEC off is refused. An owner takes a key out here at once; an API key only requests that as a class 3 operation.',
                )}
              </p>`
          : ''
      }
      ${
        owner && s.status !== 'disabling' && !s.rollover
          ? postForm(
              v,
              `${self(d)}/foreign-keys`,
              html`<label for="foreign-dnskey">${v.t('DNSKEY іншого оператора', "The other operator's DNSKEY")}</label>
                <textarea id="foreign-dnskey" name="dnskey" rows="3" required placeholder="256 3 13 …"></textarea>
                <p class="hint">
                  ${v.t(
                    `Як його друкує dig: dig +short ${d} DNSKEY @<їхній сервер>. Той самий алгоритм, що й у зони.`,
                    `As dig prints it: dig +short ${d} DNSKEY @<their server>. The same algorithm as the zone.`,
                  )}
                </p>
                <label for="foreign-note">${v.t('Чий це ключ (необов’язково)', 'Whose key it is (optional)')}</label>
                <input id="foreign-note" name="note" type="text" maxlength="200" />
                <div class="actions"><button type="submit">${v.t('Додати ключ', 'Add the key')}</button></div>`,
              { back: self(d), id: 'dnssec-foreign-add' },
            )
          : ''
      }
      ${
        owner && !hosted && s.status !== 'disabling'
          ? postForm(
              v,
              `${self(d)}/ds`,
              html`<label for="foreign-ds">${v.t('DS іншого оператора в реєстрі', "The other operator's DS at the registry")}</label>
                <textarea id="foreign-ds" name="ds" rows="2" required placeholder="31589 13 2 5D…"></textarea>
                <p class="hint">
                  ${v.t(
                    'Домен зареєстровано тут, тож DS іншого оператора реєстр отримує від нас: по одному запису на рядок. Додавання й прибирання — дії класу 3: їх підтверджує інший власник, інакше вони набудуть чинності самі через 24 години.',
                    'The domain is registered here, so the registry gets the other operator’s DS from us: one record per line. Adding and removing are class 3 actions: another owner confirms them, or they take effect by themselves after 24 hours.',
                  )}
                </p>
                <div class="actions">
                  <button type="submit">${v.t('Додати в реєстр', 'Add at the registry')}</button>
                  <button type="submit" class="secondary" formaction="${self(d)}/ds/remove">
                    ${v.t('Прибрати з реєстру', 'Remove from the registry')}
                  </button>
                </div>`,
              { back: self(d), id: 'dnssec-foreign-ds' },
            )
          : ''
      }`;
  };

  /**
   * The switch-off form. The safe order (RFC 6781 §4.3.1 in reverse): the DS leaves the parent, its TTL
   * passes so no cache still holds it, and only then the zone is served unsigned.
   */
  const switchOff = (v: View, d: string, s: DnssecView, hosted: boolean, disableOp: OperationView | undefined): Html => {
    if (s.status === 'disabling')
      return html`<p id="dnssec-off-note">
        ${v.t(
          `DNSSEC вимикається: DS уже прибрано з реєстру; підписи зникнуть ${when(s.stop_signing_at, v)}, коли мине TTL DS.`,
          `DNSSEC is being switched off: the DS has left the registry; signing stops ${when(s.stop_signing_at, v)}, once the DS TTL has passed.`,
        )}
      </p>`;
    if (s.foreign_keys.length > 0)
      return html`<p id="dnssec-off-note">
        ${v.t(
          'Вимкнути DNSSEC зараз не можна: зону підписує й інший оператор (його ключі вище), і непідписані відповіді звідси резолвери вважали б підробкою. Завершіть перенесення й приберіть їхні ключі.',
          'DNSSEC cannot be switched off now: another operator signs the zone too (its keys above), and unsigned answers from here would look forged to validating resolvers. Finish the move and take their keys out first.',
        )}
      </p>`;
    if (disableOp)
      return html`<p id="dnssec-off-note">
        ${v.t('Вимкнення вже запитано й чекає.', 'Switching off is already requested and waiting.')}
        <a href="${opLink(disableOp.id)}">${v.t('Підтвердити або скасувати', 'Confirm or cancel')}</a>
      </p>`;
    const explain = !s.ds_at_parent
      ? v.t(
          'Вимкнення одразу прибирає підписи; DS у батьківській зоні немає, тож нічого не зламається.',
          'Switching off removes the signatures at once; the parent holds no DS, so nothing breaks.',
        )
      : hosted
        ? v.t(
            'Батьківська зона ще має наш DS, а домен зареєстровано в іншого реєстратора, тож прибрати DS можете лише ви. Безпечний порядок: приберіть DS у свого реєстратора, зачекайте, доки мине його TTL (кеші резолверів забудуть DS), і лише тоді вимкніть підпис тут. Інакше резолвери, що перевіряють DNSSEC, перестануть бачити домен.',
            'The parent zone still holds our DS and the domain is registered at another registrar, so only you can remove it. The safe order: remove the DS at your registrar, wait until its TTL has passed (resolvers’ caches forget the DS), and only then switch signing off here. Otherwise validating resolvers stop seeing the domain.',
          )
        : v.t(
            'Батьківська зона має наш DS, тож вимкнення йде безпечним порядком: реєстр прибирає DS (дія класу 3: її підтверджує інший власник, інакше вона набуде чинності сама через 24 години), зона підписується далі, доки не мине TTL DS і кеші резолверів його не забудуть, і лише потім підписи зникають. Резолвери, що перевіряють DNSSEC, не втратять домен.',
            'The parent zone holds our DS, so switching off goes in the safe order: the registry removes the DS (a class 3 action: another owner confirms it, or it takes effect by itself after 24 hours), the zone stays signed until the DS TTL has passed and resolvers’ caches forget it, and only then do the signatures go. Validating resolvers never lose the domain.',
          );
    return postForm(
      v,
      `${self(d)}/off`,
      html`<p>${explain}</p>
        <div class="actions">
          <button class="danger" type="submit">${v.t('Вимкнути DNSSEC', 'Switch DNSSEC off')}</button>
        </div>`,
      {
        back: self(d),
        confirm: v.t(`Вимкнути DNSSEC для ${d}?`, `Switch DNSSEC off for ${d}?`),
      },
    );
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
          const key = await sensitiveKey(r, 'enableDnssec', { params: { domain: d }, body });
          return uc.enableDnssec.execute(key, d, body.algorithm as number);
        });
        if ('error' in out) return page(r, { error: out.error, algorithm });
        return { redirect: `${self(d)}?done=${out.ok.status === 'rolling' ? 'rolling' : 'enabled'}` };
      },
    },
    {
      // POST /v1/domains/{d}/dnssec/ds: the class 3 operation dnssec_ds_publish.
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/ds$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        // Lines of the "another operator's DS" form; none: our own key's DS (the publish button).
        const ds = dsLines(field(r, 'ds'));
        const out = await attempt(async () => {
          const body = ds.length > 0 ? { ds } : {};
          validateBody(routes, 'publishDs', body);
          const key = await sensitiveKey(r, 'publishDs', { params: { domain: d }, body });
          return uc.requestOperation.execute(
            { kind: 'key', key },
            { kind: 'dnssec_ds_publish', domain: d, ...(ds.length > 0 ? { ds } : {}) },
          );
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        return { redirect: `${self(d)}?done=ds-requested&op=${enc(out.ok.id)}` };
      },
    },
    {
      // POST /v1/domains/{d}/dnssec/ds/remove: the class 3 operation dnssec_ds_remove (another operator's DS).
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/ds\/remove$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const ds = dsLines(field(r, 'ds'));
        const out = await attempt(async () => {
          const body = { ds };
          validateBody(routes, 'removeDs', body);
          const key = await sensitiveKey(r, 'removeDs', { params: { domain: d }, body });
          return uc.requestOperation.execute({ kind: 'key', key }, { kind: 'dnssec_ds_remove', domain: d, ds });
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        return { redirect: `${self(d)}?done=ds-requested&op=${enc(out.ok.id)}` };
      },
    },
    {
      // POST /v1/domains/{d}/dnssec/foreign-keys: another operator's key joins our DNSKEY set at once.
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/foreign-keys$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const note = field(r, 'note').trim();
        const out = await attempt(async () => {
          const body = { dnskey: field(r, 'dnskey'), ...(note ? { note } : {}) };
          validateBody(routes, 'addForeignDnskey', body);
          const key = await sensitiveKey(r, 'addForeignDnskey', { params: { domain: d }, body });
          return uc.addForeignDnskey.execute(key, d, body);
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        return { redirect: `${self(d)}?done=${out.ok.added ? 'foreign-added' : 'foreign-known'}` };
      },
    },
    {
      // An owner takes the key out at once: a human's act (keys request the class 3 operation
      // dnssec_foreign_key_remove through DELETE /v1/domains/{d}/dnssec/foreign-keys/{tag}).
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/foreign-keys\/(\d{1,5})\/remove$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const tag = r.params[1]!;
        const out = await attempt(async () => {
          const key = await sensitiveKey(r, 'removeForeignDnskey', { params: { domain: d, tag } });
          return uc.removeForeignDnskey.execute(key, d, Number(tag));
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        return { redirect: `${self(d)}?done=foreign-removed` };
      },
    },
    {
      // DELETE /v1/domains/{d}/dnssec: off at once, or (our DS at the parent) the operation dnssec_disable.
      method: 'POST',
      pattern: /^\/console\/domains\/([^/]+)\/dnssec\/off$/,
      auth: true,
      handle: async (r) => {
        const d = r.params[0]!;
        const out = await attempt(async () => {
          const key = await sensitiveKey(r, 'disableDnssec', { params: { domain: d } });
          return uc.switchOffDnssec.execute(key, d);
        });
        if ('error' in out) return page(r, { error: out.error, algorithm: '' });
        if ('operation' in out.ok) return { redirect: `${self(d)}?done=disable-requested&op=${enc(out.ok.operation.id)}` };
        return { redirect: `${self(d)}?done=${out.ok.off.enabled ? 'disabling' : 'disabled'}` };
      },
    },
  ];
};
