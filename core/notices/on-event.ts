import type { EventOf, EventType } from '../kernel/events.js';
import type { EventSubscriber } from '../kernel/recorder.js';
import { formatUah } from '../kernel/money.js';
import { oneLine, quoted } from '../kernel/foreign-text.js';
import { phaseOfStatus, type Phase } from '../domains/lifecycle.js';
import { describeEffect } from '../operations/operation.js';
import type { NotifyOwners } from './notify-owners.js';

/** What a notice says, built from the event alone; who gets it is NotifyOwners' business (every owner). */
export interface NoticeDraft {
  readonly kind: string;
  readonly domain: string | null;
  readonly message: { readonly uk: string; readonly en: string };
  readonly data: Readonly<Record<string, unknown>>;
  /** Someone besides the owners who must hear of it (a demoted or removed person, of their own keys). */
  readonly alsoTo?: ReadonlyArray<{ readonly personId: string; readonly email: string }>;
}

/** `by`: who acted, as the notice names them (a key by its id, a person by name and e-mail). */
type Build<T extends EventType> = (e: EventOf<T>, by: Who) => NoticeDraft | null;

/** The id after the prefix of an actor or subject ("key:abc" → "abc"), or null when it is something else. */
const idOf = (ref: string, kind: 'key' | 'person' | 'topup' | 'certificate'): string | null =>
  ref.startsWith(`${kind}:`) ? ref.slice(kind.length + 1) : null;

const PHASE_TEXT: Record<Phase, { uk: string; en: string }> = {
  active: { uk: 'активний', en: 'active' },
  autoRenewPeriod: {
    uk: 'строк дії минув; ще можна продовжити за звичайною ціною (autoRenewPeriod, 45 днів)',
    en: 'expired; it can still be renewed at the normal price (autoRenewPeriod, 45 days)',
  },
  redemptionPeriod: {
    uk: 'у періоді викупу: відновлення коштує продовження плюс 1500 грн (redemptionPeriod, 30 днів)',
    en: 'in redemption: restoring it costs a renewal plus 1500 UAH (redemptionPeriod, 30 days)',
  },
  pendingDelete: {
    uk: 'очікує видалення; відновити вже не можна (pendingDelete, 5 днів)',
    en: 'pending deletion; it can no longer be restored (pendingDelete, 5 days)',
  },
  released: { uk: 'звільнений і вилучений з рахунку', en: 'released and removed from the account' },
};

/** What each rollover step means, for the owners' notice. */
const ROLLOVER_TEXT: Readonly<Record<string, { uk: string; en: string }>> = {
  started: { uk: 'почато.', en: 'started.' },
  prepublish: { uk: 'новий ключ опубліковано в наборі DNSKEY.', en: 'the new key is published in the DNSKEY set.' },
  double_sign: { uk: 'обидва ключі підписують зону; CDS/CDNSKEY опубліковано.', en: 'both keys sign the zone; CDS/CDNSKEY published.' },
  new_signatures: {
    uk: 'новий алгоритм підписує зону (ключ ще не опубліковано).',
    en: 'the new algorithm signs the zone (its key not yet published).',
  },
  new_dnskey: {
    uk: 'ключ нового алгоритму опубліковано; CDS/CDNSKEY опубліковано.',
    en: "the new algorithm's key is published; CDS/CDNSKEY published.",
  },
  ds_replaced: { uk: 'DS у реєстрі замінено на новий.', en: 'the DS at the registry was replaced by the new one.' },
  ds_replace_failed: {
    uk: 'реєстр не прийняв заміну DS; зона й далі підписана обома ключами, спробуємо знову.',
    en: 'the registry refused the DS replacement; the zone stays signed by both keys, and we will try again.',
  },
  old_unsigned: { uk: 'старий ключ більше не підписує.', en: 'the old key no longer signs.' },
  old_dnskey_removed: { uk: 'старий ключ вилучено з набору DNSKEY.', en: 'the old key left the DNSKEY set.' },
  done: { uk: 'завершено; старий ключ вилучено.', en: 'finished; the old key is retired.' },
};

type Who = { uk: string; en: string };
type OperationChange = 'pending' | 'confirmed' | 'cancelled' | 'activated' | 'failed';
const OPERATION_HEAD: Record<OperationChange, (by: Who) => { uk: string; en: string }> = {
  pending: (by) => ({ uk: `${by.uk} запитав операцію класу 3, що чекає`, en: `${by.en} requested a waiting class 3 operation` }),
  confirmed: (by) => ({ uk: `${by.uk} підтвердив операцію класу 3`, en: `${by.en} confirmed a class 3 operation` }),
  cancelled: (by) => ({ uk: `${by.uk} скасував операцію класу 3`, en: `${by.en} cancelled a class 3 operation` }),
  activated: () => ({ uk: 'Операцію класу 3 виконано', en: 'A class 3 operation took effect' }),
  failed: () => ({ uk: 'Операція класу 3 не вдалася', en: 'A class 3 operation failed' }),
};

