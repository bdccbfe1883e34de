import type { EventData, EventType } from '../kernel/events.js';

/**
 * The public event catalogue: every internal EventType, the name it is published under (or
 * null: internal only, never in the event log or a webhook), whether it is about a domain or the
 * account, a plain description in uk and en, and the shape of `data`. The README and OpenAPI are
 * generated from it; test/events/catalogue.test.ts fails when an EventType is missing here.
 *
 * Internal only (decided): `person.signed_in` (people's sign-ins are private to the console),
 * `certificate.private_key_read` (an audit record of a read, not a change; it would also tell
 * every subscriber when a key was fetched), `account.created` (happens before any key or webhook
 * can exist), `person.two_factor_enrolment_started` (a secret handed out that changes nothing yet;
 * the owners hear of `person.two_factor_enabled` once a code confirms it), `person.sign_in_throttled`
 * (like sign-ins, private to the console; the owners get a notice).
 */
export type EventScope = 'domain' | 'account';

export interface EventInfo {
  /** The public name (`billing.topped_up`), or null when the event stays internal. */
  readonly public: string | null;
  readonly scope: EventScope;
  readonly describe: { readonly uk: string; readonly en: string };
  /** The `data` fields: name → JSON type and meaning (documentation; also the OpenAPI schema). */
  readonly data: Readonly<Record<string, string>>;
}

/**
 * What the catalogue must say about T's data: every field of its shape in core/kernel/events.ts (a field
 * added there and not documented here fails to compile), plus the subject's id (`certificate_id`), which
 * toPublicEvent adds to the payload.
 */
type DataDoc<T extends EventType> = { readonly [F in keyof EventData[T]]-?: string } & { readonly [subjectId: `${string}_id`]: string };

/** A failed attempt and a failure for good carry the same facts. */
const certificateFailure = {
  certificate_id: 'string',
  names: 'string[]',
  domains: 'string[]',
  reason: 'string',
  attempts: 'integer',
  retryable: 'boolean',
  not_after: 'date-time | null',
} as const;

const e = <const D extends Record<string, string>>(pub: string | null, scope: EventScope, uk: string, en: string, data: D) => ({
  public: pub,
  scope,
  describe: { uk, en },
  data,
});

const OPERATION_DATA = {
  operation_id: 'string',
  kind: "'nameservers' | 'transfer_unlock' | 'labels' | 'hosted_delete' | 'dnssec_ds_publish' | 'dnssec_disable' | 'dnssec_foreign_key_remove' | 'dnssec_ds_remove'",
  domain: 'string',
  status: 'string',
  activates_at: 'date-time',
  nameservers: 'string[] (nameservers)',
  labels: 'string[] (labels)',
  ds: 'string[] (DS records, dnssec operations)',
  dnskey: "string[] (the other operator's DNSKEY, dnssec_foreign_key_remove)",
  previous: 'string[]: the nameservers or labels before (nameservers, labels)',
  warnings: 'string[]: warning codes, when there are any',
  warning_messages: 'object[]: uk, en of each warning',
  failure_reason:
    "string: why it failed, '<code>: <text>' (failed): the registry's refusal, or ours (dnssec_ds_stale, dnssec_foreign_keys_present, registrar_capability_missing)",
  cancel_reason:
    "'key_revoked' | 'requester_demoted' | 'requester_removed': the service cancelled it because its requester lost the power (cancelled)",
} as const;
const MONITOR_SETTINGS = {
  monitor_id: 'string',
  kind: "'dns' | 'http' | 'tls' | 'domain_expiry'",
  domain: 'string',
  interval_seconds: 'integer',
  enabled: 'boolean',
  url: 'string: the URL an HTTP probe fetches, without its query string (http)',
} as const;
const MONITOR_CHECK = {
  monitor_id: 'string',
  kind: 'string',
  domain: 'string',
  target: 'string: what was checked, in words',
  incident_id: 'string',
  reason: 'string | null',
  checked_at: 'date-time',
  latency_ms: 'integer | null',
} as const;

