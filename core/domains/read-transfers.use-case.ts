import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import { viewTransfer, type TransferView } from './transfer.js';

/** GET /v1/domains/{domain}/transfers and …/transfers/{id} (domain.register on the name). */
export class ReadTransfers {
  constructor(
    private readonly transfers: Pick<TransferRepository, 'find' | 'listFor'>,
    private readonly domains: Pick<DomainRepository, 'find'>,
  ) {}

  /** A name neither in the account nor ever asked for by it is not found (nothing about others leaks). */
  async list(key: ApiKey, domain: string): Promise<{ items: TransferView[] }> {
    const name = normalizeDomain(domain);
    const items = (await this.transfers.listFor(key.accountId, key.environment, name, 100)).map(viewTransfer);
    if (items.length === 0 && !(await this.domains.find(key.accountId, key.environment, name)))
      throw new DomainError('domain_not_found', { domain: name });
    return { items };
  }

  async get(key: ApiKey, domain: string, id: string): Promise<TransferView> {
    const t = await this.transfers.find(key.accountId, key.environment, id);
    if (!t || t.domain !== normalizeDomain(domain)) throw new DomainError('transfer_not_found', { transfer_id: id });
    return viewTransfer(t);
  }
}
