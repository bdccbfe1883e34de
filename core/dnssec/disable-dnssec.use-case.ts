import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';
import type { DnssecState } from './dnssec-state.js';
import { signingWindow } from '../dns/zone/zone-signing.js';

/**
 * Stops signing at once (DELETE /v1/domains/{domain}/dnssec through SwitchOffDnssec): only while the parent
 * holds no DS, so no validator depends on our signatures. With a DS at the parent, stopping first would
 * make every validating resolver answer SERVFAIL for the domain: refused (409 dnssec_ds_at_parent) — the
 * DS must go first, then its TTL pass (RFC 6781 §4.3.1 in reverse: the dnssec_disable operation). While
 * that wait runs ("disabling") the zone stays signed and the state is answered as it is.
 */
export class DisableDnssec {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(key: ApiKey, domainInput: string): Promise<DnssecView> {
    const domain = normalizeDomain(domainInput);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const done = await this.deps.uow.transaction(() => this.once(key, domain));
        if ('waiting' in done) return dnssecView(done.waiting, signingWindow(done.waiting.windowStart));
        if (done.zone) await this.deps.zoneService.publish(done.zone);
        return dnssecView(null, null);
      } catch (err) {
        if (err instanceof ZoneChanged) continue;
        throw err;
      }
    }
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }

  private async once(key: ApiKey, domain: string): Promise<{ zone: StoredZone | null } | { waiting: DnssecState }> {
    await this.deps.zones.lock(key.accountId, key.environment, domain);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    if (!state) return { zone: null };
    if (state.dsAtParent) throw new DomainError('dnssec_ds_at_parent', { domain });
    // Signed together with another operator: its DS is at the parent, and our unsigned answers would be bogus.
    if (state.foreignKeys?.length)
      throw new DomainError('dnssec_foreign_keys_present', { domain, key_tags: state.foreignKeys.map((k) => k.tag).join(', ') });
    // The DS left the parent moments ago: caches may still hold it until stopSigningAt.
    if (state.status === 'disabling') return { waiting: state };
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
    return { zone: unsigned };
  }
}
