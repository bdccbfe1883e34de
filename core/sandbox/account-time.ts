import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { SandboxClocks } from './ports/sandbox-clock.port.js';

/**
 * "Now" for an account's domain lifecycle: real time for live; real time plus the account's sandbox
 * offset for test (DESIGN: the sandbox clock moves the lifecycle, class 3 delays and certificate
 * times of that account's test environment; key validity, idempotency and the spend month follow
 * real time).
 */
export class AccountTime {
  constructor(private readonly clock: Clock, private readonly sandbox: SandboxClocks) {}

  async now(accountId: string, environment: Environment): Promise<Date> {
    const real = this.clock.now();
    if (environment === 'live') return real;
    return new Date(real.getTime() + (await this.sandbox.offset(accountId)));
  }
}
