import type { DnssecDeps } from './dnssec-deps.js';
import { REFRESH_AFTER_S } from '../dns/zone/zone-signing.js';
import { zoneSigningOf } from './dnssec-state.js';
import { ZoneChanged } from '../dns/zone/zone-service.js';

/**
 * The worker's signature refresh: a signed zone whose signature window is half used starts a new one and
 * takes a new serial. The new version is signed like any other, once, by the DNS signer (the process that
 * runs the DNS; adapters/dns/embedded/README.md "DNSSEC: one signer"), which stores the signatures before
 * any DNS worker serves them — reached through the publish below when this process runs the DNS, or the
 * change feed the commit announces on when it does not — and the secondaries transfer the fresh
 * signatures. This use case opens no key. Real time only: the clock here is never the sandbox clock.
 */
export class RefreshSignatures {
  constructor(private readonly deps: DnssecDeps) {}

  async execute(limit = 100): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.dnssec.windowsBefore(new Date(now.getTime() - REFRESH_AFTER_S * 1000), limit);
    let done = 0;
    for (const d of due) {
      try {
        const zone = await this.deps.uow.transaction(async () => {
          const z = await this.deps.zones.findById(d.zoneId);
          const state = await this.deps.dnssec.find(d.zoneId);
          if (!z || !state) return null;
          await this.deps.dnssec.setWindow(d.zoneId, now);
          const next = await this.deps.zoneService.commit(z, [], []);
          return { ...next, signing: zoneSigningOf({ ...state, windowStart: now }) };
        });
        if (zone) {
          await this.deps.zoneService.publishOrReport(zone);
          done++;
        }
      } catch (err) {
        if (!(err instanceof ZoneChanged)) throw err; // another write won: the next run tries again
      }
    }
    return done;
  }
}
