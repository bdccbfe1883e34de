import type { EventOf, EventType } from './events.js';
import type { EventLog } from './event-log.port.js';

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
export class Recorder implements EventLog {
  private readonly subscribers: EventSubscriber[] = [];

  constructor(private readonly log: EventLog) {}

  subscribe(subscriber: EventSubscriber): this {
    this.subscribers.push(subscriber);
    return this;
  }

  async append<T extends EventType>(event: EventOf<T>): Promise<void> {
    await this.log.append(event);
    for (const s of this.subscribers) await s(event);
  }
}
