import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { AccountRepository } from '../accounts/ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from '../accounts/ports/credentials.port.js';
import type { Accounting } from '../billing/accounting.js';
import type { ZoneService } from '../dns/zone/zone-service.js';
import type { SavedCards } from '../billing/ports/payments.port.js';
import type { Domain } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { addDays, kyivDate } from '../kernel/dates.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { SandboxRegistryStore } from './ports/sandbox-registry.port.js';

/** DESIGN: the sandbox demo account, seeded once on first start. */
export const DEMO_EMAIL = 'owner@domivka-demo.com.ua';
export const DEMO_BALANCE = 1_000_000; // 10 000.00 UAH
export const DEMO_DOMAINS: ReadonlyArray<{ name: string; labels: string[]; daysLeft: number }> = [
  { name: 'domivka-demo.com.ua', labels: ['prod', 'shop'], daysLeft: 240 },
  { name: 'domivka-demo.dev', labels: ['prod'], daysLeft: 75 },
  { name: 'domivka-blog.kyiv.ua', labels: ['blog'], daysLeft: 20 },
];
export const SANDBOX_NAMESERVERS = ['ns1.domivka.net', 'ns2.domivka.net'];

export interface DemoCredentials {
  readonly accountId: string;
  readonly personId: string;
  readonly email: string;
  readonly password: string;
  readonly totpSecret: string;
  readonly totpUri: string;
}

/** What SeedDemo is built from (one object, named, instead of positions). */
export interface SeedDemoDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly domains: DomainRepository;
  readonly registry: SandboxRegistryStore;
  readonly cards: SavedCards;
  readonly accounting: Accounting;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly zones: Pick<ZoneService, 'create'>;
}

export class SeedDemo {
  constructor(private readonly deps: SeedDemoDeps) {}

  /** Seeds the demo account unless it exists; returns the credentials only when it created them. */
  async execute(): Promise<DemoCredentials | null> {
    if (await this.deps.accounts.findPersonByEmail(DEMO_EMAIL)) return null;
    const now = this.deps.clock.now();
    const today = kyivDate(now);
    const password = `${this.deps.random.base62(6)}-${this.deps.random.base62(6)}-${this.deps.random.base62(6)}`;
    const totpSecret = this.deps.totp.generateSecret();
    const passwordHash = await this.deps.passwords.hash(password);
    const accountId = this.deps.random.id();
    const personId = this.deps.random.id();
    try {
      await this.seed(accountId, personId, passwordHash, totpSecret, now, today);
    } catch (err) {
      // Two processes seeding a fresh store at once (npm start beside sandbox:key): the other won.
      if (await this.deps.accounts.findPersonByEmail(DEMO_EMAIL)) return null;
      throw err;
    }
    return { accountId, personId, email: DEMO_EMAIL, password, totpSecret, totpUri: this.deps.totp.uri(totpSecret, DEMO_EMAIL) };
  }

  private async seed(
    accountId: string,
    personId: string,
    passwordHash: string,
    totpSecret: string,
    now: Date,
    today: string,
  ): Promise<void> {
    await this.deps.uow.transaction(async () => {
      await this.deps.accounts.insertAccount({ id: accountId, name: 'Domivka Demo', createdAt: now });
      await this.deps.accounts.insertPerson({
        id: personId,
        accountId,
        email: DEMO_EMAIL,
        name: 'Demo Owner',
        role: 'owner',
        passwordHash,
        totpSecret: this.deps.box.seal(totpSecret),
        totpLastStep: null,
        lastSignInAt: null,
        createdAt: now,
      });
      for (const d of DEMO_DOMAINS) {
        const domain: Domain = {
          id: this.deps.random.id(),
          accountId,
          environment: 'test',
          name: d.name,
          labels: d.labels,
          status: ['clientTransferProhibited'],
          expiresOn: addDays(today, d.daysLeft),
          autoRenew: true,
          transferLock: true,
          nameservers: SANDBOX_NAMESERVERS,
          createdAt: now,
        };
        await this.deps.domains.insert(domain);
        // DESIGN: each demo domain has a small zone — SOA, NS, an A for the apex and www, an MX.
        await this.deps.zones.create(accountId, 'test', d.name, [
          { name: d.name, type: 'A', ttl: 300, values: ['192.0.2.10'] },
          { name: `www.${d.name}`, type: 'A', ttl: 300, values: ['192.0.2.10'] },
          { name: d.name, type: 'MX', ttl: 3600, values: [`10 mail.${d.name}.`] },
          { name: `mail.${d.name}`, type: 'A', ttl: 3600, values: ['192.0.2.25'] },
        ]);
        await this.deps.registry.put({
          domain: d.name,
          registeredUntil: domain.expiresOn!,
          status: domain.status,
          nameservers: domain.nameservers,
          transferCode: this.deps.random.base62(16),
        });
      }
      // A saved sandbox card that succeeds (see adapters/payments/sandbox: 4242 succeeds, 0002 declines).
      await this.deps.cards.save({
        accountId,
        environment: 'test',
        brand: 'visa',
        last4: '4242',
        paymentMethodRef: 'pm_sandbox_4242',
        customerRef: null,
      });
      await this.deps.accounting.credit({
        accountId,
        environment: 'test',
        amount: DEMO_BALANCE,
        kind: 'grant',
        keyId: null,
        description: 'Sandbox demo balance',
      });
      await this.deps.events.record(
        'account.created',
        { accountId, environment: 'test', subject: `account:${accountId}`, actor: 'system', occurredAt: now },
        { demo: true },
      );
    });
  }
}
