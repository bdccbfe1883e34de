import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged } from '../dns/zone/zone-service.js';
import { isAlgorithm, type DnssecAlgorithm } from './dnskey.js';
import { DEFAULT_DNSSEC_TIMINGS } from './dnssec-timings.js';
import { newCsk } from './new-key.js';
import { startRollover } from './rollover.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { zoneSigningOf, type DnssecKey, type DnssecState } from './dnssec-state.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';

/**
 * PUT /v1/domains/{domain}/dnssec {"algorithm"} (dns.dnssec, class 3): signs the zone at once with a new
 * CSK. The same algorithm again changes nothing. Another algorithm starts an algorithm rollover (RFC 6781
 * §4.1.4, rollover.ts), whether or not the parent holds our DS yet: a DS may be on its way (a pending
 * dnssec_ds_publish, or an owner copying it to another registrar), and the staged rollover is safe either way.
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
    const rolling = current?.rollover;
    if (current && rolling && rolling.newKeyId && current.keys.find((k) => k.id === rolling.newKeyId)?.algorithm === algorithm)
      return { state: current, zone: null };
    if (current && !rolling && current.algorithm === algorithm) return { state: current, zone: null };
    if (rolling) throw new DomainError('dnssec_rollover_in_progress', { domain, step: rolling.step });
    if (current?.status === 'disabling') throw new DomainError('dnssec_rollover_in_progress', { domain, step: 'disabling' });
    // Another operator signs with the same algorithm (RFC 8901): a new one here would break their answers.
    if (current?.foreignKeys?.length)
      throw new DomainError('dnssec_foreign_keys_present', { domain, key_tags: current.foreignKeys.map((k) => k.tag).join(', ') });
    const now = this.deps.clock.now();
    const scheduleNow = this.deps.time ? await this.deps.time.now(key.accountId, key.environment) : now;
    const timings = this.deps.timings ?? DEFAULT_DNSSEC_TIMINGS;
    const newKey: DnssecKey = { ...newCsk(this.deps, domain, algorithm, now), publishedAt: scheduleNow, activeAt: scheduleNow };
    const tag = newKey.tag;
    if (current) {
      // Another algorithm on a signed zone: RFC 6781 §4.1.4, step by step (the worker's DNSSEC pass).
      const zoneTtl = zone.recordSets.reduce((m, s) => Math.max(m, s.ttl), 0);
      const state = { ...startRollover(current, newKey, 'algorithm', scheduleNow, timings, zoneTtl), nextRolloverAt: null };
      await this.deps.dnssec.save(state);
      const next = await this.deps.zoneService.commit(zone, [], []);
      const r = state.rollover!;
      await this.deps.events.record(
        'dns.dnssec_rollover',
        { accountId: key.accountId, environment: key.environment, subject: `domain:${domain}`, actor: `key:${key.id}`, occurredAt: now },
        {
          domain,
          kind: 'algorithm',
          step: r.step,
          old_key_tag: r.oldKeyTag,
          new_key_tag: r.newKeyTag,
          algorithm,
          next_step_at: r.nextAt.toISOString(),
        },
      );
      return { state, zone: { ...next, signing: zoneSigningOf(state) } };
    }
    const state: DnssecState = {
      zoneId: zone.id,
      domain,
      algorithm,
      status: 'signed',
      dsAtParent: false,
      windowStart: now,
      enabledAt: now,
      keys: [newKey],
      nextRolloverAt: new Date(scheduleNow.getTime() + timings.cskLifetimeS * 1000),
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
