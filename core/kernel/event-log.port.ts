import type { DomainEvent } from './events.js';

export interface EventLog {
  /** Appends inside the caller's transaction (UnitOfWork). */
  append(event: DomainEvent): Promise<void>;
}
