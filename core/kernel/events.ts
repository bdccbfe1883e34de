import type { DangerClass } from './rights.js';
import type { Environment } from './environment.js';
import type { UrlHost, UrlWithoutQuery } from './url-parts.js';

/**
 * Every state change others may want to hear about is recorded here, in the same transaction as the
 * change itself. This is the outbox that webhooks, the event log and e-mail notices will read.
 */
export interface DomainEvent {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment | null;
  readonly type: EventType;
  /** What the event is about: "key:<id>", "domain:<name>", "person:<id>". */
  readonly subject: string;
  /** Who did it: "key:<id>", "person:<id>", "system:<part>", "registry". */
  readonly actor: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly occurredAt: Date;
}

/**
 * An event of one type as it is recorded: its `data` has that type's shape (EventData), so a wrong or
 * missing field is a compile error where the event is built. What the log reads back is a DomainEvent.
 */
export interface EventOf<T extends EventType> extends Omit<DomainEvent, 'type' | 'data'> {
  readonly type: T;
  readonly data: EventData[T];
}

/** Any recorded event, discriminated by `type`: a switch on it narrows `data`. */
export type TypedEvent = { [T in EventType]: EventOf<T> }[EventType];

type NoData = { readonly [field: string]: never };
type KeyIssued = {
  readonly key_id: string;
  readonly name: string;
  readonly class: DangerClass;
  readonly rights: readonly string[];
  readonly expires_on: string;
  readonly cidr: string | null;
  /** Kopiykas a month, or null. */
  readonly spend_limit: number | null;
};
type DomainCharged = { readonly domain: string; readonly years: number; readonly expires_at: string; readonly amount: number };
type CertificateIssued = {
  readonly names: readonly string[];
  readonly serial: string;
  readonly issuer: string;
  readonly not_after: string;
};
type CertificateFailed = {
  readonly names: readonly string[];
  readonly domains: readonly string[];
  readonly reason: string;
  readonly attempts: number;
  readonly retryable: boolean;
  readonly not_after: string | null;
};
/** The endpoint's host only: its path and query string often hold a secret, and events reach other keys. */
type WebhookSettings = {
  readonly webhook_id: string;
  readonly host: UrlHost;
  readonly events: readonly string[];
  readonly domains: readonly string[] | null;
  readonly enabled: boolean;
};
type OperationChanged = {
  readonly operation_id: string;
  readonly kind:
    | 'nameservers'
    | 'transfer_unlock'
    | 'labels'
    | 'hosted_delete'
    | 'dnssec_ds_publish'
    | 'dnssec_disable'
    | 'dnssec_foreign_key_remove'
    | 'dnssec_ds_remove';
  readonly domain: string;
  readonly status: string;
  readonly activates_at: string;
  readonly ds?: readonly string[];
  readonly dnskey?: readonly string[];
  readonly nameservers?: readonly string[];
  readonly labels?: readonly string[];
  readonly previous?: readonly string[];
  readonly warnings?: readonly string[];
  readonly warning_messages?: ReadonlyArray<{ readonly uk: string; readonly en: string }>;
  readonly failure_reason?: string;
  /** Set when the service cancelled it because its requester lost the power (key revoked, demoted, removed). */
  readonly cancel_reason?: 'key_revoked' | 'requester_demoted' | 'requester_removed';
};
/** A monitor's own settings follow its kind (the probe's fields: url, host, name, …); an HTTP probe's URL
 * without its query string (a token there would reach every key that reads the domain's events). */
type MonitorSettings = {
  readonly monitor_id: string;
  readonly domain: string;
  readonly kind: string;
  readonly interval_seconds: number;
  readonly enabled: boolean;
  readonly url?: UrlWithoutQuery;
  readonly [probeField: string]: unknown;
};
type MonitorAbout = { readonly monitor_id: string; readonly domain: string; readonly kind: string };
type MonitorCheck = MonitorAbout & {
  readonly target: string;
  readonly incident_id: string | null;
  readonly reason: string | null;
  readonly checked_at: string;
  readonly latency_ms: number | null;
};
/** The registry's message as polled; what else it says (the gaining registrar, dates) follows its kind. */
type RegistryMessage = {
  readonly domain: string;
  readonly message_id: string;
  readonly queued_at: string | null;
  readonly text: string;
  readonly [registryField: string]: unknown;
};
type PersonSession = { readonly session_id: string };
/** A transfer in: what was asked for and the charge reserved for it (never the authInfo). */
type TransferIn = {
  readonly domain: string;
  readonly transfer_id: string;
  readonly years: number;
  readonly amount: number;
  readonly ledger_entry_id: string;
};

