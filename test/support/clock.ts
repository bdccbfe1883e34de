import type { Clock } from '../../core/kernel/clock.port.js';

/** A clock the test moves. Starts at real time unless told otherwise. */
export class TestClock implements Clock {
  private t: number;
  constructor(start: Date = new Date()) {
    this.t = start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  set(d: Date): void {
    this.t = d.getTime();
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