export const EVENT_CATALOGUE: { readonly [T in EventType]: EventInfo & { readonly data: DataDoc<T> } } = {
  'key.issued': e('key.issued', 'account', 'Випущено ключ доступу.', 'An access key was issued.', {
    key_id: 'string',
    name: 'string',
    class: 'integer 0–3',
    rights: 'string[]',
    expires_on: 'date',
    cidr: 'string | null',
    spend_limit: 'integer kopiykas | null',
  }),
  'key.revoked': e('key.revoked', 'account', 'Ключ доступу відкликано.', 'An access key was revoked.', {
    key_id: 'string',
    reason: "'role_changed' | 'person_removed': its issuer lost the power to hold it (absent: revoked by hand)",
  }),
  'person.signed_in': e(
    null,
    'account',
    'Людина увійшла в консоль (лише внутрішньо).',
    'A person signed in to the console (internal only).',
    { session_id: 'string' },
  ),
  'account.created': e(null, 'account', 'Створено рахунок (лише внутрішньо).', 'The account was created (internal only).', {
    demo: 'boolean',
  }),
  'domain.created': e('domain.created', 'domain', 'Домен додано до рахунку.', 'A domain was added to the account.', { domain: 'string' }),
  'domain.registered': e(
    'domain.registered',
    'domain',
    'Домен зареєстровано й оплачено з балансу.',
    'A domain was registered and charged to the balance.',
    { domain: 'string', years: 'integer', expires_at: 'date', amount: 'integer kopiykas', ledger_entry_id: 'string' },
  ),
  'domain.renewed': e(
    'domain.renewed',
    'domain',
    'Домен продовжено (вручну або автоматично).',
    'A domain was renewed (by hand or automatically).',
    { domain: 'string', years: 'integer', expires_at: 'date', amount: 'integer kopiykas', restore: 'boolean', automatic: 'boolean' },
  ),
  'domain.auto_renew_changed': e(
    'domain.auto_renew_changed',
    'domain',
    'Автопродовження домену увімкнено або вимкнено.',
    'Automatic renewal of a domain was switched on or off.',
    { domain: 'string', auto_renew: 'boolean' },
  ),
  'domain.auto_renew_failed': e(
    'domain.auto_renew_failed',
    'domain',
    'Автоматичне продовження не вдалося (наприклад, бракує коштів).',
    'Automatic renewal failed (for example, insufficient funds).',
    { domain: 'string', expires_at: 'date', reason: 'string' },
  ),
  'domain.status_changed': e(
    'domain.status_changed',
    'domain',
    'Змінився стан домену в життєвому циклі (закінчення, відновлення, видалення).',
    'The lifecycle status of a domain changed (expiry, redemption, deletion).',
    { domain: 'string', from: 'string', to: 'string', expires_at: 'date' },
  ),
  'domain.released': e(
    'domain.released',
    'domain',
    'Домен звільнено: він покинув рахунок.',
    'A domain was released: it left the account.',
    { domain: 'string', expired_on: 'date' },
  ),
  'domain.hosting_created': e(
    'domain.hosting_created',
    'domain',
    'Додано домен, зареєстрований деінде: його зона чекає на перевірку делегації.',
    'A domain registered elsewhere was added: its zone waits for its delegation to be verified.',
    { domain: 'string', verification_name: 'string: where the TXT proof goes' },
  ),
  'domain.hosting_verified': e(
    'domain.hosting_verified',
    'domain',
    'Контроль над доменом доведено: його зону обслуговують наші сервери імен.',
    'Control of the domain was proven: our nameservers serve its zone.',
    {
      domain: 'string',
      nameservers: "string[]: the parent's NS set when verified",
      proof_nameservers: 'string[]: the outside nameservers that served the TXT proof',
    },
  ),
  'domain.hosting_problem': e(
    'domain.hosting_problem',
    'domain',
    'Перевірка делегації домену знайшла проблему (делегацію втрачено, TXT бракує, зону перехопив інший рахунок).',
    'A delegation check found a problem (the delegation is lost, the TXT is missing, another account took the zone over).',
    {
      domain: 'string',
      status: "'pending_delegation' | 'active'",
      code: "string: 'not_delegated' | 'verification_txt_missing' | 'delegation_unproven' | 'delegation_lost' | 'hosted_elsewhere' | 'registered_here'",
      message: 'object: uk, en',
    },
  ),
  'domain.hosting_deleted': e(
    'domain.hosting_deleted',
    'domain',
    'Домен, що обслуговувався тут, видалено з рахунку разом із зоною.',
    'A hosted domain left the account with its zone.',
    { domain: 'string', reason: "'deleted' | 'registered_here': a domain registered through Domivka always wins" },
  ),
  'billing.topup_succeeded': e(
    'billing.topped_up',
    'account',
    'Баланс поповнено зі збереженої картки.',
    'The balance was topped up from the saved card.',
    { topup_id: 'string', amount: 'integer kopiykas', provider_id: 'string', card: 'object: brand, last4' },
  ),
  'billing.topup_failed': e(
    'billing.topup_failed',
    'account',
    'Поповнення балансу не вдалося (картку відхилено).',
    'A top-up failed (the card was declined).',
    { topup_id: 'string', amount: 'integer kopiykas', reason: 'string', code: 'string' },
  ),
  'sandbox.clock_advanced': e(
    'sandbox.clock_advanced',
    'account',
    'Годинник пісочниці переведено вперед.',
    'The sandbox clock was moved forward.',
    { advance: 'string', offset_ms: 'integer' },
  ),
  'dns.plan_applied': e(
    'dns.plan_applied',
    'domain',
    'DNS-план застосовано: зона змінилася.',
    'A DNS plan was applied: the zone changed.',
    { plan_id: 'string', serial: 'integer', counts: 'object: create/update/delete counts' },
  ),
  'dns.import_ready': e(
    'dns.import_ready',
    'domain',
    'Імпорт зони завершено: план готовий до перегляду й застосування.',
    'A zone import finished: its plan is ready to review and apply.',
    {
      import_id: 'string',
      source: "'zone_file' | 'axfr'",
      records_read: 'integer',
      skipped: 'integer: records left out (apex SOA/NS, DNSSEC, types we do not serve)',
      plan_id: 'string: the unapplied plan',
    },
  ),
  'dns.import_failed': e(
    'dns.import_failed',
    'domain',
    'Імпорт зони не вдався; зону не змінено.',
    'A zone import failed; the zone was not changed.',
    { import_id: 'string', source: "'zone_file' | 'axfr'", code: 'string: the error code (the error catalogue)' },
  ),
  'dns.acme_challenge_added': e(
    'dns.acme_challenge_added',
    'domain',
    'Додано TXT-значення _acme-challenge.',
    'An _acme-challenge TXT value was added.',
    { name: 'string', challenge_id: 'string' },
  ),
  'dns.acme_challenge_removed': e(
    'dns.acme_challenge_removed',
    'domain',
    'Видалено TXT-значення _acme-challenge.',
    'An _acme-challenge TXT value was removed.',
    { name: 'string', challenge_id: 'string' },
  ),
  'dns.dnssec_enabled': e(
    'dns.dnssec_enabled',
    'domain',
    'Зону підписано DNSSEC (або змінено алгоритм); DS ще треба опублікувати в батьківській зоні.',
    'The zone was signed with DNSSEC (or its algorithm changed); the DS is not yet at the parent.',
    { domain: 'string', algorithm: 'integer', key_tag: 'integer', ds: 'string[]: the DS records to publish', serial: 'integer' },
  ),
  'dns.dnssec_disabled': e(
    'dns.dnssec_disabled',
    'domain',
    'DNSSEC вимкнено: зона більше не підписується.',
    'DNSSEC was switched off: the zone is no longer signed.',
    { domain: 'string', serial: 'integer' },
  ),
  'dns.dnssec_foreign_key_added': e(
    'dns.dnssec_foreign_key_added',
    'domain',
    'Ключ DNSKEY іншого оператора додано до набору DNSKEY зони (перенесення підписаної зони, RFC 8901).',
    "Another operator's DNSKEY joined the zone's DNSKEY set (moving a signed zone, RFC 8901).",
    {
      domain: 'string',
      key_tag: 'integer',
      algorithm: 'integer',
      flags: 'integer',
      note: 'string | null: whose key, in the words of the person who added it',
      serial: 'integer',
    },
  ),
  'dns.dnssec_foreign_key_removed': e(
    'dns.dnssec_foreign_key_removed',
    'domain',
    'Ключ DNSKEY іншого оператора прибрано з набору DNSKEY зони.',
    "Another operator's DNSKEY left the zone's DNSKEY set.",
    { domain: 'string', key_tag: 'integer', serial: 'integer' },
  ),
  'dns.dnssec_disabling': e(
    'dns.dnssec_disabling',
    'domain',
    'DS прибрано з батьківської зони; зона підписується, доки не мине TTL DS, потім підписи зникнуть.',
    'The DS left the parent zone; the zone stays signed until the DS TTL has passed, then its signatures go.',
    { domain: 'string', ds: 'string[]: the DS records removed at the registry', stop_signing_at: 'date-time: when signing stops' },
  ),
  'dns.dnssec_rollover': e(
    'dns.dnssec_rollover',
    'domain',
    'Крок заміни ключа DNSSEC (CSK або алгоритму): опубліковано, підписано, DS замінено в реєстрі, старий ключ вилучено.',
    'A step of a DNSSEC key rollover (CSK or algorithm): published, signing, DS replaced at the registry, old key retired.',
    {
      domain: 'string',
      kind: "'csk' | 'algorithm'",
      step: "'started' | 'prepublish' | 'double_sign' | 'new_signatures' | 'new_dnskey' | 'ds_replaced' | 'old_unsigned' | 'old_dnskey_removed' | 'done' | 'ds_replace_failed'",
      old_key_tag: 'integer',
      new_key_tag: 'integer',
      algorithm: "integer: the new key's algorithm",
      next_step_at: 'date-time | null: when the next step runs (account time)',
      ds: 'string[]: the DS now wanted at the parent (ds_replaced, ds_replace_failed)',
      reason: "string: the registry's reason (ds_replace_failed)",
    },
  ),
  'certificate.requested': e('certificate.requested', 'domain', 'Замовлено сертифікат.', 'A certificate was requested.', {
    certificate_id: 'string',
    names: 'string[]',
    domains: 'string[]',
    ca: 'string',
    csr: 'boolean',
  }),
  'certificate.issued': e('certificate.issued', 'domain', 'Сертифікат випущено.', 'A certificate was issued.', {
    certificate_id: 'string',
    names: 'string[]',
    serial: 'string',
    issuer: 'string',
    not_after: 'date-time',
  }),
  'certificate.renewed': e('certificate.renewed', 'domain', 'Сертифікат поновлено.', 'A certificate was renewed.', {
    certificate_id: 'string',
    names: 'string[]',
    serial: 'string',
    issuer: 'string',
    not_after: 'date-time',
  }),
  'certificate.failed': e(
    'certificate.failed',
    'domain',
    'Випуск сертифіката остаточно не вдався.',
    'Issuing a certificate failed for good.',
    certificateFailure,
  ),
  'certificate.renewal_failed': e(
    'certificate.renewal_failed',
    'domain',
    'Спроба випуску чи поновлення сертифіката не вдалася; буде повтор.',
    'An attempt to issue or renew a certificate failed; it will be retried.',
    certificateFailure,
  ),
  'certificate.expired': e('certificate.expired', 'domain', 'Строк дії сертифіката минув.', 'A certificate expired.', {
    certificate_id: 'string',
    names: 'string[]',
    domains: 'string[]',
    not_after: 'date-time',
  }),
  'certificate.revoked': e('certificate.revoked', 'domain', 'Сертифікат відкликано.', 'A certificate was revoked.', {
    certificate_id: 'string',
    reason: 'integer: the RFC 5280 reason code',
    serial: 'string',
  }),
  'certificate.private_key_read': e(
    null,
    'domain',
    'Прочитано закритий ключ сертифіката (лише внутрішньо, аудит).',
    'A certificate private key was read (internal only, audit).',
    {},
  ),
  'webhook.created': e('webhook.created', 'account', 'Створено вебхук.', 'A webhook endpoint was created.', {
    webhook_id: 'string',
    host: 'string: the host of the endpoint (never its path or query string)',
    events: 'string[]',
    domains: 'string[] | null',
    enabled: 'boolean',
  }),
  'webhook.updated': e('webhook.updated', 'account', 'Вебхук змінено.', 'A webhook endpoint was changed.', {
    webhook_id: 'string',
    host: 'string: the host of the endpoint (never its path or query string)',
    events: 'string[]',
    domains: 'string[] | null',
    enabled: 'boolean',
  }),
  'webhook.deleted': e('webhook.deleted', 'account', 'Вебхук видалено.', 'A webhook endpoint was deleted.', { webhook_id: 'string' }),
  'webhook.secret_rotated': e(
    'webhook.secret_rotated',
    'account',
    'Секрет підпису вебхука замінено; старий підписує ще 24 години.',
    'The signing secret of a webhook was rotated; the old one signs for 24 more hours.',
    { webhook_id: 'string', old_secret_expires_at: 'date-time' },
  ),
  'webhook.disabled': e(
    'webhook.disabled',
    'account',
    'Вебхук вимкнено: кінцева точка відповіла 410 або не приймала доставок 3 дні.',
    'A webhook endpoint was disabled: it answered 410 or failed deliveries for 3 days.',
    { webhook_id: 'string', host: 'string: the host of the endpoint', reason: "'gone' | 'failing'" },
  ),
  // The six human-only actions (account events; the transfer code itself is never in an event)
  'person.reauthenticated': e(
    null,
    'account',
    'Людина повторно підтвердила вхід (лише внутрішньо).',
    'A person signed in again for a sensitive action (internal only).',
    { session_id: 'string' },
  ),
  'domain.transfer_code_revealed': e(
    'domain.transfer_code_revealed',
    'domain',
    'Людина в консолі переглянула код перенесення домену (сам код не публікується).',
    'A person in the console revealed the transfer code of a domain (the code itself is never published).',
    { domain: 'string', actor_email: 'string: the e-mail of the person who revealed it' },
  ),
  'domain.registrant_changed': e(
    'domain.registrant_changed',
    'domain',
    'Змінено власника (реєстранта) домену.',
    'The registrant (holder) of a domain was changed.',
    {
      domain: 'string',
      registrant: 'object: name, organization, email, country_code',
      actor_email: 'string: the e-mail of the person who changed it',
    },
  ),
  'person.invited': e('person.invited', 'account', 'Людину запрошено до рахунку.', 'A person was invited to the account.', {
    email: 'string',
    role: "'owner' | 'member'",
  }),
  'person.joined': e('person.joined', 'account', 'Запрошена людина приєдналася до рахунку.', 'An invited person joined the account.', {
    email: 'string',
    role: "'owner' | 'member'",
    invitation_id: 'string',
  }),
  'person.role_changed': e(
    'person.role_changed',
    'account',
    'Змінено роль людини в рахунку.',
    "A person's role in the account was changed.",
    { email: 'string', from: 'string', to: 'string', revoked_key_ids: 'string[]: keys above the new role, revoked with the change' },
  ),
  'person.removed': e(
    'person.removed',
    'account',
    'Людину вилучено з рахунку (або вона пішла); її ключі відкликано.',
    'A person was removed from the account (or left); their keys were revoked.',
    { email: 'string', left: 'boolean', keys_revoked: 'integer', revoked_key_ids: 'string[]' },
  ),
  'account.payment_method_changed': e(
    'account.payment_method_changed',
    'account',
    'Змінено спосіб оплати (збережену картку).',
    'The payment method (saved card) was changed.',
    { brand: 'string', last4: 'string', actor_email: 'string: the e-mail of the person who changed it' },
  ),
  'person.two_factor_disabled': e(
    'person.two_factor_disabled',
    'account',
    'Людина вимкнула двофакторну перевірку.',
    'A person switched off two-factor checks.',
    { email: 'string' },
  ),
  'person.two_factor_enrolment_started': e(
    null,
    'account',
    'Людина отримала новий секрет TOTP, щоб знову ввімкнути двофакторну перевірку (лише внутрішньо; сам секрет не записується).',
    'A person got a new TOTP secret to switch two-factor checks on again (internal only; the secret itself is never recorded).',
    {},
  ),
  'person.two_factor_enabled': e(
    'person.two_factor_enabled',
    'account',
    'Людина знову ввімкнула двофакторну перевірку з новим секретом.',
    'A person switched two-factor checks on again, with a new secret.',
    { email: 'string' },
  ),
  'person.password_changed': e(
    'person.password_changed',
    'account',
    'Людина змінила пароль (або задала новий за посиланням з листа); усі її сесії завершено.',
    'A person changed their password (or set a new one from an e-mailed link); all their sessions ended.',
    { email: 'string', how: "'changed' | 'reset'" },
  ),
  'person.sign_in_throttled': e(
    null,
    'account',
    'Багато невдалих перевірок пароля чи одноразового коду людини: їх сповільнено (лише внутрішньо; власники отримують сповіщення).',
    'Many failed password or one-time code checks for a person: they are slowed down (internal only; the owners get a notice).',
    { email: 'string', failures: 'integer: failed checks in the burst so far' },
  ),
  'account.deleted': e('account.deleted', 'account', 'Рахунок видалено.', 'The account was deleted.', { keys_revoked: 'integer' }),
  // Class 3 operations (about the operation's domain)
  'operation.pending': e(
    'operation.pending',
    'domain',
    'Операцію класу 3 створено; вона чекає на другого власника або 24 години.',
    'A class 3 operation was requested; it waits for a second owner or 24 hours.',
    OPERATION_DATA,
  ),
  'operation.confirmed': e(
    'operation.confirmed',
    'domain',
    'Другий власник підтвердив операцію класу 3.',
    'A second owner confirmed a class 3 operation.',
    OPERATION_DATA,
  ),
  'operation.cancelled': e(
    'operation.cancelled',
    'domain',
    'Операцію класу 3 скасовано.',
    'A class 3 operation was cancelled.',
    OPERATION_DATA,
  ),
  'operation.activated': e(
    'operation.activated',
    'domain',
    'Операція класу 3 набула чинності.',
    'A class 3 operation took effect.',
    OPERATION_DATA,
  ),
  'operation.failed': e(
    'operation.failed',
    'domain',
    'Операція класу 3 не вдалася: реєстр відмовив або стан зони не дозволив її, коли вона мала набути чинності.',
    'A class 3 operation failed: the registry refused, or the state of the zone forbade it when it was to take effect.',
    OPERATION_DATA,
  ),
  'domain.transfer_locked': e(
    'domain.transfer_locked',
    'domain',
    'Заборону перенесення домену встановлено знову.',
    'The transfer lock of a domain was set again.',
    { domain: 'string', transfer_lock: 'boolean' },
  ),
  // Monitoring (about the monitor's domain, named in data.domain)
  'monitor.created': e('monitor.created', 'domain', 'Створено перевірку моніторингу.', 'A monitoring check was created.', MONITOR_SETTINGS),
  'monitor.updated': e('monitor.updated', 'domain', 'Перевірку моніторингу змінено.', 'A monitoring check was changed.', MONITOR_SETTINGS),
  'monitor.deleted': e('monitor.deleted', 'domain', 'Перевірку моніторингу видалено.', 'A monitoring check was deleted.', {
    monitor_id: 'string',
    kind: 'string',
    domain: 'string',
  }),
  'monitor.check_failed': e(
    'monitor.check_failed',
    'domain',
    'Перевірка моніторингу перестала проходити: почався інцидент.',
    'A monitoring check started failing: an incident began.',
    MONITOR_CHECK,
  ),
  'monitor.check_recovered': e(
    'monitor.check_recovered',
    'domain',
    'Перевірка моніторингу знову проходить: інцидент завершено.',
    'A monitoring check passes again: the incident ended.',
    MONITOR_CHECK,
  ),
  // The live registry's messages (EPP poll), about one of our domains
  'domain.transfer_requested': e(
    'domain.transfer_requested',
    'domain',
    'Реєстр повідомив: запитано перенесення домену до іншого реєстратора.',
    'The registry reports that a transfer of the domain to another registrar was requested.',
    { domain: 'string', message_id: 'string', queued_at: 'date-time', text: 'string' },
  ),
  'domain.transfer_completed': e(
    'domain.transfer_completed',
    'domain',
    'Реєстр повідомив: перенесення домену завершено.',
    'The registry reports that a transfer of the domain completed.',
    { domain: 'string', message_id: 'string', queued_at: 'date-time', text: 'string' },
  ),
  'domain.transfer_cancelled': e(
    'domain.transfer_cancelled',
    'domain',
    'Реєстр повідомив: перенесення домену скасовано або відхилено.',
    'The registry reports that a transfer of the domain was cancelled or rejected.',
    { domain: 'string', message_id: 'string', queued_at: 'date-time', text: 'string' },
  ),
  'domain.deleted_by_registry': e(
    'domain.deleted_by_registry',
    'domain',
    'Реєстр повідомив, що видалив домен.',
    'The registry reports that it deleted the domain.',
    { domain: 'string', message_id: 'string', queued_at: 'date-time', text: 'string' },
  ),
  'domain.registry_message': e(
    'domain.registry_message',
    'domain',
    'Інше повідомлення реєстру про домен.',
    'Another message from the registry about the domain.',
    { domain: 'string', message_id: 'string', queued_at: 'date-time', text: 'string' },
  ),
  'domain.transfer_in_requested': e(
    'domain.transfer_in_requested',
    'domain',
    'Запитано перенесення домену до нас з іншого реєстратора; оплату зарезервовано.',
    'A transfer of a domain to us from another registrar was requested; its price is reserved.',
    { domain: 'string', transfer_id: 'string', years: 'integer', amount: 'integer kopiykas', ledger_entry_id: 'string' },
  ),
  'domain.transfer_in_completed': e(
    'domain.transfer_in_completed',
    'domain',
    'Домен перенесено до нас: він у рахунку, оплату списано.',
    'A domain was transferred to us: it is in the account and the reserved price was charged.',
    {
      domain: 'string',
      transfer_id: 'string',
      years: 'integer',
      amount: 'integer kopiykas',
      ledger_entry_id: 'string',
      expires_at: 'date',
    },
  ),
  'domain.transfer_in_failed': e(
    'domain.transfer_in_failed',
    'domain',
    'Перенесення домену до нас не вдалося або його відхилено; резерв повернено.',
    'A transfer of a domain to us failed or was rejected; the reserved price was returned.',
    {
      domain: 'string',
      transfer_id: 'string',
      years: 'integer',
      amount: 'integer kopiykas',
      ledger_entry_id: 'string',
      reason: 'string (error code)',
      rejected: 'boolean (the losing side refused)',
    },
  ),
  'domain.transfer_in_cancelled': e(
    'domain.transfer_in_cancelled',
    'domain',
    'Перенесення домену до нас скасовано; резерв повернено.',
    'A transfer of a domain to us was cancelled; the reserved price was returned.',
    { domain: 'string', transfer_id: 'string', years: 'integer', amount: 'integer kopiykas', ledger_entry_id: 'string' },
  ),
  'domain.transfer_out_rejected': e(
    'domain.transfer_out_rejected',
    'domain',
    'Перенесення домену до іншого реєстратора відхилено: домен лишається у нас.',
    'A transfer of a domain to another registrar was rejected: the domain stays with us.',
    { domain: 'string', transfer_id: 'string' },
  ),
};

/** Public name → internal type (for the `types` filter). */
export const PUBLIC_EVENT_TYPES: ReadonlyMap<string, EventType> = new Map(
  (Object.entries(EVENT_CATALOGUE) as [EventType, EventInfo][]).filter(([, i]) => i.public !== null).map(([t, i]) => [i.public!, t]),
);

export const publicName = (type: EventType): string | null => EVENT_CATALOGUE[type]?.public ?? null;

/** The internal types behind a list of public names (`*` = all public ones). Unknown names → null. */
export const internalTypes = (names: readonly string[]): EventType[] | null => {
  if (names.includes('*')) return [...PUBLIC_EVENT_TYPES.values()];
  const out: EventType[] = [];
  for (const n of names) {
    const t = PUBLIC_EVENT_TYPES.get(n);
    if (!t) return null;
    out.push(t);
  }
  return out;
};
