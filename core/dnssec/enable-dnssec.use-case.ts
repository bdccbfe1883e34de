import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import { CSK_FLAGS, dnskeyRdata, isAlgorithm, keyTag, type DnssecAlgorithm } from './dnskey.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { zoneSigningOf, type DnssecKey, type DnssecState } from './dnssec-state.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';

/**
 * PUT /v1/domains/{domain}/dnssec {"algorithm"} (dns.dnssec, class 3): signs the zone at once with a new
 * CSK. The same algorithm again changes nothing. Another algorithm while the parent holds no DS replaces
 * the key at once (no validator trusts the zone yet, so nothing can break); with a DS at the parent it needs
 * a staged algorithm rollover (RFC 6781 §4.1.4), refused until that exists.
 */
export class EnableDnssec {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(key: ApiKey, domainInput: string, algorithm: number): Promise<DnssecView> {
    const domain = normalizeDomain(domainInput);
    if (!isAlgorithm(algorithm)) throw new DomainError('dnssec_algorithm_unsupported', { algorithm: String(algorithm) });
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const { state, zone } = await this.deps.uow.transaction(() => this.once(key, domain, algorithm));
        if (zone) await this.deps.zoneService.publish(zone);
        return dnssecView(state, signingWindow(state.windowStart));
      } catch (err) {
        if (err instanceof ZoneChanged) continue;
        throw err;
      }
    }
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }

  private async once(key: ApiKey, domain: string, algorithm: DnssecAlgorithm): Promise<{ state: DnssecState; zone: StoredZone | null }> {
    await this.deps.zones.lock(key.accountId, key.environment, domain);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const current = await this.deps.dnssec.find(zone.id);
    if (current && current.algorithm === algorithm) return { state: current, zone: null };
    if (current && current.dsAtParent)
      throw new DomainError('dnssec_algorithm_rollover_unavailable', { domain, algorithm: String(algorithm) });
    const now = this.deps.clock.now();
    const k = this.deps.crypto.generate(algorithm);
    const rdata = dnskeyRdata(CSK_FLAGS, algorithm, k.publicKey);
    const tag = keyTag(rdata);
    const newKey: DnssecKey = {
      id: this.deps.random.id(),
      tag,
      algorithm,
      flags: CSK_FLAGS,
      role: 'csk',
      state: 'active',
      publicKey: k.publicKey,
      sealedPrivateKey: this.deps.box.seal(k.privateKey),
      ds: `${tag} ${algorithm} 2 ${this.deps.crypto.dsDigest(domain, rdata)}`,
      createdAt: now,
    };
    const state: DnssecState = {
      zoneId: zone.id,
      domain,
      algorithm,
      status: 'signed',
      dsAtParent: false,
      windowStart: now,
      enabledAt: current?.enabledAt ?? now,
      keys: [newKey],
    };
    await this.deps.dnssec.save(state);
    const next = await this.deps.zoneService.commit(zone, [], []);
    await this.deps.events.record(
      'dns.dnssec_enabled',
      { accountId: key.accountId, environment: key.environment, subject: `domain:${domain}`, actor: actorOf(key), occurredAt: now },
      { domain, algorithm, key_tag: tag, ds: [newKey.ds], serial: next.serial },
    );
    return { state, zone: { ...next, signing: zoneSigningOf(state) } };
  }
}
