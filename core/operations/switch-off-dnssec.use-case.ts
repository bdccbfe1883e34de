import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import type { DisableDnssec } from '../dnssec/disable-dnssec.use-case.js';
import { withParentDs, type DnssecView } from '../dnssec/dnssec-view.js';
import { dsAtParentOf, parentDs } from '../dnssec/parent-ds.js';
import type { DnssecRepository } from '../dnssec/ports/dnssec-repository.port.js';
import { isHosted } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import type { ApiKey } from '../kernel/caller.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { OperationView } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';
import type { RequestOperation } from './request-operation.use-case.js';

/** What SwitchOffDnssec is built from (one object, named, instead of positions). */
export interface SwitchOffDnssecDeps {
  readonly zones: Pick<ZoneRepository, 'find'>;
  readonly dnssec: Pick<DnssecRepository, 'find'>;
  readonly domains: Pick<DomainRepository, 'find'>;
  readonly disable: Pick<DisableDnssec, 'execute'>;
  readonly request: Pick<RequestOperation, 'execute'>;
  /** A DS publication still pending refuses an immediate switch-off. */
  readonly operations: Pick<OperationRepository, 'pendingOn'>;
  /** The registries: what the parent holds is read there, not from our record of what we sent. */
  readonly registrars?: RegistrarEnvironments;
}

/**
 * DELETE /v1/domains/{domain}/dnssec (dns.dnssec, class 3; DESIGN: DNSSEC). While the parent holds none of
 * our DS (as the registry tells; our record when it cannot), no validator depends on our signatures: off at
 * once (200). With our DS at the parent, stopping first would make every validating resolver answer SERVFAIL,
 * so it is the class 3 operation `dnssec_disable` (202): the DS leaves the registry, and signing stops once
 * its TTL has passed (RFC 6781 §4.3.1 in reverse). A zone we host for a domain registered elsewhere cannot
 * have its DS removed by us: 409 dnssec_ds_at_parent, with the steps.
 *
 * A DS publication still pending (dnssec_ds_publish) refuses the immediate switch-off with 409
 * dnssec_ds_publish_pending rather than cancelling it: it may be another owner's request, waiting for a
 * confirmation, and the person switching off decides about it in the open (cancel it, or let it take effect
 * and then switch off the safe way). Activation checks again anyway (a race between the two).
 *
 * The registry is asked before any transaction (the route is phased), so a slow registry holds no database
 * lock; what it answered is judged again under the zone's lock (DisableDnssec) or in the request's phase.
 */
export class SwitchOffDnssec {
  constructor(private readonly deps: SwitchOffDnssecDeps) {}

  async execute(
    key: ApiKey,
    domainInput: string,
    checkpoints: Checkpoints | null = null,
  ): Promise<{ off: DnssecView } | { operation: OperationView }> {
    const domain = normalizeDomain(domainInput);
    // A retry of a request that recorded its operation before its answer was stored: that operation.
    if (checkpoints?.last)
      return { operation: await this.deps.request.execute({ kind: 'key', key }, { kind: 'dnssec_disable', domain }, checkpoints) };
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    const state = zone ? await this.deps.dnssec.find(zone.id) : null;
    const registrars = this.deps.registrars;
    const held = registrars ? await parentDs({ domains: this.deps.domains, registrars }, key.accountId, key.environment, domain) : null;
    const registered = await this.deps.domains.find(key.accountId, key.environment, domain);
    if (!state || !(state.dsAtParent || dsAtParentOf(state, held))) {
      const pending = state && registered ? await this.deps.operations.pendingOn(registered.id) : null;
      if (pending?.kind === 'dnssec_ds_publish') throw new DomainError('dnssec_ds_publish_pending', { domain, operation_id: pending.id });
      const off = await this.deps.disable.execute(key, domain);
      // Already off with a DS still at the parent (a stray one): shown, so it can be removed.
      return { off: held === null || off.enabled ? off : withParentDs(off, null, held) };
    }
    if (!registered || isHosted(registered)) throw new DomainError('dnssec_ds_at_parent', { domain });
    return { operation: await this.deps.request.execute({ kind: 'key', key }, { kind: 'dnssec_disable', domain }, checkpoints) };
  }
}