/**
 * Why an operation failed, as the owners read it. Our own refusals (checked when it was to take effect; the
 * registry was not asked) are told as ours; anything else is the registry's refusal, quoted as it answered.
 */
const OUR_FAILURES: Record<'dnssec_ds_stale' | 'dnssec_foreign_keys_present' | 'registrar_capability_missing', { uk: string; en: string }> =
  {
    dnssec_ds_stale: {
      uk: ' Причина: запис DS уже не відповідає жодному чинному ключу зони (DNSSEC вимкнено або ключ змінився, поки операція чекала). Реєстру його не надсилали: на батьківській зоні він зробив би домен недоступним для валідаторів. Якщо DS ще потрібен, запитайте публікацію знову.',
      en: ' Why: the DS no longer matches a live key of the zone (DNSSEC was switched off or the key changed while the operation waited). It was not sent to the registry: at the parent it would have made the domain fail validation. If a DS is still wanted, request its publication again.',
    },
    dnssec_foreign_keys_present: {
      uk: ' Причина: у наборі DNSKEY зони є ключі іншого оператора, і їхній DS лишається на батьківській зоні; без підписів відповіді не пройшли б перевірку. Спершу приберіть ці ключі.',
      en: " Why: another operator's keys are in the zone's DNSKEY set and their DS stays at the parent; unsigned answers would fail validation. Take those keys out first.",
    },
    registrar_capability_missing: {
      uk: ' Причина: реєстратор цього домену не підтримує цієї дії.',
      en: " Why: this domain's registrar cannot do this.",
    },
  };
const failureText = (reason: string | null | undefined): { uk: string; en: string } => {
  const [, code, detail] = /^([a-z_]+):\s*(.*)$/s.exec(reason ?? '') ?? [];
  if (code === 'registrar_capability_missing') {
    // The detail names the registrar and what it cannot do ("epp cannot ds_remove").
    const text = OUR_FAILURES.registrar_capability_missing;
    return { uk: `${text.uk.slice(0, -1)} (${detail}).`, en: `${text.en.slice(0, -1)} (${detail}).` };
  }
  if (code && code in OUR_FAILURES) return OUR_FAILURES[code as keyof typeof OUR_FAILURES];
  return { uk: ` Причина від реєстру: ${reason ?? ''}`, en: ` The registry's reason: ${reason ?? ''}` };
};

/** Why the service cancelled an operation itself: its requester lost the power to ask for it. */
const CANCEL_REASON_TEXT: Record<'key_revoked' | 'requester_demoted' | 'requester_removed', { uk: string; en: string }> = {
  key_revoked: {
    uk: ' Причина: ключ, яким її запитали, відкликано. Якщо зміна ще потрібна, запитайте її знову.',
    en: ' Why: the key that requested it was revoked. If the change is still wanted, request it again.',
  },
  requester_demoted: {
    uk: ' Причина: особа, що її запитала, більше не власник. Якщо зміна ще потрібна, власник може запитати її знову.',
    en: ' Why: the person who requested it is no longer an owner. If the change is still wanted, an owner may request it again.',
  },
  requester_removed: {
    uk: ' Причина: особу, що її запитала, вилучено з рахунку. Якщо зміна ще потрібна, власник може запитати її знову.',
    en: ' Why: the person who requested it was removed from the account. If the change is still wanted, an owner may request it again.',
  },
};

/**
 * "key:<id>" → Ключ/Key <id>; "person:<id>" → the person as `person` names them (their name and e-mail), or
 * Особа/Person <id> when they are gone; anything else (system:…) as is.
 */
export const who = (actor: string, person?: string | null): Who => {
  if (actor.startsWith('key:')) return { uk: `Ключ ${actor.slice(4)}`, en: `Key ${actor.slice(4)}` };
  if (actor.startsWith('person:'))
    return person ? { uk: person, en: person } : { uk: `Особа ${actor.slice(7)}`, en: `Person ${actor.slice(7)}` };
  return { uk: actor, en: actor };
};

/**
 * Every state change of a class 3 operation tells every owner (DESIGN: class 3). Notices never carry a
 * transfer code (seed A7): neither does the event they are built from.
 */
