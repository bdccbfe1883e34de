import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { Random } from '../kernel/random.port.js';
import { ACTIVATION_LEASE_MS, type ActivateOperation } from './activate-operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

export interface ActivationReport {
  activated: number;
  failed: number;
  retry: number;
}

/** What ActivateDueOperations is built from (one object, named, instead of positions). */
export interface ActivateDueOperationsDeps {
  readonly operations: OperationRepository;
  readonly accountClock: AccountClock;
  readonly activation: Pick<ActivateOperation, 'activate'>;
  readonly clock: Clock;
  readonly random: Random;
}

/**
 * The worker's pass (and sandbox time travel's): pending operations whose `activates_at` has come —
 * real time for live, each account's sandbox time for test — are claimed with a lease (Postgres: FOR
 * UPDATE SKIP LOCKED) and applied. Two workers racing never apply one operation twice.
 */
export class ActivateDueOperations {
  constructor(private readonly deps: ActivateDueOperationsDeps) {}

  async run(only?: { accountId: string; environment: Environment }): Promise<ActivationReport> {
    const report: ActivationReport = { activated: 0, failed: 0, retry: 0 };
    const real = this.deps.clock.now();
    const groups: Array<{ environment: Environment; accountId?: string; exclude?: string[]; due: Date }> = [];
    if (only) {
      groups.push({
        environment: only.environment,
        accountId: only.accountId,
        due: await this.deps.accountClock.now(only.accountId, only.environment),
      });
    } else {
      const travelled = await this.deps.accountClock.travelled();
      groups.push({ environment: 'live', due: real });
      groups.push({ environment: 'test', exclude: travelled.map((t) => t.accountId), due: real });
      for (const t of travelled) groups.push({ environment: 'test', accountId: t.accountId, due: new Date(real.getTime() + t.offsetMs) });
    }
    for (const g of groups) {
      for (let page = 0; page < 100; page++) {
        const token = this.deps.random.id();
        const now = this.deps.clock.now();
        const claimed = await this.deps.operations.claimDue({
          environment: g.environment,
          ...(g.accountId ? { accountId: g.accountId } : {}),
          ...(g.exclude ? { excludeAccounts: g.exclude } : {}),
          due: g.due,
          now,
          leaseUntil: new Date(now.getTime() + ACTIVATION_LEASE_MS),
          token,
          limit: 20,
        });
        for (const op of claimed) {
          const { outcome } = await this.deps.activation.activate(op, 'system:activation', token);
          if (outcome === 'activated') report.activated++;
          else if (outcome === 'failed') report.failed++;
          else if (outcome === 'retry') report.retry++;
        }
        if (claimed.length < 20) break;
      }
    }
    return report;
  }
}
