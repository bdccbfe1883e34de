import type { Clock } from '../../../core/kernel/clock.port.js';

/** The process clock: the one place outside tests where "now" is read. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}
