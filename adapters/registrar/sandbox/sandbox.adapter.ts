import { addYears, kyivDate } from '../../../core/kernel/dates.js';
import type { Clock } from '../../../core/kernel/clock.port.js';
import { ALL_REGISTRAR_CAPABILITIES } from '../../../core/domains/capabilities.js';
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
  type TransferRequest,
  type TransferState,
  type DsRecord,
} from '../../../core/domains/ports/registrar.port.js';
import type { SandboxRegistryEntry, SandboxRegistryStore, SandboxTransfer } from '../../../core/sandbox/ports/sandbox-registry.port.js';

/**
 * The sandbox registrar (DESIGN: Wire formats). Deterministic and looks real:
 * - a name whose first label starts with `taken-` is registered elsewhere until TAKEN_UNTIL;
 * - one starting with `fail-` is available but every write to it fails at the "registry";
 * - one starting with `transfer-` is registered elsewhere and may be transferred in with the auth code
 *   `sandbox-auth-ok` (`sandbox-auth-reject` is accepted, then rejected by the losing side; any other code
 *   is refused), except `transfer-locked-` names, refused as locked. The losing side answers after
 *   TRANSFER_DAYS of the requester's clock (the sandbox clock), as registries auto-approve after theirs;
 * - any other registrable name under a priced TLD is free until someone registers it in the sandbox.
 * State lives in our store (sandbox_registry), shared by every account of the test environment, and
 * nothing outside changes. Writes are idempotent by client transaction id, like EPP's clTRID.
 * - DS records (setDs/removeDs) are kept per name and are what the sandbox parent publishes; a name whose
 *   first label starts with `nods-` is under a registry policy that refuses DS records (2308 in EPP); one
 *   starting with `dskeep-` takes DS records but refuses to remove them (2308), as some registries do;
 *   a `transfer-signed-` name is signed by its current DNS operator: the registry holds that operator's DS
 *   (ELSEWHERE_DS, one a key of ours never matches), before the transfer and after it, as registries keep
 *   DS records across a transfer.
 */
export const TAKEN_UNTIL = '2031-03-14';
const SANDBOX_NS = ['ns1.domivka.net', 'ns2.domivka.net'];

const isTakenMagic = (name: string) => name.split('.')[0]!.startsWith('taken-');
const isFailMagic = (name: string) => name.split('.')[0]!.startsWith('fail-');
const isTransferMagic = (name: string) => name.split('.')[0]!.startsWith('transfer-');
const isLockedMagic = (name: string) => name.split('.')[0]!.startsWith('transfer-locked-');
/** The auth codes the losing side of a `transfer-` name knows. */
export const SANDBOX_AUTH_OK = 'sandbox-auth-ok';
export const SANDBOX_AUTH_REJECT = 'sandbox-auth-reject';
/** Days the losing side has to answer (RFC 5731 leaves it to policy; gTLDs use 5). */
export const TRANSFER_DAYS = 5;
const ELSEWHERE_NS = ['ns1.elsewhere.example', 'ns2.elsewhere.example'];
const PENDING = 'pendingTransfer';
const isSignedElsewhereMagic = (name: string) => name.split('.')[0]!.startsWith('transfer-signed-');
/** The DS of the DNS operator a `transfer-signed-` name has today: fixed, so tests and docs can name it. */
export const ELSEWHERE_DS: DsRecord = { keyTag: 31589, algorithm: 13, digestType: 2, digest: '5D'.repeat(32) };

const stateOf = (domain: string, t: SandboxTransfer): TransferState => ({
  domain,
  status: t.status,
  direction: t.direction,
  requestedAt: t.requestedAt,
  actionAt: t.actionAt,
  registeredUntil: t.registeredUntil,
});
const isNoDsMagic = (name: string) => name.split('.')[0]!.startsWith('nods-');
/** Under a registry that accepts DS records from registrars but removes them only through its own desk. */
const isKeepDsMagic = (name: string) => name.split('.')[0]!.startsWith('dskeep-');

/** Digest lengths by DS digest type (RFC 4034 SHA-1, RFC 4509 SHA-256, RFC 6605 SHA-384), in hex digits. */
const DIGEST_HEX: Readonly<Record<number, number>> = { 1: 40, 2: 64, 4: 96 };
const sameDs = (a: DsRecord, b: DsRecord) =>
  a.keyTag === b.keyTag &&
  a.algorithm === b.algorithm &&
  a.digestType === b.digestType &&
  a.digest.toUpperCase() === b.digest.toUpperCase();