/**
 * The shape of `data` for every event type: the one list of event types. The public catalogue
 * (core/events/catalogue.ts) documents each field of these shapes, and the compiler checks it does.
 */
export interface EventData {
  'key.issued': KeyIssued;
  'key.revoked': {
    readonly key_id: string;
    /** Absent: revoked by hand. Otherwise the issuer lost the power to hold it (demoted, removed). */
    readonly reason?: 'role_changed' | 'person_removed';
  };
  'person.signed_in': PersonSession;
  'account.created': { readonly demo: boolean };
  'domain.created': { readonly domain: string };
  'domain.registered': DomainCharged & { readonly ledger_entry_id: string };
  'domain.renewed': DomainCharged & { readonly restore: boolean; readonly automatic: boolean };
  'domain.auto_renew_changed': { readonly domain: string; readonly auto_renew: boolean };
  'domain.auto_renew_failed': { readonly domain: string; readonly expires_at: string; readonly reason: string };
  'domain.status_changed': {
    readonly domain: string;
    readonly from: readonly string[];
    readonly to: readonly string[];
    readonly expires_at: string;
  };
  'domain.released': { readonly domain: string; readonly expired_on: string };
  'domain.hosting_created': { readonly domain: string; readonly verification_name: string };
  'domain.hosting_verified': {
    readonly domain: string;
    readonly nameservers: readonly string[];
    readonly proof_nameservers: readonly string[];
  };
  'domain.hosting_problem': {
    readonly domain: string;
    readonly status: 'pending_delegation' | 'active';
    readonly code: string;
    readonly message: { readonly uk: string; readonly en: string };
  };
  'domain.hosting_deleted': { readonly domain: string; readonly reason: 'deleted' | 'registered_here' };
  'billing.topup_succeeded': {
    readonly amount: number;
    readonly provider_id: string;
    readonly card: { readonly brand: string; readonly last4: string };
  };
  'billing.topup_failed': { readonly amount: number; readonly reason: string; readonly code: string };
  'sandbox.clock_advanced': { readonly advance: string; readonly offset_ms: number };
  'dns.plan_applied': {
    readonly plan_id: string;
    readonly serial: number;
    readonly counts: {
      readonly create: number;
      readonly update: number;
      readonly delete: number;
      readonly errors: number;
      readonly warnings: number;
    };
  };
  'dns.import_ready': {
    readonly import_id: string;
    readonly source: 'zone_file' | 'axfr';
    readonly records_read: number;
    readonly skipped: number;
    readonly plan_id: string;
  };
  'dns.import_failed': { readonly import_id: string; readonly source: 'zone_file' | 'axfr'; readonly code: string };
  'dns.acme_challenge_added': { readonly name: string; readonly challenge_id: string };
  'dns.acme_challenge_removed': { readonly name: string; readonly challenge_id: string };
  'dns.dnssec_enabled': {
    readonly domain: string;
    readonly algorithm: number;
    readonly key_tag: number;
    readonly ds: readonly string[];
    readonly serial: number;
  };
  'dns.dnssec_disabled': { readonly domain: string; readonly serial: number };
  'dns.dnssec_foreign_key_added': {
    readonly domain: string;
    readonly key_tag: number;
    readonly algorithm: number;
    readonly flags: number;
    readonly note: string | null;
    readonly serial: number;
  };
  'dns.dnssec_foreign_key_removed': { readonly domain: string; readonly key_tag: number; readonly serial: number };
  'dns.dnssec_disabling': { readonly domain: string; readonly ds: readonly string[]; readonly stop_signing_at: string };
  'dns.dnssec_rollover': {
    readonly domain: string;
    readonly kind: 'csk' | 'algorithm';
    readonly step: string;
    readonly old_key_tag: number;
    readonly new_key_tag: number;
    readonly algorithm: number;
    readonly next_step_at: string | null;
    readonly ds?: readonly string[];
    readonly reason?: string;
  };
  'certificate.requested': {
    readonly names: readonly string[];
    readonly domains: readonly string[];
    readonly ca: string;
    readonly csr: boolean;
  };
  'certificate.issued': CertificateIssued;
  'certificate.renewed': CertificateIssued;
  'certificate.failed': CertificateFailed;
  'certificate.renewal_failed': CertificateFailed;
  'certificate.expired': { readonly names: readonly string[]; readonly domains: readonly string[]; readonly not_after: string | null };
  /** reason: the RFC 5280 §5.3.1 reason code. */
  'certificate.revoked': { readonly reason: number; readonly serial: string | null };
  'certificate.private_key_read': NoData;
  // the six human-only actions
  'person.reauthenticated': PersonSession;
  'domain.transfer_code_revealed': { readonly domain: string; readonly actor_email: string };
  'domain.registrant_changed': {
    readonly domain: string;
    readonly actor_email: string;
    readonly registrant: {
      readonly name: string;
      readonly organization: string | null;
      readonly email: string;
      readonly country_code: string;
    };
  };
  'person.invited': { readonly email: string; readonly role: 'owner' | 'member' };
  'person.joined': { readonly email: string; readonly role: 'owner' | 'member'; readonly invitation_id: string };
  'person.role_changed': {
    readonly email: string;
    readonly from: 'owner' | 'member';
    readonly to: 'owner' | 'member';
    /** Keys of the person above the new role's powers, revoked with the change (a member: class ≤ 1). */
    readonly revoked_key_ids?: readonly string[];
  };
  'person.removed': {
    readonly email: string;
    readonly left: boolean;
    readonly keys_revoked: number;
    readonly revoked_key_ids?: readonly string[];
  };
  'account.payment_method_changed': { readonly brand: string; readonly last4: string; readonly actor_email: string };
  'person.two_factor_disabled': { readonly email: string };
  'person.two_factor_enrolment_started': NoData;
  'person.two_factor_enabled': { readonly email: string };
  /** A person's password was changed while signed in, or reset by an e-mailed link; their sessions ended. */
  'person.password_changed': { readonly email: string; readonly how: 'changed' | 'reset' };
  /** Failed password or TOTP checks for this person's e-mail began to be slowed down (once per burst). */
  'person.sign_in_throttled': { readonly email: string; readonly failures: number };
  'account.deleted': { readonly keys_revoked: number };
  // class 3 operations
  'operation.pending': OperationChanged;
  'operation.confirmed': OperationChanged;
  'operation.cancelled': OperationChanged;
  'operation.activated': OperationChanged;
  'operation.failed': OperationChanged;
  'domain.transfer_locked': { readonly domain: string; readonly transfer_lock: true };
  // webhooks (account-wide)
  'webhook.created': WebhookSettings;
  'webhook.updated': WebhookSettings;
  'webhook.deleted': { readonly webhook_id: string };
  'webhook.secret_rotated': { readonly webhook_id: string; readonly old_secret_expires_at: string };
  'webhook.disabled': { readonly webhook_id: string; readonly host: UrlHost; readonly reason: 'gone' | 'failing' };
  // monitoring
  'monitor.created': MonitorSettings;
  'monitor.updated': MonitorSettings;
  'monitor.deleted': MonitorAbout;
  'monitor.check_failed': MonitorCheck;
  'monitor.check_recovered': MonitorCheck;
  // the live registry's messages (EPP poll)
  'domain.transfer_requested': RegistryMessage;
  'domain.transfer_completed': RegistryMessage;
  'domain.transfer_cancelled': RegistryMessage;
  'domain.deleted_by_registry': RegistryMessage;
  'domain.registry_message': RegistryMessage;
  // transfers in (asked for by the account) and the answer to a transfer out
  'domain.transfer_in_requested': TransferIn;
  'domain.transfer_in_completed': TransferIn & { readonly expires_at: string };
  'domain.transfer_in_failed': TransferIn & { readonly reason: string; readonly rejected: boolean };
  'domain.transfer_in_cancelled': TransferIn;
  'domain.transfer_out_rejected': { readonly domain: string; readonly transfer_id: string };
}

export type EventType = keyof EventData;
