import type { ErrorCode, ErrorParams } from '../../core/kernel/errors.js';

/**
 * The one table (seed 7, STYLE 8): every error code → HTTP status, Ukrainian and English text, and
 * suggested actions. Every failure path of the API answers through it; the README's error catalogue
 * and the OpenAPI document are generated from it.
 */
export interface Action {
  readonly type: string;
  readonly href: string;
}

export interface ErrorEntry<C extends ErrorCode = ErrorCode> {
  readonly status: number;
  readonly uk: (p: ErrorParams<C>) => string;
  readonly en: (p: ErrorParams<C>) => string;
  readonly actions?: (p: ErrorParams<C>) => Action[];
}

const s = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));

/** Why another operator's DNSKEY was refused (core/dnssec/foreign-keys.ts), in both languages. */
const FOREIGN_KEY_PROBLEM: Readonly<
  Record<string, { uk: (p: Record<string, unknown>) => string; en: (p: Record<string, unknown>) => string }>
> = {
  format: {
    uk: () => 'очікуємо «<прапорці> 3 <алгоритм> <відкритий ключ base64>» або запис DNSKEY, як його друкує dig.',
    en: () => 'expected "<flags> 3 <algorithm> <public key in base64>", or a DNSKEY record as dig prints it.',
  },
  owner: { uk: () => 'запис DNSKEY належить іншій зоні.', en: () => 'the DNSKEY record belongs to another zone.' },
  protocol: { uk: () => 'поле протоколу має бути 3 (RFC 4034 §2.1.2).', en: () => 'the protocol field must be 3 (RFC 4034 §2.1.2).' },
  flags: {
    uk: (p) => `прапорці ${s(p.flags)}: потрібен ключ зони (256 або 257), без REVOKE.`,
    en: (p) => `flags ${s(p.flags)}: a zone key is needed (256 or 257), without REVOKE.`,
  },
  algorithm: {
    uk: (p) =>
      `алгоритм ${s(p.algorithm)}, а зона підписана алгоритмом ${s(p.zone_algorithm)}: оператори, що підписують одну зону, мусять мати той самий алгоритм (RFC 4035 §2.2). Змініть алгоритм в одного з операторів.`,
    en: (p) =>
      `algorithm ${s(p.algorithm)}, while the zone is signed with algorithm ${s(p.zone_algorithm)}: operators signing one zone must share the algorithm (RFC 4035 §2.2). Change the algorithm at one of them.`,
  },
  public_key: {
    uk: () => 'відкритий ключ не є дійсним ключем цього алгоритму.',
    en: () => 'the public key is not a valid key of that algorithm.',
  },
  ours: { uk: () => 'це наш власний ключ цієї зони.', en: () => "that is this zone's own key." },
  present: {
    uk: (p) => `цей ключ уже є в наборі з прапорцями ${s(p.flags)}; щоб змінити прапорці, спершу приберіть його.`,
    en: (p) => `that key is already in the set with flags ${s(p.flags)}; to change its flags, take it out first.`,
  },
  tag_taken: {
    uk: (p) => `інший ключ зони вже має тег ${s(p.key_tag)}; попросіть оператора про інший ключ.`,
    en: (p) => `another key of the zone already has tag ${s(p.key_tag)}; ask the operator for another key.`,
  },
};
const enc = encodeURIComponent;

