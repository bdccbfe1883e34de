import type { Accounting } from '../billing/accounting.js';
import type { Ledger } from '../billing/ports/ledger.port.js';
import { viewTransaction, type TransactionView } from '../billing/read-billing.use-case.js';
import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import { view as viewRecordSet, type RecordSetView } from '../dns/zone/read-zone.use-case.js';
import { viewDomain, type DomainView } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { uah, type Money } from '../kernel/money.js';
import type { Actor } from '../kernel/person.js';

/** What HumanReads is built from (one object, named, instead of positions). */
export interface HumanReadsDeps {
  readonly domains: DomainRepository;
  readonly zones: ZoneRepository;
  readonly accounting: Accounting;
  readonly ledger: Ledger;
}

/**
 * What a signed-in person reads in the console: the whole account (a person is not scoped like a key),
 * in the same view shapes the keyed API answers with.
 */
export class HumanReads {
  constructor(private readonly deps: HumanReadsDeps) {}

  async domainList(actor: Actor, environment: Environment): Promise<DomainView[]> {
    const rows = await this.deps.domains.list({
      accountId: actor.accountId,
      environment,
      scope: { all: true, names: [], labels: [] },
      limit: 200,
    });
    return rows.map(viewDomain);
  }

  async domain(
    actor: Actor,
    environment: Environment,
    name: string,
  ): Promise<{ domain: DomainView; records: RecordSetView[]; serial: number | null }> {
    const n = normalizeDomain(name);
    const d = await this.deps.domains.find(actor.accountId, environment, n);
    if (!d) throw new DomainError('domain_not_found', { domain: n });
    const zone = await this.deps.zones.find(actor.accountId, environment, n);
    const records = zone
      ? [...zone.recordSets]
          .sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)))
          .map(viewRecordSet)
      : [];
    return { domain: viewDomain(d), records, serial: zone?.serial ?? null };
  }

  async billing(actor: Actor, environment: Environment): Promise<{ balance: Money; transactions: TransactionView[] }> {
    const balance = uah(await this.deps.accounting.balance(actor.accountId, environment));
    const rows = await this.deps.ledger.list({ accountId: actor.accountId, environment, limit: 50 });
    return { balance, transactions: rows.map(viewTransaction) };
  }
}
