import type { DomainHolders } from '../../../core/domains/ports/registry-messages.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

/** Who holds a name in an environment (registry messages name domains, not accounts). */
export class SqlDomainHolders implements DomainHolders {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async holderOf(environment: Environment, name: string): Promise<{ accountId: string; domainId: string } | null> {
    const row: { id: string; account_id: string } | undefined = await this.uow.db()('domains')
      .where({ environment, name: name.toLowerCase() }).first('id', 'account_id');
    return row ? { accountId: row.account_id, domainId: row.id } : null;
  }
}
