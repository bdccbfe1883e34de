import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { FOREIGN_KEY_LIMIT, zoneSigningOf, type DnssecState, type ForeignDnskey } from './dnssec-state.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';
import { checkForeignKey, parseDnskey } from './foreign-keys.js';

/**
 * POST /v1/domains/{domain}/dnssec/foreign-keys {"dnskey", "note"?} (dns.dnssec, class 3): another
 * operator's DNSKEY joins our DNSKEY set, signed by our key (RFC 8901 model 2), so a signed zone moves
 * between operators without an insecure gap. Adding a key takes nothing off the internet (validators
 * gain a key they may use); it does let the holder of its private key sign answers for the zone, so
 * every owner is told. The same key again changes nothing (200). Removing one is the class 3 operation
 * `dnssec_foreign_key_remove`: resolvers that cached our DNSKEY set would refuse the other operator's
 * answers while it still serves the zone.
 */
export class AddForeignDnskey {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(
    key: ApiKey,
    domainInput: string,
    input: { dnskey: string; note?: string | null },
  ): Promise<{ added: boolean; view: DnssecView }> {
    const domain = normalizeDomain(domainInput);
    const parsed = parseDnskey(domain, input.dnskey);
    const note = input.note?.trim() ? input.note.trim().slice(0, 200) : null;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const done = await this.deps.uow.transaction(() => this.once(key, domain, parsed, note));
        if (done.zone) await this.deps.zoneService.publish(done.zone);
        return { added: done.zone !== null, view: dnssecView(done.state, signingWindow(done.state.windowStart)) };
      } catch (err) {
        if (err instanceof ZoneChanged) continue;
        throw err;
      }
    }
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }

  private async once(
    key: ApiKey,
    domain: string,
    parsed: ReturnType<typeof parseDnskey>,
    note: string | null,
  ): Promise<{ state: DnssecState; zone: StoredZone | null }> {
    await this.deps.zones.lock(key.accountId, key.environment, domain);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    if (!state) throw new DomainError('dnssec_not_enabled', { domain });
    const foreign = state.foreignKeys ?? [];
    if (foreign.some((k) => k.publicKey === parsed.publicKey && k.flags === parsed.flags && k.algorithm === parsed.algorithm))
      return { state, zone: null };
    if (state.rollover) throw new DomainError('dnssec_rollover_in_progress', { domain, step: state.rollover.step });
    if (state.status === 'disabling') throw new DomainError('dnssec_rollover_in_progress', { domain, step: 'disabling' });
    checkForeignKey(this.deps.crypto, state, parsed);
    if (foreign.length >= FOREIGN_KEY_LIMIT) throw new DomainError('dnssec_foreign_key_limit', { domain, limit: FOREIGN_KEY_LIMIT });
    const now = this.deps.clock.now();
    const added: ForeignDnskey = {
      tag: parsed.tag,
      algorithm: parsed.algorithm,
      flags: parsed.flags,
      publicKey: parsed.publicKey,
      addedAt: now,
      note,
    };
    const next: DnssecState = { ...state, foreignKeys: [...foreign, added] };
    await this.deps.dnssec.save(next);
    const committed = await this.deps.zoneService.commit(zone, [], []);
    await this.deps.events.record(
      'dns.dnssec_foreign_key_added',
      { accountId: key.accountId, environment: key.environment, subject: `domain:${domain}`, actor: actorOf(key), occurredAt: now },
      { domain, key_tag: added.tag, algorithm: added.algorithm, flags: added.flags, note, serial: committed.serial },
    );
    return { state: next, zone: { ...committed, signing: zoneSigningOf(next) } };
  }
}
