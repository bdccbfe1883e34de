import type { ErrorCode, ErrorParams } from '../../core/shared/errors.js';

/**
 * The one table (seed 7, STYLE 8): every error code → HTTP status, Ukrainian and English text, and
 * suggested actions. Every failure path of the API answers through it; the README's error catalogue
 * and the OpenAPI document are generated from it.
 */
export interface Action {
  readonly type: string;
  readonly href: string;
}

export interface ErrorEntry {
  readonly status: number;
  readonly uk: (p: ErrorParams) => string;
  readonly en: (p: ErrorParams) => string;
  readonly actions?: (p: ErrorParams) => Action[];
}

const s = (v: unknown): string => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));
const enc = encodeURIComponent;

export const ERROR_TABLE: Readonly<Record<ErrorCode, ErrorEntry>> = {
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
    uk: (p) => (p.domain ? `Ключ не має права ${s(p.right)} для домену ${s(p.domain)}.` : `Ключ не має права ${s(p.right)}.`) +
      (p.change ? ` Ключ лише для ACME може змінювати тільки TXT-записи _acme-challenge; заборонена зміна: ${s(p.change)}.` : ''),
    en: (p) => (p.domain ? `The key does not hold the right ${s(p.right)} for the domain ${s(p.domain)}.` : `The key does not hold the right ${s(p.right)}.`) +
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
    uk: () => 'Не вдалося увійти: неправильна адреса, пароль або одноразовий код.',
    en: () => 'Sign-in failed: wrong e-mail, password or one-time code.',
  },
  role_forbidden: {
    status: 403,
    uk: (p) => `Учасник рахунку може випускати лише ключі класу не вище ${s(p.max_class)}; цей ключ має клас ${s(p.class)}. Попросіть власника.`,
    en: (p) => `A member may issue keys of class ${s(p.max_class)} or lower; this key is class ${s(p.class)}. Ask an owner.`,
  },
  environment_unavailable: {
    status: 503,
    uk: (p) => `Середовище ${s(p.environment)} на цьому сервері не налаштоване. Скористайтеся тестовим ключем (dmk_test_…).`,
    en: (p) => `The ${s(p.environment)} environment is not configured on this server. Use a test key (dmk_test_…).`,
  },
  key_lifetime_exceeded: {
    status: 422,
    uk: (p) => `Ключ класу ${s(p.class)} може діяти не довше ${s(p.max_days)} днів, тобто до ${s(p.max_date)} включно; запитано ${s(p.expires_on)}.`,
    en: (p) => `A class ${s(p.class)} key may last at most ${s(p.max_days)} days, that is through ${s(p.max_date)}; ${s(p.expires_on)} was asked.`,
  },
  expiry_in_past: {
    status: 422,
    uk: (p) => `Дата закінчення ${s(p.expires_on)} уже минула (сьогодні ${s(p.today)} за київським часом).`,
    en: (p) => `The expiry date ${s(p.expires_on)} is in the past (today is ${s(p.today)} in Kyiv).`,
  },
  ip_restriction_required: {
    status: 422,
    uk: (p) => `Ключ класу ${s(p.class)} мусить мати обмеження за IP: мережу IPv4 у форматі CIDR з префіксом /${s(p.min_prefix)} або довшим.`,
    en: (p) => `A class ${s(p.class)} key needs an IP restriction: an IPv4 network in CIDR form with a prefix of /${s(p.min_prefix)} or longer.`,
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
  domain_not_renewable: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} зараз не можна продовжити (стан: ${s(p.status)}).`,
    en: (p) => `The domain ${s(p.domain)} cannot be renewed now (status: ${s(p.status)}).`,
    actions: (p) => [{ type: 'view_domain', href: `/v1/domains/${enc(s(p.domain))}` }],
  },
  domain_already_yours: {
    status: 409,
    uk: (p) => `Домен ${s(p.domain)} уже належить цьому рахунку; щоб подовжити його, продовжте реєстрацію.`,
    en: (p) => `The domain ${s(p.domain)} already belongs to this account; renew it to extend it.`,
    actions: (p) => [{ type: 'renew', href: `/v1/domains/${enc(s(p.domain))}/renewals` }],
  },
  insufficient_funds: {
    status: 402,
    uk: (p) => `Недостатньо коштів: потрібно ${s(p.amount)} грн, на балансі ${s(p.balance)} грн. Поповніть баланс.`,
    en: (p) => `Insufficient funds: ${s(p.amount)} UAH is needed and the balance is ${s(p.balance)} UAH. Top up the balance.`,
    actions: () => [{ type: 'top_up', href: '/v1/billing/topups' }, { type: 'view_balance', href: '/v1/billing/balance' }],
  },
  spend_limit_exceeded: {
    status: 402,
    uk: (p) => `Перевищено місячний ліміт ключа ${s(p.key_id)}: ліміт ${s(p.limit)} грн за ${s(p.month)}, витрачено ${s(p.spent)} грн, лишилося ${s(p.left)} грн, а ця операція коштує ${s(p.amount)} грн.`,
    en: (p) => `This would pass the monthly limit of key ${s(p.key_id)}: the limit is ${s(p.limit)} UAH for ${s(p.month)}, ${s(p.spent)} UAH is spent, ${s(p.left)} UAH is left, and this costs ${s(p.amount)} UAH.`,
    actions: () => [{ type: 'inspect_key', href: '/v1/key' }],
  },
  card_declined: {
    status: 402,
    uk: (p) => `Картку ${s(p.card)} відхилено (${s(p.reason)}). Нічого не списано; змініть картку в консолі або спробуйте іншу суму.`,
    en: (p) => `The card ${s(p.card)} was declined (${s(p.reason)}). Nothing was charged; change the card in the console or try another amount.`,
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
    uk: (p) => `План змінює або видаляє ${s(p.touched)} з ${s(p.size)} наборів записів (понад 30%). Якщо це задумано, застосуйте з "force": true.`,
    en: (p) => `The plan updates or deletes ${s(p.touched)} of ${s(p.size)} record sets (over 30%). If that is intended, apply with "force": true.`,
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
    en: (p) => `We hold no private key for the certificate ${s(p.certificate_id)}: it was requested with your own CSR, so only you have the key.`,
  },
  sandbox_only: {
    status: 403,
    uk: () => 'Це доступно лише в тестовому середовищі: скористайтеся тестовим ключем (dmk_test_…).',
    en: () => 'This is for the test environment only: use a test key (dmk_test_…).',
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
    uk: () => 'Запит із цим Idempotency-Key ще виконується. Повторіть трохи згодом.',
    en: () => 'A request with this Idempotency-Key is still running. Retry in a moment.',
  },
  rate_limited: {
    status: 429,
    uk: (p) => `Забагато запитів. Повторіть через ${s(p.retry_after)} с.`,
    en: (p) => `Too many requests. Retry in ${s(p.retry_after)} s.`,
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
};

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: { uk: string; en: string };
    actions: Action[];
    details?: ReadonlyArray<Record<string, unknown>>;
  };
}

export const errorBody = (code: ErrorCode, params: ErrorParams = {}, details?: ReadonlyArray<Record<string, unknown>>): ErrorBody => {
  const e = ERROR_TABLE[code];
  return {
    error: {
      code,
      message: { uk: e.uk(params), en: e.en(params) },
      actions: e.actions?.(params) ?? [],
      ...(details && details.length > 0 ? { details } : {}),
    },
  };
};
