import type { Environment } from './environment.js';

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
  readonly actor: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly occurredAt: Date;
}

export type EventType =
  | 'key.issued'
  | 'key.revoked'
  | 'person.signed_in'
  | 'account.created'
  | 'domain.created'
  | 'domain.registered'
  | 'domain.renewed'
  | 'domain.auto_renew_changed'
  | 'domain.auto_renew_failed'
  | 'domain.status_changed'
  | 'domain.released'
  | 'billing.topup_succeeded'
  | 'billing.topup_failed'
  | 'sandbox.clock_advanced'
  | 'dns.plan_applied'
  | 'dns.acme_challenge_added'
  | 'dns.acme_challenge_removed'
  | 'certificate.requested'
  | 'certificate.issued'
  | 'certificate.renewed'
  | 'certificate.failed'
  | 'certificate.renewal_failed'
  | 'certificate.expired'
  | 'certificate.revoked'
  | 'certificate.private_key_read'
  // the six human-only actions (issue 10)
  | 'person.reauthenticated'
  | 'domain.transfer_code_revealed'
  | 'domain.registrant_changed'
  | 'person.invited'
  | 'person.joined'
  | 'person.role_changed'
  | 'person.removed'
  | 'account.payment_method_changed'
  | 'person.two_factor_disabled'
  | 'person.two_factor_enrolment_started'
  | 'person.two_factor_enabled'
  | 'account.deleted'
  // class 3 operations (issue 10)
  | 'operation.pending'
  | 'operation.confirmed'
  | 'operation.cancelled'
  | 'operation.activated'
  | 'operation.failed'
  | 'domain.transfer_locked'
  // issue 11: webhooks (account-wide)
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'webhook.secret_rotated'
  | 'webhook.disabled'
  // monitoring (issue 11)
  | 'monitor.created'
  | 'monitor.updated'
  | 'monitor.deleted'
  | 'monitor.check_failed'
  | 'monitor.check_recovered'
  // the live registry's messages (EPP poll, issue 12)
  | 'domain.transfer_requested'
  | 'domain.transfer_completed'
  | 'domain.transfer_cancelled'
  | 'domain.deleted_by_registry'
  | 'domain.registry_message';