export class SandboxRegistrar implements Registrar {
  readonly name = 'sandbox';
  readonly capabilities: ReadonlySet<RegistrarCapability> = new Set(ALL_REGISTRAR_CAPABILITIES);

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
      if (!entry && isTransferMagic(domain)) return { domain, available: false, registeredUntil: TAKEN_UNTIL };
      if (entry) return { domain, available: false, registeredUntil: entry.registeredUntil };
      return { domain, available: isRegistrable(domain), registeredUntil: null };
    });
  }

  async info(domain: string): Promise<RegistryDomainInfo | null> {
    if (isTakenMagic(domain))
      return { domain, registeredUntil: TAKEN_UNTIL, status: ['clientTransferProhibited'], nameservers: ['ns1.elsewhere.example'] };
    const e = await this.store.find(domain);
    if (!e && isTransferMagic(domain))
      return {
        domain,
        registeredUntil: TAKEN_UNTIL,
        status: isLockedMagic(domain) ? ['clientTransferProhibited'] : ['ok'],
        nameservers: ELSEWHERE_NS,
      };
    return e ? { domain, registeredUntil: e.registeredUntil, status: [...e.status], nameservers: [...e.nameservers] } : null;
  }

  /**
   * <domain:transfer op="request"> (RFC 5731 §3.2.4). A `transfer-` name held elsewhere, or one of ours
   * asked for again, is refused as the registry would: 2202 for a wrong authInfo, 2304 when the name is
   * locked (clientTransferProhibited) or already pending transfer, 2303 for an unknown name.
   */
  async requestTransfer(req: TransferRequest): Promise<TransferState> {
    return this.store.atomically(async () => {
      const now = req.now ?? this.clock.now();
      if (await this.store.transaction(req.clientTransactionId)) return (await this.query(req.domain, now))!;
      if (isFailMagic(req.domain)) throw new RegistryError('unavailable', `registry failure for ${req.domain} (sandbox fail- name)`);
      const held = await this.store.find(req.domain);
      if (held?.transfer?.status === 'pending') await this.query(req.domain, now);
      const e = await this.store.find(req.domain);
      if (e && e.transfer?.status === 'pending')
        throw new RegistryError('rejected', `${req.domain} is pending transfer already`, null, 'registry_status_prohibits', 2304);
      if (!isTransferMagic(req.domain) || (e && e.transfer?.direction === 'in' && e.transfer.status.endsWith('Approved'))) {
        throw e
          ? new RegistryError('rejected', `${req.domain} is sponsored by us already`, null, 'registry_policy_refused', 2106)
          : new RegistryError('rejected', `${req.domain} does not exist`, null, 'registry_object_missing', 2303);
      }
      if (isLockedMagic(req.domain))
        throw new RegistryError('rejected', `${req.domain} is locked (clientTransferProhibited)`, null, 'registry_status_prohibits', 2304);
      if (req.authCode !== SANDBOX_AUTH_OK && req.authCode !== SANDBOX_AUTH_REJECT)
        throw new RegistryError('rejected', `the authInfo for ${req.domain} is not valid`, null, 'registry_auth_info_invalid', 2202);
      const transfer: SandboxTransfer = {
        direction: 'in',
        status: 'pending',
        requestedAt: now.toISOString(),
        actionAt: new Date(now.getTime() + TRANSFER_DAYS * 86_400_000).toISOString(),
        years: req.years,
        outcome: req.authCode === SANDBOX_AUTH_REJECT ? 'reject' : 'approve',
        registeredUntil: null,
      };
      await this.store.put({
        domain: req.domain,
        registeredUntil: e?.registeredUntil ?? TAKEN_UNTIL,
        status: ['ok', PENDING],
        nameservers: e?.nameservers ? [...e.nameservers] : ELSEWHERE_NS,
        transferCode: e?.transferCode ?? this.newTransferCode(),
        registrant: e?.registrant ?? null,
        transfer,
      });
      if (isSignedElsewhereMagic(req.domain) && (await this.store.dsOf(req.domain)).length === 0)
        await this.store.putDs(req.domain, [ELSEWHERE_DS]);
      await this.store.recordTransaction(req.clientTransactionId, 'transfer', req.domain, JSON.stringify({ direction: 'in' }));
      return stateOf(req.domain, transfer);
    });
  }

  async queryTransfer(domain: string, now?: Date): Promise<TransferState | null> {
    return this.store.atomically(() => this.query(domain, now ?? this.clock.now()));
  }

  async cancelTransfer(domain: string, clientTransactionId: string, now?: Date): Promise<TransferState> {
    return this.answer(domain, clientTransactionId, now, 'in', 'clientCancelled');
  }

  async rejectTransfer(domain: string, clientTransactionId: string, now?: Date): Promise<TransferState> {
    return this.answer(domain, clientTransactionId, now, 'out', 'clientRejected');
  }

  /**
   * Sandbox only (POST /v1/sandbox/transfer-out): another registrar asks for a name we hold. A locked
   * name is refused as the registry would (2304); the transfer completes after TRANSFER_DAYS unless rejected.
   */
  async simulateTransferOut(domain: string, now?: Date): Promise<TransferState> {
    return this.store.atomically(async () => {
      const at = now ?? this.clock.now();
      await this.query(domain, at);
      const e = await this.mustFind(domain);
      if (e.transfer?.status === 'pending')
        throw new RegistryError('rejected', `${domain} is pending transfer already`, null, 'registry_status_prohibits', 2304);
      if (e.transfer?.direction === 'out' && e.transfer.status.endsWith('Approved'))
        throw new RegistryError('rejected', `${domain} is not ours any more`, null, 'registry_object_missing', 2303);
      if (e.status.includes('clientTransferProhibited'))
        throw new RegistryError('rejected', `${domain} is locked (clientTransferProhibited)`, null, 'registry_status_prohibits', 2304);
      const transfer: SandboxTransfer = {
        direction: 'out',
        status: 'pending',
        requestedAt: at.toISOString(),
        actionAt: new Date(at.getTime() + TRANSFER_DAYS * 86_400_000).toISOString(),
        years: 1,
        outcome: 'approve',
        registeredUntil: null,
      };
      await this.store.put({ ...e, status: [...e.status.filter((s) => s !== 'ok'), PENDING], transfer });
      return stateOf(domain, transfer);
    });
  }

  /** The losing side answers once its period ended (the transfer completes or is rejected then). */
  private async query(domain: string, now: Date): Promise<TransferState | null> {
    const e = await this.store.find(domain);
    if (!e?.transfer) return null;
    const t = e.transfer;
    if (t.status !== 'pending' || now.getTime() < Date.parse(t.actionAt)) return stateOf(domain, t);
    const rest = e.status.filter((s) => s !== PENDING);
    if (t.outcome === 'reject') {
      const done: SandboxTransfer = { ...t, status: 'clientRejected' };
      await this.store.put({ ...e, status: rest.length > 0 ? rest : ['ok'], transfer: done });
      return stateOf(domain, done);
    }
    // RFC 5731 §3.2.4: a transfer adds the years asked for to the expiry (at least one on the losing side's).
    const registeredUntil = addYears(e.registeredUntil, t.years);
    const done: SandboxTransfer = { ...t, status: 'serverApproved', registeredUntil };
    const next: SandboxRegistryEntry =
      t.direction === 'in'
        ? { ...e, registeredUntil, status: ['ok'], nameservers: SANDBOX_NS, transferCode: this.newTransferCode(), transfer: done }
        : { ...e, registeredUntil, status: ['ok'], nameservers: ELSEWHERE_NS, transferCode: this.newTransferCode(), transfer: done };
    await this.store.put(next);
    return stateOf(domain, done);
  }

  private async answer(
    domain: string,
    clientTransactionId: string,
    now: Date | undefined,
    direction: 'in' | 'out',
    status: 'clientCancelled' | 'clientRejected',
  ): Promise<TransferState> {
    return this.store.atomically(async () => {
      const at = now ?? this.clock.now();
      const replay = await this.store.transaction(clientTransactionId);
      if (replay) return (await this.query(domain, at))!;
      const current = await this.query(domain, at);
      const e = await this.store.find(domain);
      if (!e || !current || current.direction !== direction || current.status !== 'pending')
        throw new RegistryError('rejected', `${domain} has no pending transfer to answer`, null, 'registry_status_prohibits', 2301);
      const rest = e.status.filter((s) => s !== PENDING);
      const done: SandboxTransfer = { ...e.transfer!, status };
      await this.store.put({ ...e, status: rest.length > 0 ? rest : ['ok'], transfer: done });
      await this.store.recordTransaction(clientTransactionId, status, domain, JSON.stringify({ status }));
      return stateOf(domain, done);
    });
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
      if (isKeepDsMagic(domain))
        throw new RegistryError(
          'rejected',
          `the registry of ${domain} removes DS records only on request to its support desk (sandbox dskeep- name)`,
          null,
          'registry_policy_refused',
          2308,
        );
      const held = await this.store.dsOf(domain);
      await this.store.putDs(
        domain,
        held.filter((h) => !records.some((r) => sameDs(h, r))),
      );
      await this.store.recordTransaction(clientTransactionId, 'ds_remove', domain, JSON.stringify(records.length));
    });
  }

  async dsRecords(domain: string): Promise<DsRecord[]> {
    if (isSignedElsewhereMagic(domain) && !(await this.store.find(domain))) return [ELSEWHERE_DS];
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
