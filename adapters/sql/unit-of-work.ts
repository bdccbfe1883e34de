import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../core/kernel/unit-of-work.port.js';

/**
 * The ambient transaction: repositories ask `db()` and get the transaction of the surrounding
 * `transaction()` call, if any. Nested calls join the outer transaction, so a use case's writes and
 * the idempotency record it runs under commit or roll back together.
 */
export class KnexUnitOfWork implements UnitOfWork {
  private readonly als = new AsyncLocalStorage<Knex.Transaction>();
  private readonly pending = new WeakMap<Knex.Transaction, Array<() => void>>();

  constructor(readonly knex: Knex) {}

  inTransaction(): boolean {
    return this.als.getStore() !== undefined;
  }

  db(): Knex | Knex.Transaction {
    return this.als.getStore() ?? this.knex;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.als.getStore()) return fn();
    let callbacks: Array<() => void> = [];
    const result = await this.knex.transaction((trx) => {
      this.pending.set(trx, (callbacks = []));
      return this.als.run(trx, fn);
    });
    for (const cb of callbacks) cb();
    return result;
  }

  afterCommit(fn: () => void): void {
    const trx = this.als.getStore();
    if (!trx) return fn();
    this.pending.get(trx)!.push(fn);
  }
}
