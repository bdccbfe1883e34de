import type { DomainEvent, EventData, EventOf, EventType } from './events.js';

/** The store of events: appends inside the caller's transaction (UnitOfWork). */
export interface EventLog {
  append<T extends EventType>(event: EventOf<T>): Promise<void>;
}

/** What an event says besides its type and data: whose it is, what it is about, who did it, and when. */
export type EventFacts = Omit<DomainEvent, 'id' | 'type' | 'data'>;

/**
 * How a use case records what happened: the type, the facts and the type's data shape (EventData), so a
 * wrong or missing field is a compile error where the event is recorded. The recorder gives it its id.
 */
export interface EventRecorder {
  record<T extends EventType>(type: T, facts: EventFacts, data: EventData[T]): Promise<void>;
}
