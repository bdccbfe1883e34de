import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';

/**
 * DELETE /v1/domains/{domain}/dnssec (dns.dnssec, class 3): while the parent holds no DS, no validator
 * depends on our signatures, so signing stops at once (200). With a DS at the parent, stopping first would
 * make every validating resolver answer SERVFAIL for the domain: refused (409 dnssec_ds_at_parent) — the
 * DS must go first, then its TTL pass (RFC 6781 §4.3.1 in reverse).
 */
export class DisableDnssec {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(key: ApiKey, domainInput: string): Promise<DnssecView> {
    const domain = normalizeDomain(domainInput);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const zone = await this.deps.uow.transaction(() => this.once(key, domain));
        if (zone) await this.deps.zoneService.publish(zone);
        return dnssecView(null, null);
      } catch (err) {
        if (err instanceof ZoneChanged) continue;
        throw err;
      }
    }
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }

  private async once(key: ApiKey, domain: string): Promise<StoredZone | null> {
    await this.deps.zones.lock(key.accountId, key.environment, domain);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    if (!state) return null;
    if (state.dsAtParent) throw new DomainError('dnssec_ds_at_parent', { domain });
    await this.deps.dnssec.remove(zone.id);
    const next = await this.deps.zoneService.commit(zone, [], []);
    await this.deps.events.record(
      'dns.dnssec_disabled',
      {
        accountId: key.accountId,
        environment: key.environment,
        subject: `domain:${domain}`,
        actor: actorOf(key),
        occurredAt: this.deps.clock.now(),
      },
      { domain, serial: next.serial },
    );
    // The zone as read carried its signing; served from now on without it.
    const { signing: _unsigned, ...unsigned } = next;
    void _unsigned;
    return unsigned;
  }
}
