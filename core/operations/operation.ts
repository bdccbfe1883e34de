import { dnskeyRdata, keyTag } from '../dnssec/dnskey.js';
import type { OperationActor } from '../kernel/actor.js';
import type { RightName } from '../kernel/rights.js';
import type { Environment } from '../kernel/environment.js';

/**
 * A class 3 operation (DESIGN "Decisions": class 3): it waits until a second owner confirms it, or
 * activates by itself 24 hours after it was requested; any owner may cancel it before then.
 *   pending → active (the effect is applied) | cancelled | failed (the registry refused; its reason kept)
 */
export type OperationKind = 'nameservers' | 'transfer_unlock' | 'labels' | 'hosted_delete' | DnssecOperationKind;
/**
 * DNSSEC at the parent (DESIGN: DNSSEC): publish our DS; switch DNSSEC off safely (remove the DS, then
 * stop signing once its TTL has passed); take another operator's key out of our DNSKEY set (the end of a
 * multi-signer move, RFC 8901: too early, resolvers that cached our DNSKEY set refuse that operator's answers);
 * remove given DS records at the registry (another operator's, at the end of a move in or out).
 */
export type DnssecOperationKind = 'dnssec_ds_publish' | 'dnssec_disable' | 'dnssec_foreign_key_remove' | 'dnssec_ds_remove';
export type OperationStatus = 'pending' | 'active' | 'cancelled' | 'failed';

/** The waiting time before a class 3 operation activates by itself. */
export const ACTIVATION_DELAY_MS = 24 * 3600_000;

/** The right each kind needs (core/access/rights.ts: all class 3). */
export const RIGHT_OF: Readonly<Record<OperationKind, RightName>> = {
  nameservers: 'domain.nameservers',
  transfer_unlock: 'domain.lock',
  labels: 'domain.labels',
  // Deleting an active hosted zone takes its site and mail down: class 3 in effect, under the right that
  // added it (DESIGN: hosted domains).
  hosted_delete: 'domain.host',
  dnssec_ds_publish: 'dns.dnssec',
  dnssec_disable: 'dns.dnssec',
  dnssec_foreign_key_remove: 'dns.dnssec',
  dnssec_ds_remove: 'dns.dnssec',
};

/** Who did something: a key (and the person who issued it), or a signed-in person in the console. */
export type Party =
  { readonly type: 'key'; readonly keyId: string; readonly personId: string } | { readonly type: 'person'; readonly personId: string };

export interface Confirmation {
  readonly by: Party;
  readonly at: Date;
}

/** nameservers: {nameservers, previous}; labels: {labels, previous}; transfer_unlock: {}. */
export interface OperationParams {
  readonly nameservers?: readonly string[];
  readonly labels?: readonly string[];
  readonly previous?: readonly string[];
  /** dnssec_ds_publish: the DS records to publish; dnssec_disable, dnssec_ds_remove: the ones to remove ("<tag> <alg> <digest type> <hex>"). */
  readonly ds?: readonly string[];
  /**
   * dnssec_ds_publish: those of `ds` that named our keys when it was requested; checked again when it takes
   * effect (each must still name a live key). Absent (an operation recorded before): every one counts as ours.
   */
  readonly ownDs?: readonly string[];
  /** dnssec_foreign_key_remove: the other operator's DNSKEY to take out ("<flags> 3 <alg> <base64>"). */
  readonly dnskey?: readonly string[];
}

/** A plain-language warning (uk + en) with a stable code, e.g. `nameservers_outside`. */
export interface OperationWarning {
  readonly code: string;
  readonly message: { readonly uk: string; readonly en: string };
}

export interface Operation {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domainId: string;
  readonly domain: string;
  readonly kind: OperationKind;
  readonly status: OperationStatus;
  readonly params: OperationParams;
  readonly warnings: readonly OperationWarning[];
  readonly requestedBy: Party;
  readonly confirmations: readonly Confirmation[];
  /** Account time (the sandbox clock for test domains). */
  readonly createdAt: Date;
  /** When it activates by itself; moved to the confirmation time when a second owner confirms. */
  readonly activatesAt: Date;
  readonly resolvedAt: Date | null;
  readonly cancelledBy: Party | null;
  readonly failureReason: string | null;
}