const operationNotice =
  (change: OperationChange): Build<`operation.${OperationChange}`> =>
  (e, by) => {
    const d = e.data;
    const head = OPERATION_HEAD[change](by);
    const effect = describeEffect({
      kind: d.kind,
      domain: d.domain,
      params: { nameservers: d.nameservers, labels: d.labels, previous: d.previous, ds: d.ds },
    });
    const tail =
      change === 'pending'
        ? {
            uk: ` Вона виконається сама ${d.activates_at}, якщо інший власник не підтвердить її раніше; будь-який власник може її скасувати.`,
            en: ` It takes effect by itself at ${d.activates_at} unless another owner confirms it sooner; any owner may cancel it.`,
          }
        : change === 'failed'
          ? failureText(d.failure_reason)
          : change === 'cancelled' && d.cancel_reason
            ? CANCEL_REASON_TEXT[d.cancel_reason]
            : { uk: '', en: '' };
    const warnings = d.warning_messages ?? [];
    const warn =
      warnings.length > 0 && (change === 'pending' || change === 'activated')
        ? { uk: ` ${warnings.map((w) => w.uk).join(' ')}`, en: ` ${warnings.map((w) => w.en).join(' ')}` }
        : { uk: '', en: '' };
    const at = e.occurredAt.toISOString();
    return {
      kind: `operation.${change}`,
      domain: d.domain,
      message: {
        uk: `${head.uk} (${d.operation_id}): ${effect.uk}${tail.uk}${warn.uk} Час: ${at}.`,
        en: `${head.en} (${d.operation_id}): ${effect.en}${tail.en}${warn.en} Time: ${at}.`,
      },
      data: {
        operation_id: d.operation_id,
        kind: d.kind,
        domain: d.domain,
        status: d.status,
        actor: e.actor,
        ...(d.cancel_reason ? { cancel_reason: d.cancel_reason } : {}),
        href: `/v1/operations/${d.operation_id}`,
      },
    };
  };

const monitorNotice =
  (how: 'failed' | 'recovered'): Build<`monitor.check_${'failed' | 'recovered'}`> =>
  (e) => {
    const d = e.data;
    return {
      kind: `monitor.check_${how}`,
      domain: d.domain,
      data: d,
      message:
        how === 'failed'
          ? {
              uk: `Перевірка ${d.kind} (${oneLine(d.target, 200)}) не пройшла: ${quoted(d.reason ?? '', 200)}`,
              en: `The ${d.kind} check of ${oneLine(d.target, 200)} is failing: ${quoted(d.reason ?? '', 200)}`,
            }
          : {
              uk: `Перевірка ${d.kind} (${oneLine(d.target, 200)}) знову проходить.`,
              en: `The ${d.kind} check of ${oneLine(d.target, 200)} has recovered.`,
            },
    };
  };

/**
 * Event type → the notice every owner gets (seed A5, DESIGN: class 2 and 3 actions, the human-only
 * actions, the lifecycle, failing checks). A type that is not here, or whose builder returns null,
 * notifies nobody.
 */
