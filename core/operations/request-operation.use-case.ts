import { actorOf } from '../kernel/caller.js';
import { isHosted, type Domain } from '../domains/domain.js';
import { LABEL_RE } from '../kernel/labels.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { accountOf, type OperationActor } from '../kernel/actor.js';
import { partyOf } from './operation.js';
import { delegationOf, dsAtParentWarning, nameserverWarnings, normalizeNameservers } from './nameservers.js';
import { dsMatchesOurs, foreignDsWarning } from '../domains/ds-warnings.js';
import { requireCapability } from '../domains/capabilities.js';
import type { DsRecord, RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import type { OperationAccess } from './operation-access.js';
import type { OperationLog } from './operation-log.js';
import {
  ACTIVATION_DELAY_MS,
  viewOperation,
  withPendingUpdate,
  type Operation,
  type OperationKind,
  type OperationParams,
  type OperationView,
  type OperationWarning,
} from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';
import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import type { DnssecRepository } from '../dnssec/ports/dnssec-repository.port.js';
import { parseDs, presentDnskey } from '../dnssec/foreign-keys.js';
import { inPhase, type Checkpoints } from '../kernel/checkpoints.port.js';

/** The recovery point of a request made through a phased route: the operation it recorded. */
const REQUESTED = 'operation_requested';

export type OperationRequest =
  | { readonly kind: 'nameservers'; readonly domain: string; readonly nameservers: readonly string[] }
  | { readonly kind: 'transfer_unlock'; readonly domain: string }
  | { readonly kind: 'labels'; readonly domain: string; readonly labels: readonly string[] }
  | { readonly kind: 'hosted_delete'; readonly domain: string }
  | { readonly kind: 'dnssec_ds_publish'; readonly domain: string; readonly ds?: readonly string[] }
  | { readonly kind: 'dnssec_ds_remove'; readonly domain: string; readonly ds: readonly string[] }
  | { readonly kind: 'dnssec_disable'; readonly domain: string }
  | { readonly kind: 'dnssec_foreign_key_remove'; readonly domain: string; readonly keyTag: number };

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** What RequestOperation is built from (one object, named, instead of positions). */
export interface RequestOperationDeps {
  readonly domains: DomainRepository;
  readonly operations: OperationRepository;
  readonly access: OperationAccess;
  readonly log: OperationLog;
  readonly uow: UnitOfWork;
  readonly time: AccountClock;
  readonly random: Random;
  /** The zone and its DNSSEC state (dnssec operations read the DS to publish or remove). */
  readonly zones?: ZoneRepository;
  readonly dnssec?: DnssecRepository;
  /** The registries (a nameserver change towards us reads the DS they hold). */
  readonly environments?: RegistrarEnvironments;
}

/**
 * PUT …/nameservers, DELETE …/transfer-lock, PUT …/labels (class 3): records a pending operation that
 * activates 24 hours later (account time: the sandbox clock for test domains) unless a second owner
 * confirms it sooner. The domain shows `pendingUpdate` meanwhile; one pending operation per domain.
 */
export class RequestOperation {
  constructor(private readonly deps: RequestOperationDeps) {}

  /**
   * With `checkpoints` (a phased route: the registry is asked outside any transaction), the operation is
   * recorded in one phase with its recovery point, and a retry of the same request after a crash between
   * that commit and the stored answer answers the operation it recorded instead of operation_pending.
   */
  async execute(actor: OperationActor, request: OperationRequest, checkpoints: Checkpoints | null = null): Promise<OperationView> {
    const name = normalizeDomain(request.domain);
    const accountId = accountOf(actor);
    if (checkpoints?.last?.point === REQUESTED) {
      const recorded = await this.deps.operations.find(accountId, String(checkpoints.last.data.operation_id));
      if (recorded) return viewOperation(recorded);
    }
    const environment: Environment = actor.kind === 'key' ? actor.key.environment : (actor.environment ?? 'test');
    await this.deps.access.mayRequest(actor, request.kind, name);
    // Read before the transaction: a registry round trip must not hold a database connection.
    const registryDs =
      request.kind === 'nameservers' || request.kind === 'dnssec_disable' ? await this.registryDs(environment, name) : null;
    return inPhase(
      checkpoints,
      this.deps.uow,
      REQUESTED,
      () => this.record(actor, request, name, accountId, environment, registryDs),
      (view) => ({ operation_id: view.id }),
    );
  }

  /** Checks the request against the domain as it is now and records the pending operation (one transaction). */
  private async record(
    actor: OperationActor,
    request: OperationRequest,
    name: string,
    accountId: string,
    environment: Environment,
    registryDs: readonly DsRecord[] | null,
  ): Promise<OperationView> {
    const domain = await this.deps.domains.find(accountId, environment, name);
    const dnssecKind = request.kind === 'dnssec_ds_publish' || request.kind === 'dnssec_disable' || request.kind === 'dnssec_ds_remove';
    // A zone we host for a domain registered elsewhere: its DS is for the person to give their registrar.
    const hosted = !domain || (domain as { registrar?: string }).registrar === 'external';
    if (dnssecKind && hosted && (await this.deps.zones?.find(accountId, environment, name)))
      throw new DomainError(request.kind === 'dnssec_disable' ? 'dnssec_ds_at_parent' : 'dnssec_ds_hosted', { domain: name });
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    // The delegation and the transfer lock of a domain registered elsewhere are at its registrar, not ours:
    // refused before anything waits 24 hours only to fail at a registry that does not hold the name.
    if (hosted && (request.kind === 'nameservers' || request.kind === 'transfer_unlock'))
      throw new DomainError('domain_not_registered_here', { domain: name });
    const pending = await this.deps.operations.pendingOn(domain.id);
    if (pending) throw conflict(pending);
    const { params, warnings } =
      request.kind === 'dnssec_ds_publish' || request.kind === 'dnssec_disable' || request.kind === 'dnssec_ds_remove'
        ? await this.dnssecEffect(domain, request, environment, registryDs)
        : request.kind === 'dnssec_foreign_key_remove'
          ? await this.foreignKeyEffect(domain, request.keyTag, environment)
          : await this.withDnssecWarning(domain, environment, this.effectOf(domain, request), registryDs);
    const now = await this.deps.time.now(accountId, environment);
    const op: Operation = {
      id: `op_${this.deps.random.id()}`,
      accountId,
      environment,
      domainId: domain.id,
      domain: name,
      kind: request.kind,
      status: 'pending',
      params,
      warnings,
      requestedBy: partyOf(actor),
      confirmations: [],
      createdAt: now,
      activatesAt: new Date(now.getTime() + ACTIVATION_DELAY_MS),
      resolvedAt: null,
      cancelledBy: null,
      failureReason: null,
    };
    if (!(await this.deps.operations.insert(op))) {
      // Another request on this domain committed between our check and our insert.
      const winner = await this.deps.operations.pendingOn(domain.id);
      throw winner ? conflict(winner) : new DomainError('operation_pending', { domain: name, operation_id: '' });
    }
    await this.deps.domains.update({ ...domain, status: withPendingUpdate(domain.status) });
    await this.deps.log.record(op, 'pending', actor.kind === 'key' ? actorOf(actor.key) : `person:${actor.personId}`);
    return viewOperation(op);
  }

  /**
   * The DS the operation publishes (the zone is signed and the parent holds no DS yet), or removes (the
   * parent holds it — as we recorded, or as the registry shows (`registryDs`): every DS of a key still in
   * the zone, so a rollover's second DS goes too). Removing given DS records needs no signed zone: with
   * DNSSEC off, a DS left at the parent (whoever's) is what keeps the domain off the internet, and
   * removing it is the owner's only way back.
   */
  private async dnssecEffect(
    domain: Domain,
    request: Extract<OperationRequest, { kind: 'dnssec_ds_publish' | 'dnssec_disable' | 'dnssec_ds_remove' }>,
    environment: Environment,
    registryDs: readonly DsRecord[] | null,
  ): Promise<{ params: OperationParams; warnings: OperationWarning[] }> {
    const kind = request.kind;
    const zone = await this.deps.zones!.find(domain.accountId, environment, domain.name);
    const state = zone ? await this.deps.dnssec!.find(zone.id) : null;
    const ours = (state?.keys ?? []).filter((k) => k.state !== 'retired').map((k) => k.ds.toUpperCase());
    // Given records (another operator's DS during a move, RFC 8901): published or removed as given, normalised.
    const given = 'ds' in request && request.ds ? [...new Set(request.ds.map((d) => parseDs(domain.name, d)))] : null;
    if (request.kind === 'dnssec_ds_remove') {
      const mine = given!.find((d) => ours.includes(d));
      if (mine) throw new DomainError('dnssec_ds_is_ours', { domain: domain.name, ds: mine });
      return { params: { ds: given! }, warnings: [] };
    }
    if (!state) throw new DomainError('dnssec_not_enabled', { domain: domain.name });
    if (kind === 'dnssec_ds_publish' && given) return { params: { ds: given, ownDs: given.filter((d) => ours.includes(d)) }, warnings: [] };
    if (kind === 'dnssec_ds_publish' && state.dsAtParent) throw new DomainError('operation_no_change', { domain: domain.name, kind });
    if (kind === 'dnssec_disable') {
      if (!state.dsAtParent && !(registryDs !== null && dsMatchesOurs(registryDs, ours)))
        throw new DomainError('operation_no_change', { domain: domain.name, kind });
      // Another operator signs too (their DS stays at the parent): our unsigned answers would be bogus.
      if (state.foreignKeys?.length)
        throw new DomainError('dnssec_foreign_keys_present', {
          domain: domain.name,
          key_tags: state.foreignKeys.map((k) => k.tag).join(', '),
        });
      if (state.rollover) throw new DomainError('dnssec_rollover_in_progress', { domain: domain.name, step: state.rollover.step });
      return { params: { ds: state.keys.filter((k) => k.state !== 'retired').map((k) => k.ds) }, warnings: [] };
    }
    const ds = state.keys.filter((k) => k.state === 'active').map((k) => k.ds);
    return { params: { ds, ownDs: ds }, warnings: [] };
  }

  /**
   * A delegation away from our servers while the parent holds our DS: the operation warns (dnssec_ds_at_parent)
   * and names the safe orders. A multi-signer move under way (other operators' keys in our DNSKEY set) is the
   * safe order already taken when those keys are the new operator's, so it warns only without them.
   */
  private async withDnssecWarning(
    domain: Domain,
    environment: Environment,
    effect: { params: OperationParams; warnings: OperationWarning[] },
    registryDs: readonly DsRecord[] | null,
  ): Promise<{ params: OperationParams; warnings: OperationWarning[] }> {
    const nameservers = effect.params.nameservers;
    if (!nameservers || !this.deps.zones || !this.deps.dnssec) return effect;
    const zone = await this.deps.zones.find(domain.accountId, environment, domain.name);
    const state = zone ? await this.deps.dnssec.find(zone.id) : null;
    const towards = delegationOf(nameservers);
    const ours = (state?.keys ?? []).filter((k) => k.state !== 'retired').map((k) => k.ds);
    if (towards === 'outside') {
      // Our DS at the parent: as we recorded it, or as the registry shows it (added at a previous registrar).
      const held = state?.dsAtParent === true || (registryDs !== null && dsMatchesOurs(registryDs, ours));
      if (!held || (state?.foreignKeys?.length ?? 0) > 0) return effect;
      return { ...effect, warnings: [...effect.warnings, dsAtParentWarning(domain.name)] };
    }
    // Towards us (wholly or partly) from elsewhere: a DS at the registry must name one of our keys.
    if (delegationOf(domain.nameservers) === 'ours' || !registryDs?.length) return effect;
    if (dsMatchesOurs(registryDs, ours)) return effect;
    return {
      ...effect,
      warnings: [
        ...effect.warnings,
        foreignDsWarning(
          domain.name,
          registryDs.map((d) => d.keyTag),
        ),
      ],
    };
  }

  /**
   * The DS records the registry holds for the name, when its registrar can tell (ds_set); null when it
   * cannot or does not answer — the operation then goes without this warning rather than not at all.
   */
  private async registryDs(environment: Environment, name: string): Promise<DsRecord[] | null> {
    const registrar = this.deps.environments?.get(environment).registrar;
    if (!registrar?.capabilities.has('ds_set')) return null;
    try {
      return await requireCapability(registrar, 'ds_set').dsRecords(name);
    } catch {
      return null;
    }
  }

  /** The other operator's key to take out of our DNSKEY set (hosted and registered domains alike). */
  private async foreignKeyEffect(
    domain: Domain,
    keyTag: number,
    environment: Environment,
  ): Promise<{ params: OperationParams; warnings: OperationWarning[] }> {
    const zone = await this.deps.zones!.find(domain.accountId, environment, domain.name);
    const state = zone ? await this.deps.dnssec!.find(zone.id) : null;
    if (!state) throw new DomainError('dnssec_not_enabled', { domain: domain.name });
    const key = (state.foreignKeys ?? []).find((k) => k.tag === keyTag);
    if (!key) throw new DomainError('dnssec_foreign_key_not_found', { domain: domain.name, key_tag: keyTag });
    return { params: { dnskey: [presentDnskey(key)] }, warnings: [] };
  }

  private effectOf(domain: Domain, request: OperationRequest): { params: OperationParams; warnings: OperationWarning[] } {
    switch (request.kind) {
      case 'dnssec_ds_publish':
      case 'dnssec_disable':
      case 'dnssec_foreign_key_remove':
      case 'dnssec_ds_remove':
        throw new DomainError('operation_no_change', { domain: domain.name, kind: request.kind });
      case 'nameservers': {
        const nameservers = normalizeNameservers(domain.name, request.nameservers);
        if (sameSet(nameservers, domain.nameservers))
          throw new DomainError('operation_no_change', { domain: domain.name, kind: request.kind });
        return { params: { nameservers, previous: [...domain.nameservers] }, warnings: nameserverWarnings(domain.name, nameservers) };
      }
      case 'hosted_delete':
        if (!isHosted(domain)) throw new DomainError('domain_not_hosted', { domain: domain.name });
        return { params: {}, warnings: [] };
      case 'transfer_unlock':
        if (!domain.transferLock) throw new DomainError('operation_no_change', { domain: domain.name, kind: request.kind });
        return { params: {}, warnings: [] };
      case 'labels': {
        const labels = [...new Set(request.labels.map((l) => l.trim().toLowerCase()))].sort();
        const bad = labels.find((l) => !LABEL_RE.test(l));
        if (bad !== undefined) throw new DomainError('labels_invalid', { domain: domain.name, label: bad });
        if (sameSet(labels, domain.labels)) throw new DomainError('operation_no_change', { domain: domain.name, kind: request.kind });
        return { params: { labels, previous: [...domain.labels] }, warnings: [] };
      }
    }
  }
}

/** 409 with the pending operation's link (DESIGN: a second conflicting operation on one domain). */
export const conflict = (pending: Operation): DomainError =>
  new DomainError('operation_pending', { domain: pending.domain, operation_id: pending.id, kind: pending.kind as OperationKind });
