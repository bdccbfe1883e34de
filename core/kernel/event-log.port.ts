import type { EventOf, EventType } from './events.js';

export interface EventLog {
  /** Appends inside the caller's transaction (UnitOfWork); the event's data is checked against its type. */
  append<T extends EventType>(event: EventOf<T>): Promise<void>;
}
