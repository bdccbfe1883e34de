import { addYears, kyivDate } from '../../../core/kernel/dates.js';
import type { Clock } from '../../../core/kernel/clock.port.js';
import { isRegistrable } from '../../../core/domains/price-list.js';
import {
  RegistryError,
  type Availability,
  type RegisterRequest,
  type Registrar,
  type RegistrarCapability,
  type RegistryDomainInfo,
  type RegistryResult,
  type RenewRequest,
  type RegistrantContact,
  type DsRecord,
} from '../../../core/domains/ports/registrar.port.js';
import type { SandboxRegistryStore } from '../../../core/sandbox/ports/sandbox-registry.port.js';

/**
 * The sandbox registrar (DESIGN: Wire formats). Deterministic and looks real:
 * - a name whose first label starts with `taken-` is registered elsewhere until TAKEN_UNTIL;
 * - one starting with `fail-` is available but every write to it fails at the "registry";
 * - any other registrable name under a priced TLD is free until someone registers it in the sandbox.
 * State lives in our store (sandbox_registry), shared by every account of the test environment, and
 * nothing outside changes. Writes are idempotent by client transaction id, like EPP's clTRID.
 * - DS records (setDs/removeDs) are kept per name and are what the sandbox parent publishes; a name whose
 *   first label starts with `nods-` is under a registry policy that refuses DS records (2308 in EPP).
 */
export const TAKEN_UNTIL = '2031-03-14';
const SANDBOX_NS = ['ns1.domivka.net', 'ns2.domivka.net'];

const isTakenMagic = (name: string) => name.split('.')[0]!.startsWith('taken-');
const isFailMagic = (name: string) => name.split('.')[0]!.startsWith('fail-');
const isNoDsMagic = (name: string) => name.split('.')[0]!.startsWith('nods-');

/** Digest lengths by DS digest type (RFC 4034 SHA-1, RFC 4509 SHA-256, RFC 6605 SHA-384), in hex digits. */
const DIGEST_HEX: Readonly<Record<number, number>> = { 1: 40, 2: 64, 4: 96 };
const sameDs = (a: DsRecord, b: DsRecord) =>
  a.keyTag === b.keyTag &&
  a.algorithm === b.algorithm &&
  a.digestType === b.digestType &&
  a.digest.toUpperCase() === b.digest.toUpperCase();

export class SandboxRegistrar implements Registrar {
  readonly name = 'sandbox';
  readonly capabilities: ReadonlySet<RegistrarCapability> = new Set<RegistrarCapability>([
    'register',
    'renew',
    'nameservers',
    'transfer_lock',
    'transfer_code',
    'registrant',
    'ds_set',
    'ds_remove',
  ]);

  constructor(
    private readonly store: SandboxRegistryStore,
    private readonly clock: Clock,
    private readonly newTransferCode: () => string,
  ) {}

  async check(domains: readonly string[]): Promise<Availability[]> {
    const held = new Map((await this.store.findMany(domains)).map((e) => [e.domain, e]));
    return domains.map((domain) => {
      if (isTakenMagic(domain)) return { domain, available: false, registeredUntil: TAKEN_UNTIL };
      const entry = held.get(domain);
      if (entry) return { domain, available: false, registeredUntil: entry.registeredUntil };
      return { domain, available: isRegistrable(domain), registeredUntil: null };
    });
  }

  async info(domain: string): Promise<RegistryDomainInfo | null> {
    if (isTakenMagic(domain))
      return { domain, registeredUntil: TAKEN_UNTIL, status: ['clientTransferProhibited'], nameservers: ['ns1.elsewhere.example'] };
    const e = await this.store.find(domain);
    return e ? { domain, registeredUntil: e.registeredUntil, status: [...e.status], nameservers: [...e.nameservers] } : null;
  }

