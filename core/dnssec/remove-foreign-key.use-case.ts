import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { zoneSigningOf, type DnssecState } from './dnssec-state.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';
import { presentDnskey, withoutForeignKeys } from './foreign-keys.js';

/**
 * An owner in the console takes another operator's key out of our DNSKEY set at once: a human's act
 * (signed in within the last minutes, the console asks), where a key only requests the class 3 operation
 * dnssec_foreign_key_remove. It is how an owner answers the notice of a key they never added: a stolen
 * key's holder could otherwise sign answers for the zone for the 24 hours the operation waits.
 */
export class RemoveForeignDnskey {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(person: ApiKey, domainInput: string, tag: number): Promise<DnssecView> {
    if (!person.person) throw new DomainError('human_only', { console: '/console/' });
    const domain = normalizeDomain(domainInput);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const done = await this.deps.uow.transaction(() => this.once(person, domain, tag));
        await this.deps.zoneService.publish(done.zone);
        return dnssecView(done.state, signingWindow(done.state.windowStart));
      } catch (err) {
        if (err instanceof ZoneChanged) continue;
        throw err;
      }
    }
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }

  private async once(person: ApiKey, domain: string, tag: number): Promise<{ state: DnssecState; zone: StoredZone }> {
    await this.deps.zones.lock(person.accountId, person.environment, domain);
    const zone = await this.deps.zones.find(person.accountId, person.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    if (!state) throw new DomainError('dnssec_not_enabled', { domain });
    const key = (state.foreignKeys ?? []).find((k) => k.tag === tag);
    if (!key) throw new DomainError('dnssec_foreign_key_not_found', { domain, key_tag: tag });
    const { next } = withoutForeignKeys(state, [presentDnskey(key)]);
    await this.deps.dnssec.save(next);
    const committed = await this.deps.zoneService.commit(zone, [], []);
    await this.deps.events.record(
      'dns.dnssec_foreign_key_removed',
      {
        accountId: person.accountId,
        environment: person.environment,
        subject: `domain:${domain}`,
        actor: actorOf(person),
        occurredAt: this.deps.clock.now(),
      },
      { domain, key_tag: tag, serial: committed.serial },
    );
    return { state: next, zone: { ...committed, signing: zoneSigningOf(next) } };
  }
}
