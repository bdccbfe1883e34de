import type { EventData, EventOf, EventType } from './events.js';
import type { EventFacts, EventLog, EventRecorder } from './event-log.port.js';
import type { Random } from './random.port.js';

/**
 * Reacts to an event inside the transaction that recorded it (a notice to the owners, say): what it
 * writes commits or rolls back with the change itself. Slow or external work (webhooks, e-mail) reads
 * the committed outbox instead.
 */
export type EventSubscriber = <T extends EventType>(event: EventOf<T>) => Promise<void>;

/**
 * The one way a capability records what happened: appends the event to the log inside the caller's
 * transaction, then runs the in-transaction subscribers in the order they subscribed. A capability
 * never calls another capability's side effect directly; it records the fact and subscribers react.
 */
export class Recorder implements EventRecorder {
  private readonly subscribers: EventSubscriber[] = [];

  constructor(
    private readonly log: EventLog,
    private readonly random: Pick<Random, 'id'>,
  ) {}

  subscribe(subscriber: EventSubscriber): this {
    this.subscribers.push(subscriber);
    return this;
  }

  async record<T extends EventType>(type: T, facts: EventFacts, data: EventData[T]): Promise<void> {
    const event: EventOf<T> = { ...facts, id: this.random.id(), type, data };
    await this.log.append(event);
    for (const s of this.subscribers) await s(event);
  }
}
