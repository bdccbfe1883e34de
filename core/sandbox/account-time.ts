import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { SandboxClocks } from './ports/sandbox-clock.port.js';

/** The account clock: real time for live; real time plus the account's sandbox offset for test. */
export class AccountTime implements AccountClock {
  constructor(
    private readonly clock: Clock,
    private readonly sandbox: SandboxClocks,
  ) {}

  async now(accountId: string, environment: Environment): Promise<Date> {
    const real = this.clock.now();
    if (environment === 'live') return real;
    return new Date(real.getTime() + (await this.sandbox.offset(accountId)));
  }

  travelled(): Promise<Array<{ accountId: string; offsetMs: number }>> {
    return this.sandbox.travelled();
  }
}