const partyView = (p: Party) =>
  p.type === 'key' ? { type: 'key' as const, key_id: p.keyId, person_id: p.personId } : { type: 'person' as const, person_id: p.personId };

export const partyLabel = (p: Party): string => (p.type === 'key' ? `key:${p.keyId}` : `person:${p.personId}`);

/** "tag N" of a DNSKEY in presentation form, for the words below. */
const tagOf = (dnskey: string): string => {
  const [flags, , algorithm, ...key] = dnskey.split(' ');
  return String(keyTag(dnskeyRdata(Number(flags), Number(algorithm), key.join(''))));
};

/** What the operation will do, in words (uk + en), for the response, notices and the console. */
export const describeEffect = (op: Pick<Operation, 'kind' | 'params' | 'domain'>): { uk: string; en: string } => {
  const p = op.params as { nameservers?: string[]; labels?: string[]; previous?: string[]; ds?: string[]; dnskey?: string[] };
  switch (op.kind) {
    case 'dnssec_ds_publish':
      return {
        uk: `Реєстр отримає DS ${(p.ds ?? []).join(', ')} для домену ${op.domain}; відтоді резолвери, що перевіряють DNSSEC, перевірятимуть підписи зони.`,
        en: `The registry receives the DS ${(p.ds ?? []).join(', ')} for ${op.domain}; from then on validating resolvers check the zone's signatures.`,
      };
    case 'dnssec_disable':
      return {
        uk: `Реєстр прибере DS ${(p.ds ?? []).join(', ')} домену ${op.domain}; зона підписуватиметься, доки не мине TTL DS, а потім DNSSEC вимкнеться. Так резолвери, що перевіряють DNSSEC, не втратять домен.`,
        en: `The registry removes the DS ${(p.ds ?? []).join(', ')} of ${op.domain}; the zone stays signed until the DS TTL has passed, then DNSSEC goes off. Validating resolvers never lose the domain on the way.`,
      };
    case 'dnssec_ds_remove':
      return {
        uk: `Реєстр прибере DS ${(p.ds ?? []).join(', ')} домену ${op.domain}. Робіть це, лише коли оператор, чий це ключ, уже не обслуговує зону і минув TTL його записів NS: доки він відповідає, його DNSKEY без DS у батьківській зоні резолвери вважатимуть підробкою.`,
        en: `The registry removes the DS ${(p.ds ?? []).join(', ')} of ${op.domain}. Do this only once the operator whose key it names no longer serves the zone and its NS TTL has passed: while it answers, validating resolvers take its DNSKEY without a DS at the parent as forged.`,
      };
    case 'dnssec_foreign_key_remove':
      return {
        uk: `Ключ іншого оператора ${(p.dnskey ?? []).map(tagOf).join(', ')} зникне з набору DNSKEY зони ${op.domain}. Робіть це, лише коли той оператор уже не обслуговує зону і минув TTL його записів NS та DNSKEY: інакше резолвери, що перевіряють DNSSEC, відкинуть його відповіді.`,
        en: `The other operator's key ${(p.dnskey ?? []).map(tagOf).join(', ')} leaves the DNSKEY set of ${op.domain}. Do this only once that operator no longer serves the zone and the TTLs of its NS and DNSKEY records have passed: before that, validating resolvers refuse its answers.`,
      };
    case 'nameservers':
      return {
        uk: `Сервери імен домену ${op.domain} зміняться з ${p.previous!.join(', ')} на ${p.nameservers!.join(', ')}.`,
        en: `The nameservers of ${op.domain} change from ${p.previous!.join(', ')} to ${p.nameservers!.join(', ')}.`,
      };
    case 'transfer_unlock':
      return {
        uk: `Заборону перенесення (clientTransferProhibited) домену ${op.domain} буде знято. Код перенесення так не видається: його бачить лише власник у консолі.`,
        en: `The transfer lock (clientTransferProhibited) of ${op.domain} is lifted. This never yields the transfer code: only an owner sees it in the console.`,
      };
    case 'hosted_delete':
      return {
        uk: `Домен ${op.domain} і його зону буде видалено з рахунку; наші сервери імен перестануть відповідати за нього — сайт і пошта зникнуть, якщо делегація ще вказує на нас.`,
        en: `The domain ${op.domain} and its zone leave the account; our nameservers stop answering for it — its site and mail go down if the delegation still points at us.`,
      };
    case 'labels':
      return {
        uk: `Мітки домену ${op.domain} зміняться з [${p.previous!.join(', ')}] на [${p.labels!.join(', ')}]; ключі з доступом за мітками бачитимуть домен відповідно.`,
        en: `The labels of ${op.domain} change from [${p.previous!.join(', ')}] to [${p.labels!.join(', ')}]; label-scoped keys reach the domain accordingly.`,
      };
  }
};