export const ERROR_TABLE: { readonly [C in ErrorCode]: ErrorEntry<C> } = {
  unauthenticated: {
    status: 401,
    uk: () => 'Потрібен ключ доступу: надішліть заголовок Authorization: Bearer <ключ>.',
    en: () => 'An access key is required: send the header Authorization: Bearer <key>.',
    actions: () => [{ type: 'read_docs', href: '/v1/openapi.json' }],
  },
  key_invalid: {
    status: 401,
    uk: () => 'Ключ доступу недійсний: його не існує, він пошкоджений або має неправильну контрольну суму.',
    en: () => 'The access key is not valid: it does not exist, is damaged, or its checksum is wrong.',
  },
  key_revoked: {
    status: 401,
    uk: (p) => `Ключ ${s(p.key_id)} відкликано. Попросіть власника рахунку випустити новий.`,
    en: (p) => `The key ${s(p.key_id)} has been revoked. Ask an owner of the account to issue a new one.`,
    actions: () => [{ type: 'open_console', href: '/console/keys' }],
  },
  key_expired: {
    status: 401,
    uk: (p) => `Термін дії ключа ${s(p.key_id)} закінчився ${s(p.expires_on)}. Випустіть новий ключ.`,
    en: (p) => `The key ${s(p.key_id)} expired on ${s(p.expires_on)}. Issue a new key.`,
    actions: () => [{ type: 'open_console', href: '/console/keys' }],
  },
  ip_not_allowed: {
    status: 403,
    uk: (p) => `Ключ дозволено використовувати лише з мережі ${s(p.cidr)}; запит надійшов з ${s(p.ip)}.`,
    en: (p) => `The key may be used only from ${s(p.cidr)}; this request came from ${s(p.ip)}.`,
  },
  right_missing: {
    status: 403,
    uk: (p) =>
      (p.domain ? `Ключ не має права ${s(p.right)} для домену ${s(p.domain)}.` : `Ключ не має права ${s(p.right)}.`) +
      (p.change ? ` Ключ лише для ACME може змінювати тільки TXT-записи _acme-challenge; заборонена зміна: ${s(p.change)}.` : ''),
    en: (p) =>
      (p.domain
        ? `The key does not hold the right ${s(p.right)} for the domain ${s(p.domain)}.`
        : `The key does not hold the right ${s(p.right)}.`) +
      (p.change ? ` An ACME-only key may change TXT records at _acme-challenge names only; refused change: ${s(p.change)}.` : ''),
    actions: () => [{ type: 'inspect_key', href: '/v1/key' }],
  },
  human_only: {
    status: 403,
    uk: () => 'Цю дію може виконати лише людина, що увійшла до рахунку; ключі доступу її не виконують.',
    en: () => 'Only a person signed in to the account can do this; access keys never can.',
    actions: (p) => [{ type: 'open_console', href: s(p.console) || '/console' }],
  },
  session_required: {
    status: 401,
    uk: () => 'Потрібно увійти: сесія відсутня або закінчилася.',
    en: () => 'Sign-in required: there is no session, or it has ended.',
    actions: () => [{ type: 'sign_in', href: '/v1/account/sessions' }],
  },
  sign_in_failed: {
    status: 401,
    uk: (p) =>
      p.reason === 'totp_reused'
        ? 'Цей одноразовий код уже використано. Дочекайтеся наступного коду в застосунку-автентифікаторі (він змінюється кожні 30 секунд) і введіть його.'
        : p.reason === 'totp'
          ? 'Одноразовий код неправильний. Перевірте, що час на пристрої точний, і введіть поточний код із застосунку-автентифікатора.'
          : 'Не вдалося увійти: неправильна адреса, пароль або одноразовий код.',
    en: (p) =>
      p.reason === 'totp_reused'
        ? 'This one-time code was already used. Wait for the next code in your authenticator app (it changes every 30 seconds) and enter that one.'
        : p.reason === 'totp'
          ? 'The one-time code is wrong. Check that the device’s clock is right and enter the current code from your authenticator app.'
          : 'Sign-in failed: wrong e-mail, password or one-time code.',
  },
  too_many_attempts: {
    status: 429,
    uk: (p) =>
      `Забагато невдалих спроб увійти з цієї адреси або під цією електронною поштою. Перевірку сповільнено: спробуйте знову через ${s(p.retry_after)} с.`,
    en: (p) =>
      `Too many failed sign-in attempts from this address or for this e-mail. Checks are slowed down: try again in ${s(p.retry_after)} s.`,
  },
  role_forbidden: {
    status: 403,
    uk: (p) =>
      `Учасник рахунку може випускати лише ключі класу не вище ${s(p.max_class)}; цей ключ має клас ${s(p.class)}. Попросіть власника.`,
    en: (p) => `A member may issue keys of class ${s(p.max_class)} or lower; this key is class ${s(p.class)}. Ask an owner.`,
  },
  environment_unavailable: {
    status: 503,
    uk: (p) => `Середовище ${s(p.environment)} на цьому сервері не налаштоване. Скористайтеся тестовим ключем (dmk_test_…).`,
    en: (p) => `The ${s(p.environment)} environment is not configured on this server. Use a test key (dmk_test_…).`,
  },
  key_lifetime_exceeded: {
    status: 422,
    uk: (p) =>
      `Ключ класу ${s(p.class)} може діяти не довше ${s(p.max_days)} днів, тобто до ${s(p.max_date)} включно; запитано ${s(p.expires_on)}.`,
    en: (p) =>
      `A class ${s(p.class)} key may last at most ${s(p.max_days)} days, that is through ${s(p.max_date)}; ${s(p.expires_on)} was asked.`,
  },
  expiry_in_past: {
    status: 422,
    uk: (p) => `Дата закінчення ${s(p.expires_on)} уже минула (сьогодні ${s(p.today)} за київським часом).`,
    en: (p) => `The expiry date ${s(p.expires_on)} is in the past (today is ${s(p.today)} in Kyiv).`,
  },
  ip_restriction_required: {
    status: 422,
    uk: (p) =>
      `Ключ класу ${s(p.class)} мусить мати обмеження за IP: мережу IPv4 у форматі CIDR з префіксом /${s(p.min_prefix)} або довшим.`,
    en: (p) =>
      `A class ${s(p.class)} key needs an IP restriction: an IPv4 network in CIDR form with a prefix of /${s(p.min_prefix)} or longer.`,
  },
  ip_restriction_too_wide: {
    status: 422,
    uk: (p) => `Мережа ${s(p.cidr)} завелика для ключа класу ${s(p.class)}: потрібен префікс /${s(p.min_prefix)} або довший.`,
    en: (p) => `The network ${s(p.cidr)} is too wide for a class ${s(p.class)} key: the prefix must be /${s(p.min_prefix)} or longer.`,
  },
  spend_limit_required: {
    status: 422,
    uk: () => 'Ключ із правом витрачати кошти (domain.register, domain.renew, billing.topup) мусить мати місячний ліміт витрат.',
    en: () => 'A key with a spending right (domain.register, domain.renew, billing.topup) needs a monthly spend limit.',
  },
  right_test_only: {
    status: 422,
    uk: (p) => `Право ${s(p.right)} діє лише в пісочниці: його може мати тільки тестовий ключ (dmk_test_…).`,
    en: (p) => `The right ${s(p.right)} acts on the sandbox only: only a test key (dmk_test_…) may hold it.`,
  },
  domains_required: {
    status: 422,
    uk: () => 'Оберіть домени: перелік імен або одну мітку.',
    en: () => 'Choose the domains: a list of names, or one label.',
  },
  key_not_found: {
    status: 404,
    uk: (p) => `Ключ ${s(p.key_id)} не знайдено.`,
    en: (p) => `The key ${s(p.key_id)} was not found.`,
  },
  key_not_active: {
    status: 409,
    uk: (p) =>
      `Ключ ${s(p.key_id)} уже не діє (${s(p.status) === 'revoked' ? 'відкликаний' : 'минув строк дії'}): йому не можна дати облікові дані TSIG.`,
    en: (p) => `The key ${s(p.key_id)} is no longer active (${s(p.status)}): it cannot be given a TSIG credential.`,
    actions: () => [{ type: 'open_console', href: '/console/keys' }],
  },
  tsig_right_missing: {
    status: 422,
    uk: (p) =>
      `Ключ ${s(p.key_id)} не має жодного права DNS (dns.read, dns.edit, dns.acme_challenge), тож облікові дані TSIG йому ні до чого.`,
    en: (p) =>
      `The key ${s(p.key_id)} holds no DNS right (dns.read, dns.edit, dns.acme_challenge), so a TSIG credential would reach nothing.`,
  },
  tsig_credential_exists: {
    status: 409,
    uk: (p) =>
      `Ключ ${s(p.key_id)} уже має облікові дані TSIG ${s(p.name)}; секрет показують лише раз. Якщо його втрачено, відкличте ключ і випустіть новий.`,
    en: (p) =>
      `The key ${s(p.key_id)} already has a TSIG credential ${s(p.name)}; its secret is shown only once. If it is lost, revoke the key and issue a new one.`,
    actions: () => [{ type: 'open_console', href: '/console/keys' }],
  },
  domain_invalid: {
    status: 422,
    uk: (p) => `«${s(p.domain)}» не є правильним доменним ім’ям.`,
    en: (p) => `"${s(p.domain)}" is not a valid domain name.`,
  },
  domain_not_found: {
    status: 404,
    uk: (p) => `Домену ${s(p.domain)} немає в цьому рахунку (у цьому середовищі).`,
    en: (p) => `The domain ${s(p.domain)} is not in this account (in this environment).`,
    actions: () => [{ type: 'list_domains', href: '/v1/domains' }],
  },
  dnssec_algorithm_unsupported: {
    status: 422,
    uk: (p) => `Алгоритм DNSSEC ${s(p.algorithm)} не підтримується: оберіть 13 (ECDSA P-256 SHA-256) або 15 (Ed25519).`,
    en: (p) => `DNSSEC algorithm ${s(p.algorithm)} is not supported: choose 13 (ECDSA P-256 SHA-256) or 15 (Ed25519).`,
  },
  dnssec_ds_at_parent: {
    status: 409,
    uk: (p) =>
      `Батьківська зона ще містить DS домену ${s(p.domain)}: якщо вимкнути підпис зараз, резолвери, що перевіряють DNSSEC, перестануть бачити домен. Спершу приберіть DS у реєстратора й зачекайте його TTL.`,
    en: (p) =>
      `The parent zone still holds a DS for ${s(p.domain)}: stopping signing now would take the domain off the internet for validating resolvers. Remove the DS at the registrar first and wait its TTL.`,
  },
  dnssec_not_enabled: {
    status: 409,
    uk: (p) => `Зона ${s(p.domain)} не підписана: спершу увімкніть DNSSEC (PUT /v1/domains/${s(p.domain)}/dnssec).`,
    en: (p) => `The zone ${s(p.domain)} is not signed: switch DNSSEC on first (PUT /v1/domains/${s(p.domain)}/dnssec).`,
  },
  dnssec_ds_hosted: {
    status: 409,
    uk: (p) =>
      `Домен ${s(p.domain)} зареєстровано в іншого реєстратора: ми не можемо передати DS до реєстру. Дайте DS із GET /v1/domains/${s(p.domain)}/dnssec своєму реєстраторові.`,
    en: (p) =>
      `${s(p.domain)} is registered at another registrar: we cannot send its DS to the registry. Give the DS from GET /v1/domains/${s(p.domain)}/dnssec to your registrar.`,
  },
  dnssec_ds_refused: {
    status: 422,
    uk: (p) => `Реєстр відмовився прийняти DS домену ${s(p.domain)}: ${s(p.reason)}. Зона й далі підписана; DS у батьківській зоні немає.`,
    en: (p) => `The registry refused the DS of ${s(p.domain)}: ${s(p.reason)}. The zone stays signed; the parent holds no DS.`,
  },
  dnssec_ds_removal_refused: {
    status: 422,
    uk: (p) =>
      `Реєстр відмовився прибрати DS домену ${s(p.domain)}: ${s(p.reason)}. Зона й далі підписана, DS лишається в батьківській зоні — домен працює; приберіть DS через реєстр або спробуйте знову.`,
    en: (p) =>
      `The registry refused to remove the DS of ${s(p.domain)}: ${s(p.reason)}. The zone stays signed and the parent keeps the DS, so the domain keeps working; have the registry remove the DS, or try again.`,
  },
  dnssec_rollover_in_progress: {
    status: 409,
    uk: (p) =>
      `Ключ DNSSEC домену ${s(p.domain)} саме замінюється (крок ${s(p.step)}): дочекайтеся кінця заміни (GET /v1/domains/${s(p.domain)}/dnssec).`,
    en: (p) =>
      `The DNSSEC key of ${s(p.domain)} is being rolled (step ${s(p.step)}): wait until the rollover ends (GET /v1/domains/${s(p.domain)}/dnssec).`,
  },
  dnssec_foreign_key_invalid: {
    status: 422,
    uk: (p) => `Ключ DNSKEY іншого оператора для ${s(p.domain)} не прийнято: ${FOREIGN_KEY_PROBLEM[s(p.problem)]?.uk(p) ?? s(p.problem)}`,
    en: (p) =>
      `The other operator's DNSKEY for ${s(p.domain)} was not accepted: ${FOREIGN_KEY_PROBLEM[s(p.problem)]?.en(p) ?? s(p.problem)}`,
  },
  dnssec_foreign_key_limit: {
    status: 422,
    uk: (p) =>
      `Зона ${s(p.domain)} уже містить ${s(p.limit)} ключі інших операторів — це найбільше. Приберіть ключ оператора, що вже не обслуговує зону.`,
    en: (p) =>
      `The zone ${s(p.domain)} already holds ${s(p.limit)} other operators' keys, the most it takes. Remove the key of an operator that no longer serves the zone.`,
  },
  dnssec_foreign_key_not_found: {
    status: 404,
    uk: (p) => `У наборі DNSKEY зони ${s(p.domain)} немає ключа іншого оператора з тегом ${s(p.key_tag)}.`,
    en: (p) => `The DNSKEY set of ${s(p.domain)} holds no other operator's key with tag ${s(p.key_tag)}.`,
  },
  dnssec_ds_invalid: {
    status: 422,
    uk: (p) =>
      `«${s(p.ds)}» не є записом DS для ${s(p.domain)}: очікуємо «<тег> <алгоритм> <тип дайджесту> <hex>» з дайджестом SHA-256 (тип 2, 64 hex) або SHA-384 (тип 4, 96 hex); SHA-1 не публікують (RFC 8624).`,
    en: (p) =>
      `"${s(p.ds)}" is not a DS record for ${s(p.domain)}: expected "<tag> <algorithm> <digest type> <hex>" with a SHA-256 (type 2, 64 hex) or SHA-384 (type 4, 96 hex) digest; SHA-1 is not published (RFC 8624).`,
  },
  dnssec_ds_is_ours: {
    status: 409,
    uk: (p) =>
      `DS ${s(p.ds)} належить нашому ключу зони ${s(p.domain)}: щоб його прибрати, вимкніть DNSSEC (DELETE /v1/domains/${s(p.domain)}/dnssec) — тоді зона підписуватиметься, доки не мине TTL DS.`,
    en: (p) =>
      `The DS ${s(p.ds)} is our key's for ${s(p.domain)}: to remove it, switch DNSSEC off (DELETE /v1/domains/${s(p.domain)}/dnssec), which keeps the zone signed until the DS TTL has passed.`,
  },
  dnssec_ds_stale: {
    status: 409,
    uk: (p) =>
      `DS ${s(p.ds)} не відповідає жодному чинному ключу зони ${s(p.domain)} (DNSSEC вимкнено або ключ замінено, відколи операцію створили): у батьківській зоні він зробив би домен недосяжним для резолверів, що перевіряють DNSSEC. До реєстру нічого не передано; попросіть опублікувати чинний DS знову (POST /v1/domains/${s(p.domain)}/dnssec/ds).`,
    en: (p) =>
      `The DS ${s(p.ds)} matches no live key of ${s(p.domain)} (DNSSEC was switched off, or the key replaced, since the operation was requested): at the parent it would take the domain off the internet for validating resolvers. Nothing was sent to the registry; ask for the current DS again (POST /v1/domains/${s(p.domain)}/dnssec/ds).`,
  },
  dnssec_ds_publish_pending: {
    status: 409,
    uk: (p) =>
      `Над доменом ${s(p.domain)} чекає публікація DS (операція ${s(p.operation_id)}): якби DNSSEC вимкнули зараз, вона поставила б DS у батьківську зону непідписаної зони. Спершу скасуйте її (POST /v1/operations/${s(p.operation_id)}/cancel), тоді вимикайте DNSSEC.`,
    en: (p) =>
      `A DS publication is pending on ${s(p.domain)} (operation ${s(p.operation_id)}): switching DNSSEC off now would let it put a DS at the parent of an unsigned zone. Cancel it first (POST /v1/operations/${s(p.operation_id)}/cancel), then switch DNSSEC off.`,
    actions: (p) => [
      { type: 'view_operation', href: `/v1/operations/${enc(s(p.operation_id))}` },
      { type: 'cancel_operation', href: `/v1/operations/${enc(s(p.operation_id))}/cancel` },
    ],
  },
  dnssec_foreign_keys_present: {
    status: 409,
    uk: (p) =>
      `Зона ${s(p.domain)} підписується разом з іншим оператором (ключі ${s(p.key_tags)}): поки їхні ключі в наборі DNSKEY, зміна алгоритму чи вимкнення підпису зламали б перевірку їхніх відповідей. Спершу завершіть перенесення й приберіть ці ключі.`,
    en: (p) =>
      `The zone ${s(p.domain)} is signed together with another operator (keys ${s(p.key_tags)}): while their keys are in the DNSKEY set, another algorithm or unsigned answers would break validation of their answers. Finish the move and remove those keys first.`,
  },
  domain_taken: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} уже зареєстровано до ${s(p.registered_until)}.`,
    en: (p) => `The domain ${s(p.domain)} is already registered until ${s(p.registered_until)}.`,
    actions: (p) => [{ type: 'check_alternatives', href: `/v1/search?q=${enc(s(p.label))}` }],
  },
  tld_not_supported: {
    status: 422,
    uk: (p) => `Ім’я ${s(p.domain)} не можна зареєструвати: підтримувані зони — ${s(p.tlds)}.`,
    en: (p) => `${s(p.domain)} cannot be registered here: the supported zones are ${s(p.tlds)}.`,
  },
  registrar_capability_missing: {
    status: 501,
    uk: (p) => `Реєстратор «${s(p.registrar)}» цього середовища не підтримує дію «${s(p.capability)}».`,
    en: (p) => `This environment's registrar "${s(p.registrar)}" does not support "${s(p.capability)}".`,
  },
  registry_failure: {
    status: 502,
    uk: (p) => `Реєстр не виконав операцію для ${s(p.domain)}; кошти не списано. Спробуйте пізніше.`,
    en: (p) => `The registry did not carry out the operation for ${s(p.domain)}; nothing was charged. Try again later.`,
  },
  registry_not_authorized: {
    status: 409,
    uk: (p) => `Реєстр відмовив: домен ${s(p.domain)} обслуговує інший реєстратор (EPP 2201); кошти не списано.`,
    en: (p) => `The registry refused: ${s(p.domain)} is sponsored by another registrar (EPP 2201); nothing was charged.`,
  },
  registry_auth_info_invalid: {
    status: 422,
    uk: (p) => `Реєстр не прийняв код авторизації (transfer code) для ${s(p.domain)} (EPP 2202); кошти не списано.`,
    en: (p) => `The registry did not accept the authorisation (transfer) code for ${s(p.domain)} (EPP 2202); nothing was charged.`,
  },
  registry_object_missing: {
    status: 409,
    uk: (p) => `У реєстрі немає домену ${s(p.domain)} або пов’язаного об’єкта (EPP 2303); кошти не списано.`,
    en: (p) => `The registry has no ${s(p.domain)} or an object it refers to (EPP 2303); nothing was charged.`,
  },
  registry_status_prohibits: {
    status: 409,
    uk: (p) => `Стан домену ${s(p.domain)} у реєстрі забороняє цю дію (EPP 2304), напр. serverUpdateProhibited; кошти не списано.`,
    en: (p) => `The status of ${s(p.domain)} at the registry prohibits this (EPP 2304), e.g. serverUpdateProhibited; nothing was charged.`,
  },
  registry_parameter_rejected: {
    status: 422,
    uk: (p) =>
      `Реєстр відхилив значення запиту для ${s(p.domain)} за своїми правилами (EPP 2306), напр. строк або дату закінчення; кошти не списано.`,
    en: (p) =>
      `The registry's policy rejected a value of the request for ${s(p.domain)} (EPP 2306), e.g. the period or expiry date; nothing was charged.`,
  },
  registry_policy_refused: {
    status: 422,
    uk: (p) => `Реєстр відмовив для ${s(p.domain)} через свої правила щодо даних (EPP 2308); кошти не списано.`,
    en: (p) => `The registry refused ${s(p.domain)} under its data management policy (EPP 2308); nothing was charged.`,
  },
  domain_not_renewable: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} зараз не можна продовжити (стан: ${s(p.status)}).`,
    en: (p) => `The domain ${s(p.domain)} cannot be renewed now (status: ${s(p.status)}).`,
    actions: (p) => [{ type: 'view_domain', href: `/v1/domains/${enc(s(p.domain))}` }],
  },
  domain_already_yours: {
    status: 409,
    uk: (p) =>
      p.registrar === 'external'
        ? `Домен ${s(p.domain)} уже є в цьому рахунку як домен, що обслуговується тут; щоб перенести реєстрацію до нас, подайте запит на перенесення.`
        : `Домен ${s(p.domain)} уже належить цьому рахунку; щоб подовжити його, продовжте реєстрацію.`,
    en: (p) =>
      p.registrar === 'external'
        ? `The domain ${s(p.domain)} is already in this account as a hosted domain; to move its registration here, request a transfer.`
        : `The domain ${s(p.domain)} already belongs to this account; renew it to extend it.`,
    actions: (p) =>
      p.registrar === 'external'
        ? [{ type: 'read_domain', href: `/v1/domains/${enc(s(p.domain))}` }]
        : [{ type: 'renew', href: `/v1/domains/${enc(s(p.domain))}/renewals` }],
  },

  transfer_auth_code_invalid: {
    status: 422,
    uk: (p) =>
      `Код авторизації (auth code) для ${s(p.domain)} неправильний: його не прийняв теперішній реєстратор. Попросіть у нього чинний код; кошти не списано.`,
    en: (p) =>
      `The auth code for ${s(p.domain)} is wrong: the current registrar did not accept it. Ask them for a valid code; nothing was charged.`,
  },
  transfer_domain_locked: {
    status: 409,
    uk: (p) =>
      `Домен ${s(p.domain)} заблоковано від перенесення у теперішнього реєстратора (clientTransferProhibited). Зніміть блокування там і спробуйте знову; кошти не списано.`,
    en: (p) =>
      `${s(p.domain)} is locked against transfer at its current registrar (clientTransferProhibited). Lift the lock there and try again; nothing was charged.`,
  },
  transfer_not_transferable: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} не можна перенести: реєстр його не знає або не дозволяє перенесення; кошти не списано.`,
    en: (p) => `${s(p.domain)} cannot be transferred: the registry does not know it or does not allow its transfer; nothing was charged.`,
  },
  transfer_already_pending: {
    status: 409,
    uk: (p) => `Перенесення домену ${s(p.domain)} уже триває; дочекайтеся його завершення або скасуйте його.`,
    en: (p) => `A transfer of ${s(p.domain)} is already under way; wait for it to end or cancel it.`,
    actions: (p) => [{ type: 'view_transfers', href: `/v1/domains/${enc(s(p.domain))}/transfers` }],
  },
  transfer_not_found: {
    status: 404,
    uk: (p) => `Перенесення ${s(p.transfer_id)} не знайдено в цьому рахунку й середовищі.`,
    en: (p) => `The transfer ${s(p.transfer_id)} was not found in this account and environment.`,
  },
  transfer_not_cancellable: {
    status: 409,
    uk: (p) => `Перенесення ${s(p.transfer_id)} уже завершено (${s(p.status)}); скасувати його не можна.`,
    en: (p) => `The transfer ${s(p.transfer_id)} has already ended (${s(p.status)}); it cannot be cancelled.`,
  },
  transfer_out_not_pending: {
    status: 409,
    uk: (p) => `Для домену ${s(p.domain)} немає запиту на перенесення до іншого реєстратора, який можна відхилити.`,
    en: (p) => `There is no pending transfer of ${s(p.domain)} to another registrar to reject.`,
  },

  domain_hosted_elsewhere: {
    status: 409,
    uk: (p) =>
      `Зону ${s(p.domain)} уже обслуговує інший рахунок, що довів контроль над доменом. Якщо домен ваш, перевірте, хто керує його серверами імен у реєстратора.`,
    en: (p) =>
      `Another account that proved control of ${s(p.domain)} already hosts its zone. If the domain is yours, check who manages its nameservers at the registrar.`,
  },
  domain_registered_here: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} зареєстровано через Domivka в іншому рахунку; зареєстрований у нас домен завжди має перевагу.`,
    en: (p) => `The domain ${s(p.domain)} is registered through Domivka by another account; a domain registered here always wins.`,
  },
  domain_parent_held_elsewhere: {
    status: 409,
    uk: (p) => `${s(p.domain)} лежить усередині зони ${s(p.parent)}, яку тримає інший рахунок; дочірню зону може додати лише її власник.`,
    en: (p) => `${s(p.domain)} lies inside the zone ${s(p.parent)}, which another account holds; only its holder may add a child zone.`,
  },
  domain_parent_in_account: {
    status: 409,
    uk: (p) =>
      `${s(p.domain)} лежить усередині зони ${s(p.parent)}, яка вже є в цьому рахунку: окрема зона для ${s(p.domain)} сховала б записи зони ${s(p.parent)} під цим іменем. Додайте записи для ${s(p.domain)} у зону ${s(p.parent)}.`,
    en: (p) =>
      `${s(p.domain)} lies inside the zone ${s(p.parent)}, which this account already holds: a zone of its own for ${s(p.domain)} would hide the records of ${s(p.parent)} under that name. Add the records for ${s(p.domain)} to the zone ${s(p.parent)} instead.`,
    actions: (p) => [{ type: 'view_records', href: `/v1/domains/${enc(s(p.parent))}/dns/records` }],
  },
  domain_public_suffix: {
    status: 422,
    uk: (p) => `${s(p.domain)} — публічний суфікс (як com чи com.ua): під ним реєструють домени, сам він нікому не належить.`,
    en: (p) => `${s(p.domain)} is a public suffix (like com or com.ua): domains are registered under it, and nobody holds it.`,
  },
  domain_reserved: {
    status: 422,
    uk: (p) =>
      p.role === 'catalog'
        ? `${s(p.domain)} належить самому сервісові: це зона-каталог ${s(p.zone)} (або ім’я в ній), з якої наші вторинні сервери імен дізнаються, які зони обслуговувати. Жоден рахунок не може її тут обслуговувати.`
        : `${s(p.domain)} належить самому сервісові: це зона ${s(p.zone)} (або ім’я в ній), у якій стоять наші сервери імен. Жоден рахунок не може її тут обслуговувати.`,
    en: (p) =>
      p.role === 'catalog'
        ? `${s(p.domain)} is the service's own: it is (or lies inside) ${s(p.zone)}, the catalog zone that tells our secondary nameservers which zones to serve. No account may host it.`
        : `${s(p.domain)} is the service's own: it is (or lies inside) ${s(p.zone)}, the zone our nameservers' names are in. No account may host it.`,
  },
  domain_not_hosted: {
    status: 409,
    uk: (p) =>
      `Домен ${s(p.domain)} зареєстровано через Domivka: його делегація вже наша, перевіряти чи видаляти його як домен, що обслуговується, не можна.`,
    en: (p) =>
      `The domain ${s(p.domain)} is registered through Domivka: its delegation is ours already, and it cannot be verified or deleted as a hosted domain.`,
    actions: (p) => [{ type: 'read_domain', href: `/v1/domains/${enc(s(p.domain))}` }],
  },
  domain_not_registered_here: {
    status: 409,
    uk: (p) =>
      `Домен ${s(p.domain)} зареєстровано в іншого реєстратора; тут обслуговується лише його DNS. Продовження, сервери імен і блокування передачі змінюють там.`,
    en: (p) =>
      `The domain ${s(p.domain)} is registered at another registrar; only its DNS is hosted here. Its renewal, nameservers and transfer lock are changed there.`,
  },
  hosted_domain_limit_reached: {
    status: 409,
    uk: (p) => `У цьому середовищі вже ${s(p.limit)} доменів, що обслуговуються тут, — це межа рахунку. Видаліть непотрібні.`,
    en: (p) => `The account already hosts ${s(p.limit)} domains in this environment, its limit. Delete the ones you no longer need.`,
    actions: () => [{ type: 'list_hosted', href: '/v1/domains?registrar=external' }],
  },
  insufficient_funds: {
    status: 402,
    uk: (p) => `Недостатньо коштів: потрібно ${s(p.amount)} грн, на балансі ${s(p.balance)} грн. Поповніть баланс.`,
    en: (p) => `Insufficient funds: ${s(p.amount)} UAH is needed and the balance is ${s(p.balance)} UAH. Top up the balance.`,
    actions: () => [
      { type: 'top_up', href: '/v1/billing/topups' },
      { type: 'view_balance', href: '/v1/billing/balance' },
    ],
  },
  spend_limit_exceeded: {
    status: 402,
    uk: (p) =>
      `Перевищено місячний ліміт ключа ${s(p.key_id)}: ліміт ${s(p.limit)} грн за ${s(p.month)}, витрачено ${s(p.spent)} грн, лишилося ${s(p.left)} грн, а ця операція коштує ${s(p.amount)} грн.`,
    en: (p) =>
      `This would pass the monthly limit of key ${s(p.key_id)}: the limit is ${s(p.limit)} UAH for ${s(p.month)}, ${s(p.spent)} UAH is spent, ${s(p.left)} UAH is left, and this costs ${s(p.amount)} UAH.`,
    actions: () => [{ type: 'inspect_key', href: '/v1/key' }],
  },
  card_declined: {
    status: 402,
    uk: (p) => `Картку ${s(p.card)} відхилено (${s(p.reason)}). Нічого не списано; змініть картку в консолі або спробуйте іншу суму.`,
    en: (p) =>
      `The card ${s(p.card)} was declined (${s(p.reason)}). Nothing was charged; change the card in the console or try another amount.`,
    actions: () => [{ type: 'open_console', href: '/console/billing/card' }],
  },
  payment_failed: {
    status: 502,
    uk: () => 'Платіжний сервіс не відповів як слід; нічого не зараховано. Повторіть запит пізніше з тим самим Idempotency-Key.',
    en: () => 'The payment provider failed; nothing was credited. Retry later with the same Idempotency-Key.',
  },
  no_saved_card: {
    status: 409,
    uk: () => 'У рахунку немає збереженої картки для цього середовища. Додайте її в консолі.',
    en: () => 'The account has no saved card for this environment. Add one in the console.',
    actions: () => [{ type: 'open_console', href: '/console/billing/card' }],
  },
  operation_in_progress: {
    status: 409,
    uk: () => 'Над цим доменом саме виконується інша грошова операція. Повторіть запит за кілька секунд.',
    en: () => 'Another money operation on this domain is running. Retry in a few seconds.',
  },
  zone_busy: {
    status: 409,
    uk: (p) =>
      `Зону ${s(p.domain)} саме змінюють інші запити; цю зміну не записано. Повторіть за ${s(p.retry_after)} с з тим самим Idempotency-Key.`,
    en: (p) =>
      `The zone ${s(p.domain)} is being changed by other requests; this change was not written. Retry in ${s(p.retry_after)} s with the same Idempotency-Key.`,
  },
  import_not_found: {
    status: 404,
    uk: (p) => `Імпорт ${s(p.import_id)} не знайдено для домену ${s(p.domain)}.`,
    en: (p) => `The import ${s(p.import_id)} was not found for ${s(p.domain)}.`,
  },
  import_in_progress: {
    status: 409,
    uk: (p) => `Імпорт ${s(p.import_id)} зони ${s(p.domain)} ще триває; дочекайтеся його завершення, перш ніж почати новий.`,
    en: (p) => `The import ${s(p.import_id)} of ${s(p.domain)} is still running; wait for it to end before starting another.`,
    actions: (p) => [{ type: 'check_import', href: `/v1/domains/${enc(s(p.domain))}/dns/imports/${enc(s(p.import_id))}` }],
  },
  import_too_many_records: {
    status: 422,
    uk: (p) => `Зона має понад ${s(p.limit)} записів — більше, ніж дозволяє імпорт (DNS_IMPORT_MAX_RECORDS).`,
    en: (p) => `The zone holds over ${s(p.limit)} records, more than an import may read (DNS_IMPORT_MAX_RECORDS).`,
  },
  import_too_large: {
    status: 413,
    uk: (p) => `Зона більша за ${s(p.limit)} байтів — більше, ніж дозволяє імпорт (DNS_IMPORT_MAX_BYTES).`,
    en: (p) => `The zone is larger than ${s(p.limit)} bytes, more than an import may read (DNS_IMPORT_MAX_BYTES).`,
  },
  import_timeout: {
    status: 422,
    uk: (p) => `Імпорт не завершився за ${s(p.seconds)} с (DNS_IMPORT_MAX_SECONDS); нічого не змінено.`,
    en: (p) => `The import did not finish within ${s(p.seconds)} s (DNS_IMPORT_MAX_SECONDS); nothing was changed.`,
  },
  import_interrupted: {
    status: 500,
    uk: () => 'Імпорт перервано (сервер перезапустився); нічого не змінено. Почніть імпорт знову.',
    en: () => 'The import was interrupted (the server restarted); nothing was changed. Start the import again.',
  },
  zone_file_invalid: {
    status: 422,
    uk: (p) => `Файл зони не читається, рядок ${s(p.line)}: ${s(p.reason_uk)}.`,
    en: (p) => `The zone file does not parse, line ${s(p.line)}: ${s(p.reason)}.`,
  },
  zone_file_include: {
    status: 422,
    uk: (p) => `Рядок ${s(p.line)}: $INCLUDE не підтримується (ми не читаємо інших файлів); вставте вміст включеного файлу.`,
    en: (p) => `Line ${s(p.line)}: $INCLUDE is refused (no other file is ever read); paste the included text instead.`,
  },
  zone_file_out_of_zone: {
    status: 422,
    uk: (p) => `Рядок ${s(p.line)}: ім’я ${s(p.name)} лежить поза зоною ${s(p.domain)}.`,
    en: (p) => `Line ${s(p.line)}: the name ${s(p.name)} is outside the zone ${s(p.domain)}.`,
  },
  zone_file_class: {
    status: 422,
    uk: (p) => `Рядок ${s(p.line)}: клас ${s(p.class)} не обслуговується; лише IN.`,
    en: (p) => `Line ${s(p.line)}: the class ${s(p.class)} is not served; only IN.`,
  },
  zone_file_generate_too_large: {
    status: 422,
    uk: (p) => `Рядок ${s(p.line)}: $GENERATE створює ${s(p.count)} записів, а дозволено щонайбільше ${s(p.limit)}.`,
    en: (p) => `Line ${s(p.line)}: $GENERATE makes ${s(p.count)} records; at most ${s(p.limit)} are allowed.`,
  },
  axfr_server_not_allowed: {
    status: 422,
    uk: (p) => `Сервер ${s(p.server)} не дозволено для передачі зони: ${s(p.reason)}.`,
    en: (p) => `The server ${s(p.server)} is not allowed for a zone transfer: ${s(p.reason)}.`,
  },
  axfr_unreachable: {
    status: 502,
    uk: (p) => `Не вдалося з’єднатися з сервером ${s(p.server)} по TCP (${s(p.reason)}).`,
    en: (p) => `Could not connect to the server ${s(p.server)} over TCP (${s(p.reason)}).`,
  },
  axfr_timeout: {
    status: 504,
    uk: (p) => `Сервер ${s(p.server)} не передав зону за ${s(p.seconds)} с.`,
    en: (p) => `The server ${s(p.server)} did not transfer the zone within ${s(p.seconds)} s.`,
  },
  axfr_refused: {
    status: 502,
    uk: (p) => `Сервер ${s(p.server)} відмовив у передачі зони (${s(p.rcode)}). Дозвольте AXFR для нашої адреси або вкажіть ключ TSIG.`,
    en: (p) => `The server ${s(p.server)} refused the zone transfer (${s(p.rcode)}). Allow AXFR from our address, or give a TSIG key.`,
  },
  axfr_failed: {
    status: 502,
    uk: (p) => `Сервер ${s(p.server)} відповів на запит передачі зони помилкою ${s(p.rcode)}.`,
    en: (p) => `The server ${s(p.server)} answered the zone transfer with ${s(p.rcode)}.`,
  },
  axfr_incomplete: {
    status: 502,
    uk: (p) =>
      `Передача зони з ${s(p.server)} неповна: ${p.reason === 'no-opening-soa' ? 'відповідь не починається із SOA' : 'немає завершального SOA (з’єднання закрито раніше)'}.`,
    en: (p) =>
      `The zone transfer from ${s(p.server)} is incomplete: ${p.reason === 'no-opening-soa' ? 'the answer does not start with the SOA' : 'no closing SOA (the connection ended first)'}.`,
  },
  axfr_tsig_invalid: {
    status: 502,
    uk: (p) => `Підпис TSIG передачі зони з ${s(p.server)} не прийнято: ${s(p.reason)}.`,
    en: (p) => `The TSIG signature of the zone transfer from ${s(p.server)} failed: ${s(p.reason)}.`,
  },
  plan_not_found: {
    status: 404,
    uk: (p) => `План ${s(p.plan_id)} не знайдено для домену ${s(p.domain)}.`,
    en: (p) => `The plan ${s(p.plan_id)} was not found for ${s(p.domain)}.`,
  },
  plan_expired: {
    status: 409,
    uk: (p) => `План ${s(p.plan_id)} застарів (плани діють годину). Складіть новий.`,
    en: (p) => `The plan ${s(p.plan_id)} has expired (plans last one hour). Make a new one.`,
    actions: (p) => [{ type: 'replan', href: `/v1/domains/${enc(s(p.domain))}/dns/plans` }],
  },
  plan_invalid: {
    status: 422,
    uk: (p) => `План ${s(p.plan_id)} має помилки перевірок; його не можна застосувати.`,
    en: (p) => `The plan ${s(p.plan_id)} has check errors; it cannot be applied.`,
    actions: (p) => [{ type: 'replan', href: `/v1/domains/${enc(s(p.domain))}/dns/plans` }],
  },
  plan_stale: {
    status: 409,
    uk: (p) => `Зону ${s(p.domain)} змінено після складання плану (${s(p.reason)}). Складіть план наново.`,
    en: (p) => `The zone ${s(p.domain)} changed since the plan was made (${s(p.reason)}). Make the plan again.`,
    actions: (p) => [{ type: 'replan', href: `/v1/domains/${enc(s(p.domain))}/dns/plans` }],
  },
  plan_unsafe: {
    status: 409,
    uk: (p) =>
      `План змінює або видаляє ${s(p.touched)} з ${s(p.size)} наборів записів (понад 30%). Якщо це задумано, застосуйте з "force": true.`,
    en: (p) =>
      `The plan updates or deletes ${s(p.touched)} of ${s(p.size)} record sets (over 30%). If that is intended, apply with "force": true.`,
  },
  plan_already_applied: {
    status: 409,
    uk: (p) => `План ${s(p.plan_id)} уже застосовано.`,
    en: (p) => `The plan ${s(p.plan_id)} was already applied.`,
  },
  challenge_not_found: {
    status: 404,
    uk: (p) => `ACME-значення ${s(p.challenge_id)} не знайдено (можливо, воно вже минуло).`,
    en: (p) => `The ACME challenge value ${s(p.challenge_id)} was not found (it may have expired).`,
  },
  certificate_not_found: {
    status: 404,
    uk: (p) => `Сертифікат ${s(p.certificate_id)} не знайдено.`,
    en: (p) => `The certificate ${s(p.certificate_id)} was not found.`,
  },
  certificate_not_ready: {
    status: 409,
    uk: (p) => `Сертифікат ${s(p.certificate_id)} ще не випущено (стан: ${s(p.status)}). Спробуйте, коли стан стане issued.`,
    en: (p) => `The certificate ${s(p.certificate_id)} has not been issued (status: ${s(p.status)}). Try again once it is issued.`,
    actions: (p) => [{ type: 'poll', href: `/v1/certificates/${enc(s(p.certificate_id))}` }],
  },
  certificate_not_revocable: {
    status: 409,
    uk: (p) => `Сертифікат ${s(p.certificate_id)} не можна відкликати в стані ${s(p.status)}: відкликають лише випущені.`,
    en: (p) => `The certificate ${s(p.certificate_id)} cannot be revoked while ${s(p.status)}: only issued certificates can.`,
  },
  certificate_authority_failed: {
    status: 502,
    uk: (p) => `Центр сертифікації відмовив: ${s(p.reason)}`,
    en: (p) => `The certificate authority refused: ${s(p.reason)}`,
  },
  csr_invalid: {
    status: 422,
    uk: (p) => `Запит на сертифікат (CSR) непридатний: ${s(p.reason)}. Надішліть один PKCS#10 у PEM, підписаний його ключем.`,
    en: (p) => `The certificate signing request (CSR) is unusable: ${s(p.reason)}. Send one PKCS#10 request in PEM, signed by its key.`,
  },
  csr_names_mismatch: {
    status: 422,
    uk: (p) => `Імена в CSR (${s(p.csr_names)}) не збігаються з domains (${s(p.domains)}).`,
    en: (p) => `The names in the CSR (${s(p.csr_names)}) differ from domains (${s(p.domains)}).`,
  },
  private_key_not_held: {
    status: 404,
    uk: (p) => `Для сертифіката ${s(p.certificate_id)} ми не маємо приватного ключа: його запитали з власним CSR, тож ключ лише у вас.`,
    en: (p) =>
      `We hold no private key for the certificate ${s(p.certificate_id)}: it was requested with your own CSR, so only you have the key.`,
  },
  monitor_not_found: {
    status: 404,
    uk: (p) => `Перевірку моніторингу ${s(p.monitor_id)} не знайдено.`,
    en: (p) => `The monitor ${s(p.monitor_id)} was not found.`,
    actions: () => [{ type: 'list_monitors', href: '/v1/monitors' }],
  },
  monitor_interval_too_short: {
    status: 422,
    uk: (p) =>
      `Інтервал перевірки ${s(p.interval_seconds)} с не дозволено: від ${s(p.minimum)} до ${s(p.maximum)} с у ${p.environment === 'live' ? 'робочому' : 'тестовому'} середовищі.`,
    en: (p) =>
      `A check interval of ${s(p.interval_seconds)} s is not allowed: ${s(p.minimum)} to ${s(p.maximum)} s in the ${s(p.environment)} environment.`,
  },
  monitor_limit_reached: {
    status: 409,
    uk: (p) => `У цьому середовищі вже ${s(p.limit)} перевірок моніторингу — це межа рахунку. Видаліть непотрібні перевірки.`,
    en: (p) => `The account already has ${s(p.limit)} monitors in this environment, its limit. Delete monitors you no longer need.`,
    actions: () => [{ type: 'list_monitors', href: '/v1/monitors' }],
  },
  sandbox_only: {
    status: 403,
    uk: () => 'Це доступно лише в тестовому середовищі: скористайтеся тестовим ключем (dmk_test_…).',
    en: () => 'This is for the test environment only: use a test key (dmk_test_…).',
  },
  // class 3 operations
  operation_not_found: {
    status: 404,
    uk: (p) => `Операцію ${s(p.operation_id)} не знайдено серед операцій над доменами, до яких має доступ цей ключ.`,
    en: (p) => `The operation ${s(p.operation_id)} was not found among operations on domains this key reaches.`,
    actions: () => [{ type: 'list_operations', href: '/v1/operations' }],
  },
  operation_pending: {
    status: 409,
    uk: (p) =>
      `Над доменом ${s(p.domain)} уже чекає операція ${s(p.operation_id)} (${s(p.kind)}). Дочекайтеся її, підтвердьте або скасуйте, тоді повторіть запит.`,
    en: (p) =>
      `An operation ${s(p.operation_id)} (${s(p.kind)}) is already pending on ${s(p.domain)}. Wait for it, confirm or cancel it, then retry.`,
    actions: (p) =>
      p.operation_id
        ? [
            { type: 'view_operation', href: `/v1/operations/${enc(s(p.operation_id))}` },
            { type: 'cancel_operation', href: `/v1/operations/${enc(s(p.operation_id))}/cancel` },
          ]
        : [{ type: 'list_operations', href: `/v1/operations?domain=${enc(s(p.domain))}&status=pending` }],
  },
  operation_not_pending: {
    status: 409,
    uk: (p) => `Операція ${s(p.operation_id)} уже не чекає (стан: ${s(p.status)}): її не можна підтвердити чи скасувати.`,
    en: (p) => `The operation ${s(p.operation_id)} is no longer pending (status: ${s(p.status)}): it cannot be confirmed or cancelled.`,
    actions: (p) => [{ type: 'view_operation', href: `/v1/operations/${enc(s(p.operation_id))}` }],
  },
  operation_no_change: {
    status: 422,
    uk: (p) => `Для домену ${s(p.domain)} нічого не зміниться (${s(p.kind)}): він уже в такому стані.`,
    en: (p) => `Nothing would change for ${s(p.domain)} (${s(p.kind)}): it is already so.`,
    actions: (p) => [{ type: 'view_domain', href: `/v1/domains/${enc(s(p.domain))}` }],
  },
  confirmation_by_requester: {
    status: 403,
    uk: (p) =>
      `Операцію ${s(p.operation_id)} запитала ця сама особа (або ключем, який вона випустила). Підтвердити її має інший власник рахунку — або вона виконається сама через 24 години.`,
    en: (p) =>
      `The operation ${s(p.operation_id)} was requested by this same person (or a key they issued). Another owner of the account must confirm it — or it takes effect by itself after 24 hours.`,
    actions: (p) => [{ type: 'open_console', href: `/console/operations/${enc(s(p.operation_id))}` }],
  },
  owner_required: {
    status: 403,
    uk: (p) =>
      p.key_id
        ? `Ключ ${s(p.key_id)} випустив не власник рахунку: дію «${s(p.action)}» для операцій класу 3 (${s(p.right)}) можуть робити лише ключі власників.`
        : `Дію «${s(p.action)}» для операцій класу 3 (${s(p.right)}) може робити лише власник рахунку, не учасник.`,
    en: (p) =>
      p.key_id
        ? `The key ${s(p.key_id)} was not issued by an owner of the account: only owners' keys may ${s(p.action)} class 3 operations (${s(p.right)}).`
        : `Only an owner of the account, not a member, may ${s(p.action)} class 3 operations (${s(p.right)}).`,
    actions: () => [{ type: 'open_console', href: '/console/operations' }],
  },
  nameservers_invalid: {
    status: 422,
    uk: (p) =>
      (
        ({
          hostname: `«${s(p.nameserver)}» — не ім’я хоста сервера імен (літери, цифри, дефіси, щонайменше дві мітки).`,
          glue: `Сервер імен ${s(p.nameserver)} лежить усередині самого домену ${s(p.domain)}: для цього потрібні glue-адреси, яких сервіс поки не веде. Оберіть сервери поза доменом.`,
          duplicate: `Сервер імен ${s(p.nameserver)} указано двічі.`,
          count: `Потрібно від 2 до 13 серверів імен; отримано: ${s(p.nameserver) || 'жодного'}.`,
        }) as Record<string, string>
      )[s(p.reason)] ?? `Неприйнятний список серверів імен для ${s(p.domain)}.`,
    en: (p) =>
      (
        ({
          hostname: `"${s(p.nameserver)}" is not a nameserver host name (letters, digits, hyphens, at least two labels).`,
          glue: `The nameserver ${s(p.nameserver)} lies inside ${s(p.domain)} itself: that needs glue addresses, which this service does not manage yet. Choose nameservers outside the domain.`,
          duplicate: `The nameserver ${s(p.nameserver)} is listed twice.`,
          count: `2 to 13 nameservers are needed; got: ${s(p.nameserver) || 'none'}.`,
        }) as Record<string, string>
      )[s(p.reason)] ?? `Not an acceptable nameserver list for ${s(p.domain)}.`,
  },
  labels_invalid: {
    status: 422,
    uk: (p) => `Мітка «${s(p.label)}» неприйнятна: лише малі латинські літери, цифри й дефіси, до 63 знаків, без дефіса на краях.`,
    en: (p) =>
      `The label "${s(p.label)}" is not acceptable: lower-case letters, digits and hyphens only, up to 63 characters, no hyphen at either end.`,
  },
  contact_character_forbidden: {
    status: 422,
    uk: (p) =>
      `Поле ${s(p.field)} містить символ ${s(p.character)}, який не можна передати реєстру (XML 1.0 його забороняє); приберіть його. Усі такі поля — у details.`,
    en: (p) =>
      `The field ${s(p.field)} holds the character ${s(p.character)}, which cannot be sent to the registry (XML 1.0 forbids it); remove it. Every such field is in details.`,
  },
  validation_failed: {
    status: 422,
    uk: () => 'Запит не відповідає схемі: дивіться details.',
    en: () => 'The request does not match its schema: see details.',
    actions: () => [{ type: 'read_docs', href: '/v1/openapi.json' }],
  },
  malformed_json: {
    status: 400,
    uk: () => 'Тіло запиту не є правильним JSON.',
    en: () => 'The request body is not valid JSON.',
  },
  unsupported_media_type: {
    status: 415,
    uk: () => 'Тіло запиту має бути JSON: Content-Type: application/json.',
    en: () => 'The request body must be JSON: Content-Type: application/json.',
  },
  payload_too_large: {
    status: 413,
    uk: (p) => `Тіло запиту завелике: не більше ${s(p.limit)} байтів.`,
    en: (p) => `The request body is too large: at most ${s(p.limit)} bytes.`,
  },
  request_timeout: {
    status: 408,
    uk: (p) => `Тіло запиту перестало надходити: ${s(p.seconds)} с без жодного байта. Надішліть запит знову.`,
    en: (p) => `The request body stopped arriving: ${s(p.seconds)} s without a byte. Send the request again.`,
  },
  not_found: {
    status: 404,
    uk: (p) => `Адреси ${s(p.path)} в API немає.`,
    en: (p) => `There is no ${s(p.path)} in the API.`,
    actions: () => [{ type: 'read_docs', href: '/v1/openapi.json' }],
  },
  method_not_allowed: {
    status: 405,
    uk: (p) => `Метод ${s(p.method)} не підтримується для ${s(p.path)}; дозволено: ${s(p.allow)}.`,
    en: (p) => `${s(p.method)} is not supported on ${s(p.path)}; allowed: ${s(p.allow)}.`,
  },
  idempotency_key_required: {
    status: 400,
    uk: () => 'Кожен запит, що змінює дані, потребує заголовка Idempotency-Key з унікальним значенням (наприклад, UUID).',
    en: () => 'Every write needs an Idempotency-Key header with a unique value (a UUID, for example).',
  },
  idempotency_key_invalid: {
    status: 400,
    uk: () => 'Idempotency-Key має містити від 1 до 255 видимих символів ASCII.',
    en: () => 'Idempotency-Key must be 1 to 255 visible ASCII characters.',
  },
  idempotency_key_reused: {
    status: 422,
    uk: () => 'Цей Idempotency-Key уже використано для іншого запиту. Для нового запиту візьміть новий ключ.',
    en: () => 'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
  },
  idempotency_key_in_use: {
    status: 409,
    uk: (p) =>
      p.retry_after === undefined
        ? 'Запит із цим Idempotency-Key ще виконується. Повторіть трохи згодом.'
        : `Запит із цим Idempotency-Key ще виконується (або перерваний). Повторіть через ${s(p.retry_after)} с.`,
    en: (p) =>
      p.retry_after === undefined
        ? 'A request with this Idempotency-Key is still running. Retry in a moment.'
        : `A request with this Idempotency-Key is still running (or was cut off). Retry in ${s(p.retry_after)} s.`,
  },
  rate_limited: {
    status: 429,
    uk: (p) => `Забагато запитів. Повторіть через ${s(p.retry_after)} с.`,
    en: (p) => `Too many requests. Retry in ${s(p.retry_after)} s.`,
  },
  webhook_not_found: {
    status: 404,
    uk: (p) => `Вебхук ${s(p.webhook_id)} не знайдено в цьому рахунку й середовищі.`,
    en: (p) => `The webhook ${s(p.webhook_id)} was not found in this account and environment.`,
    actions: () => [{ type: 'list_webhooks', href: '/v1/webhooks' }],
  },
  webhook_url_refused: {
    status: 422,
    uk: (p) =>
      s(p.url) === ''
        ? 'Вкажіть адресу вебхука: публічну адресу https:// (не локальну, не в приватній мережі, не службову адресу хмари).'
        : `Адресу ${s(p.url)} не можна використати для вебхука: ${s(p.reason)}. Потрібна публічна адреса https:// (не локальна, не приватна мережа, не службова адреса хмари).`,
    en: (p) =>
      s(p.url) === ''
        ? "Enter the webhook endpoint's address: a public https:// address (not loopback, a private network or a cloud metadata address)."
        : `The URL ${s(p.url)} cannot be a webhook endpoint: ${s(p.reason)}. A public https:// address is required (not loopback, a private network or a cloud metadata address).`,
    actions: () => [{ type: 'read_docs', href: '/v1/openapi.json' }],
  },
  delivery_not_found: {
    status: 404,
    uk: (p) => `Доставку ${s(p.delivery_id)} цього вебхука не знайдено.`,
    en: (p) => `The delivery ${s(p.delivery_id)} of this webhook was not found.`,
  },
  event_type_unknown: {
    status: 422,
    uk: (p) => `Невідомі типи подій: ${s(p.types) || '(порожньо)'}. Перелік типів — у каталозі подій (README) або "*" для всіх.`,
    en: (p) => `Unknown event types: ${s(p.types) || '(none given)'}. See the event catalogue (README), or "*" for all.`,
    actions: () => [{ type: 'read_docs', href: '/v1/openapi.json' }],
  },
  cursor_invalid: {
    status: 422,
    uk: () => 'Курсор сторінки недійсний: беріть next_cursor з попередньої відповіді.',
    en: () => 'The page cursor is not valid: take next_cursor from the previous response.',
  },
  internal_error: {
    status: 500,
    uk: () => 'Внутрішня помилка сервера. Ми вже знаємо; повторіть запит пізніше.',
    en: () => 'Internal server error. It has been logged; retry later.',
  },
  // the six human-only actions
  reauth_required: {
    status: 403,
    uk: (p) => `Для цієї дії увійдіть ще раз (пароль і одноразовий код): попередній вхід був понад ${s(p.minutes)} хв тому.`,
    en: (p) => `Sign in again (password and one-time code) for this action: the last sign-in was more than ${s(p.minutes)} minutes ago.`,
    actions: () => [
      { type: 'reauthenticate', href: '/v1/account/reauthentications' },
      { type: 'open_console', href: '/console/reauth' },
    ],
  },
  owner_only: {
    status: 403,
    uk: () => 'Цю дію може виконати лише власник рахунку; учасник — ні. Попросіть власника.',
    en: () => 'Only an owner of the account can do this, not a member. Ask an owner.',
  },
  person_exists: {
    status: 409,
    uk: (p) => `Людина з адресою ${s(p.email)} уже має обліковий запис у Domivka.`,
    en: (p) => `A person with the address ${s(p.email)} already has a Domivka sign-in.`,
  },
  person_not_found: {
    status: 404,
    uk: (p) => `У цьому рахунку немає людини ${s(p.id)}.`,
    en: (p) => `There is no person ${s(p.id)} in this account.`,
  },
  invitation_invalid: {
    status: 404,
    uk: () => 'Запрошення недійсне: його вже використано, відкликано, або минуло 7 днів. Попросіть нове.',
    en: () => 'The invitation is not valid: it was used, revoked, or is older than 7 days. Ask for a new one.',
  },
  last_owner: {
    status: 409,
    uk: (p) => `${s(p.email)} — останній власник рахунку: спершу зробіть власником когось іншого. Рахунок не може лишитися без власника.`,
    en: (p) =>
      `${s(p.email)} is the last owner of the account: make someone else an owner first. An account cannot be left without an owner.`,
    actions: () => [{ type: 'open_console', href: '/console/people' }],
  },
  account_not_empty: {
    status: 409,
    uk: (p) =>
      `Рахунок не можна видалити: на ньому ${s(p.domains)} доменів і баланс ${s(p.balance_live)} грн (робоче середовище) та ${s(p.balance_test)} грн (пісочниця). Спершу передайте або звільніть домени і виведіть баланс до нуля.`,
    en: (p) =>
      `The account cannot be deleted: it holds ${s(p.domains)} domains and a balance of ${s(p.balance_live)} UAH (live) and ${s(p.balance_test)} UAH (sandbox). Transfer or release the domains and bring the balance to zero first.`,
    actions: () => [{ type: 'open_console', href: '/console/' }],
  },
  card_invalid: {
    status: 422,
    uk: () => 'Номер картки неправильний (12–19 цифр, контрольна сума Луна). У пісочниці використовуйте, наприклад, 4242 4242 4242 4242.',
    en: () => 'The card number is not valid (12–19 digits with a Luhn check digit). In the sandbox use, for example, 4242 4242 4242 4242.',
  },
  card_setup_unavailable: {
    status: 503,
    uk: (p) => `Збереження картки в середовищі ${s(p.environment)} не налаштовано.`,
    en: (p) => `Saving a card is not configured for the ${s(p.environment)} environment.`,
  },
  csrf_failed: {
    status: 403,
    uk: () => 'Форму відхилено: бракує захисного токена або він неправильний. Оновіть сторінку й спробуйте ще раз.',
    en: () => 'The form was refused: its protection token is missing or wrong. Reload the page and try again.',
  },
  // switching two-factor checks on again
  two_factor_already_on: {
    status: 409,
    uk: () =>
      'Двофакторну перевірку вже ввімкнено: вхід просить пароль і одноразовий код. Щоб перейти на новий секрет, спершу вимкніть її, а потім увімкніть знову.',
    en: () =>
      'Two-factor checks are already on: signing in asks for the password and a one-time code. To move to a new secret, switch them off first, then on again.',
    actions: () => [{ type: 'open_console', href: '/console/security' }],
  },
  two_factor_enrolment_missing: {
    status: 409,
    uk: () =>
      'Немає нового секрету, що чекає на підтвердження: спершу отримайте його (POST /v1/account/two-factor/enrolment), додайте до застосунку-автентифікатора, а тоді надішліть код із нього.',
    en: () =>
      'There is no new secret waiting to be confirmed: get one first (POST /v1/account/two-factor/enrolment), add it to your authenticator app, then send a code from it.',
    actions: () => [
      { type: 'start_enrolment', href: '/v1/account/two-factor/enrolment' },
      { type: 'open_console', href: '/console/security' },
    ],
  },
  totp_invalid: {
    status: 422,
    uk: () =>
      'Одноразовий код не підходить до нового секрету. Перевірте, що застосунок-автентифікатор показує код саме для цього секрету і що час на пристрої точний, і введіть наступний код.',
    en: () =>
      'The one-time code does not match the new secret. Check that your authenticator app shows the code for this very secret and that the device’s clock is right, then enter the next code.',
  },
  password_reset_invalid: {
    status: 404,
    uk: () =>
      'Посилання для нового пароля не діє: його вже використано, воно застаріло (діє 30 хвилин) або його замінило новіше. Попросіть нове посилання.',
    en: () =>
      'The new-password link does not work: it was used already, it has expired (it lasts 30 minutes) or a newer one replaced it. Ask for a new link.',
    actions: () => [{ type: 'request_reset', href: '/console/password/forgot' }],
  },
};

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: { uk: string; en: string };
    actions: Action[];
    details?: ReadonlyArray<Record<string, unknown>>;
  };
}

/**
 * The entry of any code, for code that renders errors whatever their code (the error body, the console,
 * the README): a DomainError's params are its code's own by construction, so the entry takes them.
 */
export const entryOf = (code: ErrorCode): ErrorEntry => ERROR_TABLE[code] as unknown as ErrorEntry;

export const errorBody = (code: ErrorCode, params: ErrorParams = {}, details?: ReadonlyArray<Record<string, unknown>>): ErrorBody => {
  const e = entryOf(code);
  return {
    error: {
      code,
      message: { uk: e.uk(params), en: e.en(params) },
      actions: e.actions?.(params) ?? [],
      ...(details && details.length > 0 ? { details } : {}),
    },
  };
};
