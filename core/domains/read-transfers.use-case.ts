import type { Authorizer } from '../access/authorize.js';
import { personMay } from '../access/person-key.js';
import type { Environment } from '../kernel/environment.js';
import type { Actor } from '../kernel/person.js';
import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { filteredPage, memoized, type Page } from '../kernel/pagination.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import { viewTransfer, type DomainTransfer, type TransferView } from './transfer.js';

const cursorOf = (t: DomainTransfer): string => `${t.createdAt.toISOString()}|${t.id}`;

/** GET /v1/transfers, /v1/domains/{domain}/transfers and …/transfers/{id} (domain.register on the name). */
export class ReadTransfers {
  constructor(
    private readonly transfers: Pick<TransferRepository, 'find' | 'listFor' | 'listRecent'>,
    private readonly domains: Pick<DomainRepository, 'find'>,
    private readonly authorizer: Pick<Authorizer, 'allows'>,
  ) {}

  /** A name neither in the account nor ever asked for by it is not found (nothing about others leaks). */
  async list(key: ApiKey, domain: string): Promise<{ items: TransferView[] }> {
    const name = normalizeDomain(domain);
    const items = (await this.transfers.listFor(key.accountId, key.environment, name, 100)).map(viewTransfer);
    if (items.length === 0 && !(await this.domains.find(key.accountId, key.environment, name)))
      throw new DomainError('domain_not_found', { domain: name });
    return { items };
  }

  /**
   * The account's transfers, both directions, newest first, of the names the key holds domain.register on
   * (a pending transfer in is of a name not in the account yet: a key naming it, or a label-scoped
   * domain.register key, reaches it, as when it was asked for). Filtered after reading, page by page.
   */
  async listAccount(key: ApiKey, q: { cursor?: string; limit?: number; active?: boolean }): Promise<Page<TransferView>> {
    return this.page(key.accountId, key.environment, q, (domain) => this.authorizer.allows(key, 'domain.register', domain));
  }

  /**
   * The same list for a person in the console: their role decides, as for the person key (domain.register
   * is class 2: owners see every transfer of the account, members none — right_missing, as a key of theirs).
   */
  async listForPerson(
    actor: Actor,
    environment: Environment,
    q: { cursor?: string; limit?: number; active?: boolean },
  ): Promise<Page<TransferView>> {
    if (!personMay(actor, 'domain.register')) throw new DomainError('right_missing', { right: 'domain.register' });
    return this.page(actor.accountId, environment, q, async () => true);
  }

  private async page(
    accountId: string,
    environment: Environment,
    q: { cursor?: string; limit?: number; active?: boolean },
    reaches: (domain: string) => Promise<boolean>,
  ): Promise<Page<TransferView>> {
    const reach = memoized(reaches);
    // A key that reaches few of many names reads a bounded number of pages a call, then hands over a cursor.
    return filteredPage({
      cursor: q.cursor,
      limit: q.limit,
      fetch: (before, limit) =>
        this.transfers.listRecent(accountId, environment, { ...(before ? { before } : {}), limit, ...(q.active ? { active: true } : {}) }),
      sortKey: cursorOf,
      keep: (t) => reach(t.domain),
      view: viewTransfer,
    });
  }

  async get(key: ApiKey, domain: string, id: string): Promise<TransferView> {
    const t = await this.transfers.find(key.accountId, key.environment, id);
    if (!t || t.domain !== normalizeDomain(domain)) throw new DomainError('transfer_not_found', { transfer_id: id });
    return viewTransfer(t);
  }
}
