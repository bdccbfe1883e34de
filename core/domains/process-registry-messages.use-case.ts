import type { EventRecorder } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import type { DomainHolders, RegistryMessage, RegistryMessages } from './ports/registry-messages.port.js';
import type { TransferState } from './ports/registrar.port.js';

/** Transfers between registrars told by the queue (AdvanceTransfers.onMessage): true when it settled the message. */
export interface TransferMessages {
  onMessage(
    domain: string,
    state: TransferState,
    holder: { readonly accountId: string } | null,
    message: Pick<RegistryMessage, 'id' | 'text' | 'data'>,
  ): Promise<boolean>;
}

export interface RegistryMessagesReport {
  readonly recorded: number;
  /** Messages about names no account of ours holds (acknowledged, nothing recorded). */
  readonly unmatched: number;
}

/** What ProcessRegistryMessages is built from (one object, named, instead of positions). */
export interface ProcessRegistryMessagesDeps {
  readonly messages: RegistryMessages;
  readonly holders: DomainHolders;
  readonly events: EventRecorder;
  readonly uow: UnitOfWork;
  readonly random: Random;
  readonly clock: Clock;
  /** Transfers in and out the messages are about (absent: every message is only recorded). */
  readonly transfers?: TransferMessages;
}

/**
 * Reads the live registry's message queue and records each message about a domain of ours as a
 * DomainEvent (domain.transfer_requested, domain.transfer_completed, domain.transfer_cancelled,
 * domain.deleted_by_registry, domain.registry_message), in a transaction, then acknowledges it.
 * Delivery is at least once: a crash between the commit and the ack records the message again.
 */
export class ProcessRegistryMessages {
  constructor(private readonly deps: ProcessRegistryMessagesDeps) {}

  async run(limit = 100): Promise<RegistryMessagesReport> {
    let recorded = 0;
    let unmatched = 0;
    for (let i = 0; i < limit; i++) {
      const m = await this.deps.messages.poll();
      if (!m) break;
      const domain = m.domain;
      const holder = domain ? await this.deps.holders.holderOf('live', domain) : null;
      // A transfer (either direction): settled through the transfer it is about, which records its own events.
      if (domain && m.transfer && this.deps.transfers && (await this.deps.transfers.onMessage(domain, m.transfer, holder, m))) {
        recorded++;
      } else if (domain && holder && m.kind !== 'transfer_in') {
        const type = m.kind === 'other' ? 'domain.registry_message' : (`domain.${m.kind}` as const);
        await this.deps.uow.transaction(async () => {
          await this.deps.events.record(
            type,
            {
              accountId: holder.accountId,
              environment: 'live',
              subject: `domain:${domain}`,
              actor: 'registry',
              occurredAt: this.deps.clock.now(),
            },
            { domain, message_id: m.id, queued_at: m.queuedAt, text: m.text, ...m.data },
          );
        });
        recorded++;
      } else unmatched++;
      await this.deps.messages.ack(m.id);
    }
    return { recorded, unmatched };
  }
}