export interface OperationView {
  id: string;
  kind: OperationKind;
  domain: string;
  status: OperationStatus;
  environment: Environment;
  right: RightName;
  requested_by: ReturnType<typeof partyView>;
  created_at: string;
  activates_at: string;
  resolved_at: string | null;
  confirmations: Array<{ by: ReturnType<typeof partyView>; at: string }>;
  effect: { uk: string; en: string };
  warnings: OperationWarning[];
  nameservers?: string[];
  labels?: string[];
  previous?: string[];
  ds?: string[];
  dnskey?: string[];
  cancelled_by: ReturnType<typeof partyView> | null;
  failure_reason: string | null;
  links: { self: string; confirm?: string; cancel?: string; domain: string };
}

export const viewOperation = (op: Operation): OperationView => {
  const p = op.params as { nameservers?: string[]; labels?: string[]; previous?: string[]; ds?: string[]; dnskey?: string[] };
  const self = `/v1/operations/${op.id}`;
  return {
    id: op.id,
    kind: op.kind,
    domain: op.domain,
    status: op.status,
    environment: op.environment,
    right: RIGHT_OF[op.kind],
    requested_by: partyView(op.requestedBy),
    created_at: op.createdAt.toISOString(),
    activates_at: op.activatesAt.toISOString(),
    resolved_at: op.resolvedAt ? op.resolvedAt.toISOString() : null,
    confirmations: op.confirmations.map((c) => ({ by: partyView(c.by), at: c.at.toISOString() })),
    effect: describeEffect(op),
    warnings: [...op.warnings],
    ...(p.nameservers ? { nameservers: [...p.nameservers] } : {}),
    ...(p.labels ? { labels: [...p.labels] } : {}),
    ...(p.previous ? { previous: [...p.previous] } : {}),
    ...(p.ds ? { ds: [...p.ds] } : {}),
    ...(p.dnskey ? { dnskey: [...p.dnskey] } : {}),
    cancelled_by: op.cancelledBy ? partyView(op.cancelledBy) : null,
    failure_reason: op.failureReason,
    links: {
      self,
      ...(op.status === 'pending' ? { confirm: `${self}/confirm`, cancel: `${self}/cancel` } : {}),
      domain: `/v1/domains/${op.domain}`,
    },
  };
};

/** The domain's status while an operation waits (RFC 5731 §2.3: pendingUpdate). */
export const PENDING_UPDATE = 'pendingUpdate';

export const withPendingUpdate = (status: readonly string[]): string[] =>
  status.includes(PENDING_UPDATE) ? [...status] : [...status.filter((s) => s !== 'ok'), PENDING_UPDATE];

export const withoutPendingUpdate = (status: readonly string[]): string[] => {
  const rest = status.filter((s) => s !== PENDING_UPDATE);
  return rest.length > 0 ? rest : ['ok'];
};

/** The party an actor stands for in an operation's record. */
export const partyOf = (a: OperationActor): Party =>
  a.kind === 'key' ? { type: 'key', keyId: a.key.id, personId: a.key.createdBy } : { type: 'person', personId: a.personId };