export const NOTICES: { readonly [T in EventType]?: Build<T> } = {
  // DESIGN: issuing a key of class ≥ 2 sends every owner a notice.
  'key.issued': (e) => {
    const d = e.data;
    if (d.class < 2) return null;
    const rights = d.rights.join(', ');
    return {
      kind: 'key.issued',
      domain: null,
      message: {
        uk: `Випущено ключ класу ${d.class} «${d.name}» (${d.key_id}) у середовищі ${e.environment}: права ${rights}; діє до ${d.expires_on}; мережа ${d.cidr}${d.spend_limit !== null ? `; ліміт ${formatUah(d.spend_limit)} грн на місяць` : ''}.`,
        en: `A class ${d.class} key "${d.name}" (${d.key_id}) was issued in the ${e.environment} environment: rights ${rights}; valid through ${d.expires_on}; network ${d.cidr}${d.spend_limit !== null ? `; limit ${formatUah(d.spend_limit)} UAH per month` : ''}.`,
      },
      data: { key_id: d.key_id, class: d.class, issued_by: idOf(e.actor, 'person'), issued_at: e.occurredAt.toISOString() },
    };
  },
  'domain.registered': (e, by) => {
    const d = e.data;
    const keyId = idOf(e.actor, 'key');
    const at = e.occurredAt.toISOString();
    return {
      kind: 'domain.registered',
      domain: d.domain,
      message: {
        uk: `${by.uk} зареєстрував домен ${d.domain} на ${d.years} р. (до ${d.expires_at}); списано ${formatUah(d.amount)} грн. Час: ${at}.`,
        en: `${by.en} registered ${d.domain} for ${d.years} year(s) (until ${d.expires_at}); ${formatUah(d.amount)} UAH was charged. Time: ${at}.`,
      },
      data: { key_id: keyId, amount: d.amount, domain: d.domain, at },
    };
  },
  'domain.renewed': (e, actor) => {
    const d = e.data;
    const keyId = d.automatic ? null : idOf(e.actor, 'key');
    const by = d.automatic
      ? { uk: 'Автоматично продовжено', en: 'Automatically renewed' }
      : { uk: `${actor.uk} продовжив`, en: `${actor.en} renewed` };
    const at = e.occurredAt.toISOString();
    return {
      kind: d.automatic ? 'domain.auto_renewed' : 'domain.renewed',
      domain: d.domain,
      message: {
        uk: `${by.uk} ${d.domain}${d.restore ? ' (відновлення з redemptionPeriod)' : ''} на ${d.years} р. — тепер до ${d.expires_at}; списано ${formatUah(d.amount)} грн. Час: ${at}.`,
        en: `${by.en} ${d.domain}${d.restore ? ' (restored from redemptionPeriod)' : ''} for ${d.years} year(s) — now until ${d.expires_at}; ${formatUah(d.amount)} UAH was charged. Time: ${at}.`,
      },
      data: { key_id: keyId, amount: d.amount, domain: d.domain, at },
    };
  },
  'domain.auto_renew_changed': (e, by) => {
    const d = e.data;
    const keyId = idOf(e.actor, 'key');
    const at = e.occurredAt.toISOString();
    return {
      kind: 'domain.auto_renew_changed',
      domain: d.domain,
      message: {
        uk: `${by.uk} ${d.auto_renew ? 'увімкнув' : 'вимкнув'} автоматичне продовження домену ${d.domain}. Час: ${at}.`,
        en: `${by.en} switched automatic renewal of ${d.domain} ${d.auto_renew ? 'on' : 'off'}. Time: ${at}.`,
      },
      data: { key_id: keyId, domain: d.domain, auto_renew: d.auto_renew, at },
    };
  },
  'domain.auto_renew_failed': (e) => {
    const d = e.data;
    const why =
      d.reason === 'insufficient_funds'
        ? { uk: 'недостатньо коштів на балансі', en: 'the balance is too low' }
        : d.reason === 'spend_limit_exceeded'
          ? {
              uk: 'це перевищило б місячний ліміт витрат ключа, який увімкнув автопродовження (продовження рахується на нього, поки ключ чинний); нічого не списано',
              en: 'it would pass the monthly spend limit of the key that switched automatic renewal on (the renewal counts against it while that key is valid); nothing was charged',
            }
          : { uk: d.reason, en: d.reason };
    return {
      kind: 'domain.auto_renew_failed',
      domain: d.domain,
      message: {
        uk: `Не вдалося автоматично продовжити ${d.domain} (діє до ${d.expires_at}): ${why.uk}. Поповніть баланс або продовжте вручну.`,
        en: `Automatic renewal of ${d.domain} (valid until ${d.expires_at}) failed: ${why.en}. Top up the balance or renew it by hand.`,
      },
      data: { domain: d.domain, reason: d.reason, expires_at: d.expires_at },
    };
  },
  'domain.status_changed': (e) => {
    const d = e.data;
    const phase = PHASE_TEXT[phaseOfStatus(d.to)];
    return {
      kind: 'domain.status_changed',
      domain: d.domain,
      message: {
        uk: `Домен ${d.domain} (діяв до ${d.expires_at}): ${phase.uk}.`,
        en: `The domain ${d.domain} (valid until ${d.expires_at}): ${phase.en}.`,
      },
      data: { domain: d.domain, status: d.to },
    };
  },
  // Transfers between registrars: every owner hears of money reserved, charged or returned, and of a
  // transfer out they may still reject (the losing side's period is short).
  'domain.transfer_in_requested': (e, by) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_in_requested',
      domain: d.domain,
      message: {
        uk: `${by.uk} запитав перенесення домену ${d.domain} до нас (${d.years} р.); зарезервовано ${formatUah(d.amount)} грн до відповіді теперішнього реєстратора.`,
        en: `${by.en} asked for ${d.domain} to be transferred to us (${d.years} year(s)); ${formatUah(d.amount)} UAH is reserved until the current registrar answers.`,
      },
      data: { domain: d.domain, transfer_id: d.transfer_id, amount: d.amount, href: `/v1/domains/${d.domain}/transfers/${d.transfer_id}` },
    };
  },
  'domain.transfer_in_completed': (e) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_in_completed',
      domain: d.domain,
      message: {
        uk: `Домен ${d.domain} перенесено до нас (до ${d.expires_at}); списано ${formatUah(d.amount)} грн.`,
        en: `${d.domain} was transferred to us (until ${d.expires_at}); ${formatUah(d.amount)} UAH was charged.`,
      },
      data: { domain: d.domain, transfer_id: d.transfer_id, amount: d.amount },
    };
  },
  'domain.transfer_in_failed': (e) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_in_failed',
      domain: d.domain,
      message: d.rejected
        ? {
            uk: `Теперішній реєстратор відхилив перенесення домену ${d.domain}; ${formatUah(d.amount)} грн повернено на баланс.`,
            en: `The current registrar rejected the transfer of ${d.domain}; ${formatUah(d.amount)} UAH was returned to the balance.`,
          }
        : {
            uk: `Перенесення домену ${d.domain} не вдалося (${d.reason}); ${formatUah(d.amount)} грн повернено на баланс.`,
            en: `The transfer of ${d.domain} failed (${d.reason}); ${formatUah(d.amount)} UAH was returned to the balance.`,
          },
      data: { domain: d.domain, transfer_id: d.transfer_id, reason: d.reason },
    };
  },
  'domain.transfer_in_cancelled': (e, by) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_in_cancelled',
      domain: d.domain,
      message: {
        uk: `${by.uk} скасував перенесення домену ${d.domain}; ${formatUah(d.amount)} грн повернено на баланс.`,
        en: `${by.en} cancelled the transfer of ${d.domain}; ${formatUah(d.amount)} UAH was returned to the balance.`,
      },
      data: { domain: d.domain, transfer_id: d.transfer_id },
    };
  },
  'domain.transfer_requested': (e) => {
    const d = e.data;
    const when = typeof d.action_at === 'string' ? d.action_at : null;
    return {
      kind: 'domain.transfer_requested',
      domain: d.domain,
      message: {
        uk: `Інший реєстратор запитав перенесення домену ${d.domain}${when ? `; якщо його не відхилити, домен піде ${when}` : ''}. Якщо ви цього не робили, відхиліть: POST /v1/domains/${d.domain}/transfer-out/reject.`,
        en: `Another registrar asked for ${d.domain} to be transferred${when ? `; unless rejected, the domain leaves at ${when}` : ''}. If this was not you, reject it: POST /v1/domains/${d.domain}/transfer-out/reject.`,
      },
      data: { domain: d.domain, ...(when ? { action_at: when } : {}), href: `/v1/domains/${d.domain}/transfer-out/reject` },
    };
  },
  'domain.transfer_out_rejected': (e, by) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_out_rejected',
      domain: d.domain,
      message: {
        uk: `${by.uk} відхилив перенесення домену ${d.domain} до іншого реєстратора; домен лишається у нас.`,
        en: `${by.en} rejected the transfer of ${d.domain} to another registrar; the domain stays with us.`,
      },
      data: { domain: d.domain, transfer_id: d.transfer_id },
    };
  },
  'domain.transfer_completed': (e) => ({
    kind: 'domain.transfer_completed',
    domain: e.data.domain,
    message: {
      uk: `Домен ${e.data.domain} перенесено до іншого реєстратора; він вилучений з рахунку.`,
      en: `${e.data.domain} was transferred to another registrar; it has left the account.`,
    },
    data: { domain: e.data.domain },
  }),
  'domain.released': (e) => ({
    kind: 'domain.released',
    domain: e.data.domain,
    message: { uk: `Домен ${e.data.domain} ${PHASE_TEXT.released.uk}.`, en: `The domain ${e.data.domain} was ${PHASE_TEXT.released.en}.` },
    data: { domain: e.data.domain },
  }),
  'domain.hosting_verified': (e) => ({
    kind: 'domain.hosting_verified',
    domain: e.data.domain,
    message: {
      uk: `Контроль над ${e.data.domain} доведено: наші сервери імен обслуговують його зону. Делегуйте домен на наші сервери імен у свого реєстратора, якщо ще не зробили цього.`,
      en: `Control of ${e.data.domain} was proven: our nameservers serve its zone. Delegate the domain to our nameservers at your registrar if you have not yet.`,
    },
    data: { domain: e.data.domain },
  }),
  // Problems found on an active zone matter (the world may not see it); a pending zone's own check answers its caller.
  'domain.hosting_problem': (e) =>
    e.data.status === 'active' || e.data.code === 'hosted_elsewhere'
      ? {
          kind: 'domain.hosting_problem',
          domain: e.data.domain,
          message: { uk: e.data.message.uk, en: e.data.message.en },
          data: { domain: e.data.domain, code: e.data.code },
        }
      : null,
  'domain.hosting_deleted': (e) => ({
    kind: 'domain.hosting_deleted',
    domain: e.data.domain,
    message:
      e.data.reason === 'registered_here'
        ? {
            uk: `Домен ${e.data.domain} зареєстровано через Domivka в іншому рахунку; зону, що обслуговувалася тут, видалено.`,
            en: `The domain ${e.data.domain} was registered through Domivka by another account; the zone hosted here was deleted.`,
          }
        : {
            uk: `Домен ${e.data.domain} і його зону видалено з рахунку; наші сервери імен більше не відповідають за нього.`,
            en: `The domain ${e.data.domain} and its zone left the account; our nameservers no longer answer for it.`,
          },
    data: { domain: e.data.domain },
  }),
  // DNSSEC steps the service takes by itself (DESIGN: DNSSEC): every owner hears of each one.
  'dns.dnssec_disabling': (e) => ({
    kind: 'dns.dnssec_disabling',
    domain: e.data.domain,
    message: {
      uk: `DS домену ${e.data.domain} прибрано з батьківської зони (${e.data.ds.join(', ')}). Зона підписується далі, доки кеші резолверів не забудуть DS; підписи зникнуть ${e.data.stop_signing_at}.`,
      en: `The DS of ${e.data.domain} left the parent zone (${e.data.ds.join(', ')}). The zone stays signed until resolvers' caches forget the DS; its signatures go at ${e.data.stop_signing_at}.`,
    },
    data: { domain: e.data.domain, stop_signing_at: e.data.stop_signing_at },
  }),
  // Another operator's key in our DNSKEY set lets its holder sign answers for the zone: every owner hears of it.
  'dns.dnssec_foreign_key_added': (e) => ({
    kind: 'dns.dnssec_foreign_key_added',
    domain: e.data.domain,
    message: {
      uk: `До набору DNSKEY зони ${e.data.domain} додано ключ іншого оператора (тег ${e.data.key_tag}${e.data.note ? `, «${e.data.note}»` : ''}). Відповіді, підписані цим ключем, тепер проходять перевірку DNSSEC. Якщо ви не переносите зону, приберіть ключ.`,
      en: `Another operator's key joined the DNSKEY set of ${e.data.domain} (tag ${e.data.key_tag}${e.data.note ? `, "${e.data.note}"` : ''}). Answers signed with that key now pass DNSSEC validation. If you are not moving the zone, remove the key.`,
    },
    data: { domain: e.data.domain, key_tag: e.data.key_tag },
  }),
  'dns.dnssec_foreign_key_removed': (e) => ({
    kind: 'dns.dnssec_foreign_key_removed',
    domain: e.data.domain,
    message: {
      uk: `Ключ іншого оператора (тег ${e.data.key_tag}) прибрано з набору DNSKEY зони ${e.data.domain}.`,
      en: `The other operator's key (tag ${e.data.key_tag}) left the DNSKEY set of ${e.data.domain}.`,
    },
    data: { domain: e.data.domain, key_tag: e.data.key_tag },
  }),
  // Switched off by the schedule (after the DS TTL): an immediate switch-off answers its own caller.
  'dns.dnssec_disabled': (e) =>
    e.actor.startsWith('system:')
      ? {
          kind: 'dns.dnssec_disabled',
          domain: e.data.domain,
          message: {
            uk: `DNSSEC домену ${e.data.domain} вимкнено: TTL DS минув, зона більше не підписується.`,
            en: `DNSSEC of ${e.data.domain} is off: the DS TTL has passed and the zone is no longer signed.`,
          },
          data: { domain: e.data.domain },
        }
      : null,
  'dns.dnssec_rollover': (e) => {
    const d = e.data;
    const text = ROLLOVER_TEXT[d.step] ?? { uk: d.step, en: d.step };
    const next = d.next_step_at ? { uk: ` Наступний крок: ${d.next_step_at}.`, en: ` Next step: ${d.next_step_at}.` } : { uk: '', en: '' };
    return {
      kind: 'dns.dnssec_rollover',
      domain: d.domain,
      message: {
        uk: `Заміна ключа DNSSEC домену ${d.domain} (${d.old_key_tag} → ${d.new_key_tag}): ${text.uk}${d.reason ? ` Причина: ${d.reason}` : ''}${next.uk}`,
        en: `DNSSEC key rollover of ${d.domain} (${d.old_key_tag} → ${d.new_key_tag}): ${text.en}${d.reason ? ` Reason: ${d.reason}` : ''}${next.en}`,
      },
      data: { domain: d.domain, step: d.step, kind: d.kind },
    };
  },
  'domain.transfer_locked': (e, by) => {
    const d = e.data;
    const keyId = idOf(e.actor, 'key');
    const at = e.occurredAt.toISOString();
    return {
      kind: 'domain.transfer_locked',
      domain: d.domain,
      message: {
        uk: `${by.uk} знову встановив заборону перенесення домену ${d.domain}. Час: ${at}.`,
        en: `${by.en} set the transfer lock of ${d.domain} again. Time: ${at}.`,
      },
      data: { key_id: keyId, domain: d.domain, at },
    };
  },
  'billing.topup_succeeded': (e, by) => {
    const d = e.data;
    const keyId = idOf(e.actor, 'key');
    const card = `${d.card.brand} •••• ${d.card.last4}`;
    const at = e.occurredAt.toISOString();
    return {
      kind: 'billing.topup',
      domain: null,
      message: {
        uk: `${by.uk} поповнив баланс на ${formatUah(d.amount)} грн з картки ${card}. Час: ${at}.`,
        en: `${by.en} topped up the balance by ${formatUah(d.amount)} UAH from the card ${card}. Time: ${at}.`,
      },
      data: { key_id: keyId, amount: d.amount, topup_id: idOf(e.subject, 'topup'), at },
    };
  },
  // The human-only actions (seed A6): every owner hears of each one.
  'domain.transfer_code_revealed': (e) => {
    const d = e.data;
    return {
      kind: 'domain.transfer_code_revealed',
      domain: d.domain,
      message: {
        uk: `${d.actor_email} переглянув код передачі домену ${d.domain}. Якщо це були не ви, змініть пароль і повідомте інших власників.`,
        en: `${d.actor_email} revealed the transfer code of ${d.domain}. If this was not you, change your password and tell the other owners.`,
      },
      data: { domain: d.domain, person_id: idOf(e.actor, 'person') },
    };
  },
  'domain.registrant_changed': (e) => {
    const d = e.data;
    return {
      kind: 'domain.registrant_changed',
      domain: d.domain,
      message: {
        uk: `${d.actor_email} змінив власника (реєстранта) домену ${d.domain} на «${d.registrant.name}».`,
        en: `${d.actor_email} changed the registrant of ${d.domain} to "${d.registrant.name}".`,
      },
      data: { domain: d.domain },
    };
  },
  'account.payment_method_changed': (e) => {
    const d = e.data;
    return {
      kind: 'account.payment_method_changed',
      domain: null,
      message: {
        uk: `${d.actor_email} змінив спосіб оплати: тепер картка ${d.brand} •••• ${d.last4}.`,
        en: `${d.actor_email} changed the payment method: now the ${d.brand} card •••• ${d.last4}.`,
      },
      data: { last4: d.last4 },
    };
  },
  'person.two_factor_disabled': (e) => ({
    kind: 'person.two_factor_disabled',
    domain: null,
    message: {
      uk: `${e.data.email} вимкнув двофакторну перевірку: тепер для входу досить пароля.`,
      en: `${e.data.email} switched off two-factor checks: signing in now takes the password only.`,
    },
    data: { person_id: idOf(e.subject, 'person') },
  }),
  'person.two_factor_enabled': (e) => ({
    kind: 'person.two_factor_enabled',
    domain: null,
    message: {
      uk: `${e.data.email} знову ввімкнув двофакторну перевірку з новим секретом: для входу потрібні пароль і одноразовий код.`,
      en: `${e.data.email} switched two-factor checks on again, with a new secret: signing in takes the password and a one-time code.`,
    },
    data: { person_id: idOf(e.subject, 'person') },
  }),
  // Once per burst (CredentialThrottle): the attempts themselves are never a notice each.
  'person.sign_in_throttled': (e) => ({
    kind: 'person.sign_in_throttled',
    domain: null,
    message: {
      uk: `${e.data.email}: ${e.data.failures} невдалих перевірок пароля чи одноразового коду поспіль, тож наступні спроби сповільнено (до 5 хвилин очікування). Якщо це не ця людина, хтось, можливо, підбирає її пароль.`,
      en: `${e.data.email}: ${e.data.failures} failed password or one-time code checks in a row, so further attempts are slowed down (waits of up to 5 minutes). If it was not this person, someone may be guessing their password.`,
    },
    data: { person_id: idOf(e.subject, 'person') },
  }),
  'person.joined': (e) => ({
    kind: 'person.joined',
    domain: null,
    message: {
      uk: `${e.data.email} приєднався до рахунку (роль: ${e.data.role}).`,
      en: `${e.data.email} joined the account (role: ${e.data.role}).`,
    },
    data: { person_id: idOf(e.subject, 'person') },
  }),
  'person.role_changed': (e) => {
    const d = e.data;
    const personId = idOf(e.subject, 'person');
    const keys = d.revoked_key_ids ?? [];
    const tail =
      keys.length > 0
        ? {
            uk: ` Ключі класу 2 і 3, які ${d.email} випустив, відкликано, бо учасник може мати ключі лише класу 0–1: ${keys.join(', ')}. Очікувані операції класу 3, які він запитав, скасовано.`,
            en: ` The class 2 and 3 keys ${d.email} issued were revoked, as a member may hold keys of class 0–1 only: ${keys.join(', ')}. Any waiting class 3 operations they requested were cancelled.`,
          }
        : d.to === 'member'
          ? {
              uk: ' Очікувані операції класу 3, які він запитав (якщо були), скасовано.',
              en: ' Any waiting class 3 operations they requested were cancelled.',
            }
          : { uk: '', en: '' };
    return {
      kind: 'person.role_changed',
      domain: null,
      message: {
        uk: `Роль ${d.email} змінено: ${d.from} → ${d.to}.${tail.uk}`,
        en: `The role of ${d.email} changed: ${d.from} → ${d.to}.${tail.en}`,
      },
      data: { person_id: personId, role: d.to, revoked_key_ids: [...keys] },
      // The person hears of it too: once demoted they are no longer among the owners every notice goes to.
      ...(personId ? { alsoTo: [{ personId, email: d.email }] } : {}),
    };
  },
  'person.removed': (e) => {
    const d = e.data;
    const personId = idOf(e.subject, 'person');
    const keys = d.revoked_key_ids ?? [];
    const which = keys.length > 0 ? `: ${keys.join(', ')}` : '';
    const ops = {
      uk: ' Очікувані операції класу 3, які він запитав (якщо були), скасовано.',
      en: ' Any waiting class 3 operations they requested were cancelled.',
    };
    return {
      kind: 'person.removed',
      domain: null,
      message: d.left
        ? {
            uk: `${d.email} покинув рахунок; його ключі (${d.keys_revoked}) відкликано${which}.${ops.uk}`,
            en: `${d.email} left the account; their keys (${d.keys_revoked}) were revoked${which}.${ops.en}`,
          }
        : {
            uk: `${d.email} видалено з рахунку; його ключі (${d.keys_revoked}) відкликано${which}.${ops.uk}`,
            en: `${d.email} was removed from the account; their keys (${d.keys_revoked}) were revoked${which}.${ops.en}`,
          },
      data: { person_id: personId, revoked_key_ids: [...keys] },
      // Removed, they can no longer sign in: the e-mail (account notices are live ones, e-mailed) tells them.
      ...(personId ? { alsoTo: [{ personId, email: d.email }] } : {}),
    };
  },
  'operation.pending': operationNotice('pending'),
  'operation.confirmed': operationNotice('confirmed'),
  'operation.cancelled': operationNotice('cancelled'),
  'operation.activated': operationNotice('activated'),
  'operation.failed': operationNotice('failed'),
  // Owners hear of a failing renewal once per certificate cycle: on its first failed attempt.
  'certificate.renewal_failed': (e) => {
    const d = e.data;
    if (d.attempts !== 1) return null;
    return {
      kind: 'certificate_renewal_failed',
      domain: d.domains[0] ?? null,
      message: {
        uk: `Не вдалося поновити сертифікат для ${d.names.join(', ')}: ${d.reason}. Спробуємо ще; він чинний до ${d.not_after ?? '—'}.`,
        en: `Renewing the certificate for ${d.names.join(', ')} failed: ${d.reason}. We will try again; it is valid until ${d.not_after ?? '—'}.`,
      },
      data: { certificate_id: idOf(e.subject, 'certificate'), reason: d.reason },
    };
  },
  'certificate.expired': (e) => ({
    kind: 'certificate_expired',
    domain: e.data.domains[0] ?? null,
    message: { uk: `Сертифікат для ${e.data.names.join(', ')} сплив.`, en: `The certificate for ${e.data.names.join(', ')} has expired.` },
    data: { certificate_id: idOf(e.subject, 'certificate') },
  }),
  'monitor.check_failed': monitorNotice('failed'),
  'monitor.check_recovered': monitorNotice('recovered'),
  'webhook.disabled': (e) => {
    const d = e.data;
    const why =
      d.reason === 'gone'
        ? { uk: 'кінцева точка відповіла 410 Gone', en: 'the endpoint answered 410 Gone' }
        : { uk: 'доставки до нього не вдавалися 3 дні', en: 'deliveries to it failed for 3 days' };
    return {
      kind: 'webhook.disabled',
      domain: null,
      message: {
        uk: `Вебхук ${d.webhook_id} (${d.host}) вимкнено: ${why.uk}. Увімкніть його знову (PATCH /v1/webhooks/${d.webhook_id} {"enabled": true}), коли кінцева точка працюватиме.`,
        en: `Webhook ${d.webhook_id} (${d.host}) was disabled: ${why.en}. Enable it again (PATCH /v1/webhooks/${d.webhook_id} {"enabled": true}) once the endpoint works.`,
      },
      data: { webhook_id: d.webhook_id, host: d.host, reason: d.reason, at: e.occurredAt.toISOString() },
    };
  },
};

/** The notice an event calls for, or null when it notifies nobody. */
export const noticeFor = <T extends EventType>(e: EventOf<T>, person?: string | null): NoticeDraft | null => {
  const build: Build<T> | undefined = NOTICES[e.type];
  return build ? build(e, who(e.actor, person)) : null;
};

/** How a notice names a person who acted: by name and e-mail (the people of the account, read in its transaction). */
export interface PersonNames {
  /** "Name <e-mail>", or null when no such person is left. */
  nameOf(personId: string): Promise<string | null>;
}

/**
 * Subscribed to the Recorder: the notice is written in the transaction that records the event, so it
 * commits or rolls back with the change. Account events (people, two-factor) have no environment:
 * their notices are live ones, e-mailed as well.
 */
export const noticesOnEvent =
  (notify: Pick<NotifyOwners, 'send'>, people?: PersonNames): EventSubscriber =>
  async (event) => {
    if (!NOTICES[event.type]) return;
    const personId = event.actor.startsWith('person:') ? event.actor.slice('person:'.length) : null;
    const notice = noticeFor(event, personId && people ? await people.nameOf(personId) : null);
    if (notice)
      await notify.send({ accountId: event.accountId, environment: event.environment ?? 'live', ...notice, data: { ...notice.data } });
  };