  async register(req: RegisterRequest): Promise<RegistryResult> {
    return this.store.atomically(async () => {
      const replay = await this.replayed(req.clientTransactionId, 'register', req.domain);
      if (replay) return replay;
      if (isFailMagic(req.domain)) throw new RegistryError('unavailable', `registry failure for ${req.domain} (sandbox fail- name)`);
      const [a] = await this.check([req.domain]);
      if (!a!.available) {
        if (a!.registeredUntil) throw new RegistryError('taken', `${req.domain} is registered`, a!.registeredUntil);
        throw new RegistryError('rejected', `${req.domain} is not registrable here`);
      }
      const registeredUntil = addYears(req.today ?? kyivDate(this.clock.now()), req.years);
      // Atomic, like a real registry: of two racing creates of one name, one wins and one is refused.
      const created = await this.store.putIfAbsent({
        domain: req.domain,
        registeredUntil,
        status: ['ok'],
        nameservers: req.nameservers.length > 0 ? [...req.nameservers] : SANDBOX_NS,
        transferCode: this.newTransferCode(),
      });
      if (!created) {
        const holder = await this.store.find(req.domain);
        throw new RegistryError('taken', `${req.domain} is registered`, holder?.registeredUntil ?? null);
      }
      const result = { domain: req.domain, registeredUntil };
      await this.store.recordTransaction(req.clientTransactionId, 'register', req.domain, JSON.stringify(result));
      return result;
    });
  }

  async renew(req: RenewRequest): Promise<RegistryResult> {
    return this.store.atomically(async () => {
      const replay = await this.replayed(req.clientTransactionId, 'renew', req.domain);
      if (replay) return replay;
      if (isFailMagic(req.domain)) throw new RegistryError('unavailable', `registry failure for ${req.domain} (sandbox fail- name)`);
      const e = await this.store.find(req.domain);
      if (!e) throw new RegistryError('rejected', `${req.domain} is not registered in the sandbox registry`);
      // EPP renew (RFC 5731 §3.2.3) names the current expiry date so a repeated renew cannot add twice.
      if (e.registeredUntil !== req.currentExpiry) {
        throw new RegistryError('rejected', `current expiry of ${req.domain} is ${e.registeredUntil}, not ${req.currentExpiry}`);
      }
      const registeredUntil = addYears(e.registeredUntil, req.years);
      await this.store.put({ ...e, registeredUntil });
      const result = { domain: req.domain, registeredUntil };
      await this.store.recordTransaction(req.clientTransactionId, 'renew', req.domain, JSON.stringify(result));
      return result;
    });
  }

  async setNameservers(domain: string, nameservers: readonly string[], clientTransactionId: string): Promise<void> {
    return this.store.atomically(async () => {
      if (await this.store.transaction(clientTransactionId)) return;
      const e = await this.mustFind(domain);
      await this.store.put({ ...e, nameservers: [...nameservers] });
      await this.store.recordTransaction(clientTransactionId, 'nameservers', domain, JSON.stringify(nameservers));
    });
  }

  async setTransferLock(domain: string, locked: boolean, clientTransactionId: string): Promise<void> {
    return this.store.atomically(async () => {
      if (await this.store.transaction(clientTransactionId)) return;
      const e = await this.mustFind(domain);
      const others = e.status.filter((s) => s !== 'clientTransferProhibited' && s !== 'ok');
      const status = locked ? [...others, 'clientTransferProhibited'] : others.length > 0 ? others : ['ok'];
      await this.store.put({ ...e, status });
      await this.store.recordTransaction(clientTransactionId, 'lock', domain, JSON.stringify({ locked }));
    });
  }

  async transferCode(domain: string): Promise<string> {
    return (await this.mustFind(domain)).transferCode;
  }

