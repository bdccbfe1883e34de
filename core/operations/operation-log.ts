import type { EventRecorder } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Random } from '../kernel/random.port.js';
import { viewOperation, type Operation } from './operation.js';

type Change = 'pending' | 'confirmed' | 'cancelled' | 'activated' | 'failed';

/** Why the service itself cancelled an operation: its requester lost the power to request it. */
export type CancelReason = 'key_revoked' | 'requester_demoted' | 'requester_removed';

/**
 * Every state change of an operation becomes its DomainEvent (`operation.<change>`), written in the
 * caller's transaction; the owners' notice follows from it (core/notices/on-event.ts). The event carries
 * what that notice says (the effect's parameters, the warnings' text) and never a transfer code (A7).
 */
export class OperationLog {
  constructor(
    private readonly events: EventRecorder,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  /** A hosted domain left the account (its delete operation took effect, or it was deleted at once). */
  async hostingDeleted(
    at: { accountId: string; environment: Operation['environment']; domain: string },
    actor: string,
    reason: 'deleted' | 'registered_here',
  ): Promise<void> {
    await this.events.record(
      'domain.hosting_deleted',
      { accountId: at.accountId, environment: at.environment, subject: `domain:${at.domain}`, actor, occurredAt: this.clock.now() },
      { domain: at.domain, reason },
    );
  }

  /** dnssec_disable took effect: the DS left the parent; signing stops at `stopSigningAt`. */
  async dnssecDisabling(op: Operation, ds: string[], stopSigningAt: Date, actor: string): Promise<void> {
    await this.events.record(
      'dns.dnssec_disabling',
      { accountId: op.accountId, environment: op.environment, subject: `domain:${op.domain}`, actor, occurredAt: this.clock.now() },
      { domain: op.domain, ds, stop_signing_at: stopSigningAt.toISOString() },
    );
  }

  /** dnssec_foreign_key_remove took effect: the key left the DNSKEY set in the zone's new serial. */
  async foreignKeyRemoved(op: Operation, keyTag: number, serial: number, actor: string): Promise<void> {
    await this.events.record(
      'dns.dnssec_foreign_key_removed',
      { accountId: op.accountId, environment: op.environment, subject: `domain:${op.domain}`, actor, occurredAt: this.clock.now() },
      { domain: op.domain, key_tag: keyTag, serial },
    );
  }

  async record(op: Operation, change: Change, actor: string, cancelReason?: CancelReason): Promise<void> {
    const view = viewOperation(op);
    const realNow = this.clock.now();
    await this.events.record(
      `operation.${change}`,
      { accountId: op.accountId, environment: op.environment, subject: `operation:${op.id}`, actor, occurredAt: realNow },
      {
        operation_id: op.id,
        kind: op.kind,
        domain: op.domain,
        status: op.status,
        activates_at: view.activates_at,
        ...(view.nameservers ? { nameservers: view.nameservers } : {}),
        ...(view.labels ? { labels: view.labels } : {}),
        ...(view.previous ? { previous: view.previous } : {}),
        ...(view.ds ? { ds: view.ds } : {}),
        ...(view.dnskey ? { dnskey: view.dnskey } : {}),
        ...(op.warnings.length > 0
          ? { warnings: op.warnings.map((w) => w.code), warning_messages: op.warnings.map((w) => ({ ...w.message })) }
          : {}),
        ...(op.failureReason ? { failure_reason: op.failureReason } : {}),
        ...(cancelReason ? { cancel_reason: cancelReason } : {}),
      },
    );
  }
}
