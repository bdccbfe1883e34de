import { randomUUID } from 'node:crypto';
import type { DomainLocks } from '../../../core/domains/ports/domain-repository.port.js';
import { DomainError } from '../../../core/kernel/errors.js';
import type { SqlDomainRepository } from './domain.repository.js';

/**
 * Per-domain leases in the domains row. A caller waits (polling, with jitter) until the lease is free;
 * a lease left by a crashed process runs out after LEASE_MS. Works the same across processes on one
 * Postgres and on SQLite.
 */
export const LEASE_MS = 60_000;
const WAIT_MS = 30_000;

export class SqlDomainLocks implements DomainLocks {
  constructor(private readonly domains: SqlDomainRepository, private readonly now: () => Date = () => new Date()) {}

  async withLock<T>(domainId: string, fn: () => Promise<T>): Promise<T> {
    const token = randomUUID();
    const started = Date.now();
    let delay = 5;
    for (;;) {
      const now = this.now();
      if (await this.domains.tryLease(domainId, token, now, new Date(now.getTime() + LEASE_MS))) break;
      if (Date.now() - started > WAIT_MS) throw new DomainError('operation_in_progress', { domain_id: domainId });
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
    try {
      // Another process may have changed the domain just before we got the lease, and this process's
      // cached read may not have heard yet: decisions under the lease read the store.
      return await this.domains.fresh(fn);
    } finally {
      await this.domains.releaseLease(domainId, token);
    }
  }

  whileHeld<T>(fn: () => Promise<T>): Promise<T> {
    return this.domains.fresh(fn);
  }
}
