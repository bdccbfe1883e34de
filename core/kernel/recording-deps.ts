import type { Clock } from './clock.port.js';
import type { EventRecorder } from './event-log.port.js';
import type { Random } from './random.port.js';
import type { UnitOfWork } from './unit-of-work.port.js';

/**
 * What a use case that changes state needs of the platform: its transactions, the event recorder it
 * records what happened with, ids and the time.
 */
export interface RecordingDeps {
  readonly events: EventRecorder;
  readonly uow: UnitOfWork;
  readonly random: Random;
  readonly clock: Clock;
}