  /** EPP contact:create + domain:update <chg><registrant> in one step; the registry keeps the contact. */
  async changeRegistrant(domain: string, registrant: RegistrantContact, clientTransactionId: string): Promise<void> {
    return this.store.atomically(async () => {
      if (await this.store.transaction(clientTransactionId)) return;
      // What a registry checks of a contact (RFC 5733 §2.4: cc is ISO 3166 alpha-2; name, city, email required).
      if (
        !/^[A-Z]{2}$/.test(registrant.address.countryCode) ||
        !registrant.name.trim() ||
        !registrant.address.city.trim() ||
        !registrant.email.includes('@')
      ) {
        throw new RegistryError(
          'rejected',
          `contact for ${domain} is not valid (name, email, city and a two-letter country code are required)`,
        );
      }
      const e = await this.mustFind(domain);
      await this.store.put({
        ...e,
        registrant: { ...registrant, address: { ...registrant.address, street: [...registrant.address.street] } },
      });
      await this.store.recordTransaction(clientTransactionId, 'registrant', domain, JSON.stringify({ name: registrant.name }));
    });
  }

  /** The registrant contact the sandbox registry holds (null: never changed). */
  async registrant(domain: string): Promise<RegistrantContact | null> {
    return (await this.mustFind(domain)).registrant ?? null;
  }

  /** secDNS-1.1 add (RFC 5910 §3.2.5): the given DS records join the set; ones already held stay once. */
  async setDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void> {
    return this.store.atomically(async () => {
      if (await this.store.transaction(clientTransactionId)) return;
      await this.mustFind(domain);
      if (isFailMagic(domain)) throw new RegistryError('unavailable', `registry failure for ${domain} (sandbox fail- name)`);
      if (isNoDsMagic(domain))
        throw new RegistryError(
          'rejected',
          `the registry of ${domain} accepts no DS records (sandbox nods- name)`,
          null,
          'registry_policy_refused',
          2308,
        );
      const bad = records.find(
        (r) =>
          !Number.isInteger(r.keyTag) ||
          r.keyTag < 0 ||
          r.keyTag > 0xffff ||
          !Number.isInteger(r.algorithm) ||
          r.algorithm < 1 ||
          r.algorithm > 255 ||
          DIGEST_HEX[r.digestType] !== r.digest.length ||
          !/^[0-9A-Fa-f]+$/.test(r.digest),
      );
      if (bad)
        throw new RegistryError(
          'rejected',
          `DS ${bad.keyTag} ${bad.algorithm} ${bad.digestType} for ${domain} is not valid`,
          null,
          'registry_parameter_rejected',
          2306,
        );
      const held = await this.store.dsOf(domain);
      const added = records.filter((r) => !held.some((h) => sameDs(h, r))).map((r) => ({ ...r, digest: r.digest.toUpperCase() }));
      await this.store.putDs(domain, [...held, ...added]);
      await this.store.recordTransaction(clientTransactionId, 'ds_set', domain, JSON.stringify(added.length));
    });
  }

  /** secDNS-1.1 rem (RFC 5910 §3.2.5): the given DS records leave the set; ones not held are ignored. */
  async removeDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void> {
    return this.store.atomically(async () => {
      if (await this.store.transaction(clientTransactionId)) return;
      await this.mustFind(domain);
      if (isFailMagic(domain)) throw new RegistryError('unavailable', `registry failure for ${domain} (sandbox fail- name)`);
      const held = await this.store.dsOf(domain);
      await this.store.putDs(
        domain,
        held.filter((h) => !records.some((r) => sameDs(h, r))),
      );
      await this.store.recordTransaction(clientTransactionId, 'ds_remove', domain, JSON.stringify(records.length));
    });
  }

  async dsRecords(domain: string): Promise<DsRecord[]> {
    await this.mustFind(domain);
    return this.store.dsOf(domain);
  }

  private async mustFind(domain: string) {
    const e = await this.store.find(domain);
    if (!e) throw new RegistryError('rejected', `${domain} is not registered in the sandbox registry`);
    return e;
  }

  private async replayed(id: string, op: string, domain: string): Promise<RegistryResult | null> {
    const t = await this.store.transaction(id);
    if (!t) return null;
    if (t.op !== op || t.domain !== domain)
      throw new RegistryError('rejected', `client transaction id ${id} was used for ${t.op} ${t.domain}`);
    return JSON.parse(t.result) as RegistryResult;
  }
}
