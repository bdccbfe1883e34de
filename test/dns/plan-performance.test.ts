import { expect } from 'chai';
import { applyChanges, buildPlan } from '../../core/dns/plans/plan-builder.js';
import { apex, bigZoneRecords, ORIGIN } from './zone-fixtures.js';

/**
 * The plan core at size: plan + every check + apply in memory, for a whole zone of n sets created from
 * nothing, and for one change in a zone of n sets, must be right at 100k. Its speed is judged by
 * `npm run bench:plan` against a reference measured in the same run, never here: a time budget in a test
 * fails on a loaded machine (it did, 6.7 s against 6 s with two test processes and other work). The printed
 * times are for the reader only.
 */
describe('plans at size (1k, 10k, 100k record sets; prints the times, asserts none)', function () {
  this.timeout(120_000);

  it('plans, checks and applies 1k, 10k and 100k record sets, and one change in each', () => {
    const times: Record<number, { create: number; oneChange: number }> = {};
    buildPlan({ origin: ORIGIN, current: apex(), input: { records: bigZoneRecords(2000) } }); // warm the JIT
    for (const n of [1_000, 10_000, 100_000]) {
      const records = bigZoneRecords(n);
      const t0 = performance.now();
      const plan = buildPlan({ origin: ORIGIN, current: apex(), input: { records } });
      const zone = applyChanges(apex(), plan.changes);
      const t1 = performance.now();
      expect(plan.valid, JSON.stringify(plan.checks.slice(0, 3))).to.equal(true);
      expect(plan.counts.create).to.equal(n);
      expect(plan.checks).to.deep.equal([]);
      expect(zone).to.have.length(n + 2);

      const t2 = performance.now();
      const one = buildPlan({
        origin: ORIGIN,
        current: zone,
        input: {
          changes: [
            { action: 'update', name: 'h0', type: 'A', ttl: 60, values: ['10.9.9.9'], current: { ttl: 300, values: ['10.0.0.0'] } },
          ],
        },
      });
      const changed = applyChanges(zone, one.changes);
      const t3 = performance.now();
      expect(one.valid).to.equal(true);
      expect(one.counts).to.include({ create: 0, update: 1, delete: 0 });
      expect(changed).to.have.length(n + 2);
      expect(changed.find((r) => r.name === `h0.${ORIGIN}` && r.type === 'A')).to.deep.include({ ttl: 60, values: ['10.9.9.9'] });
      times[n] = { create: t1 - t0, oneChange: t3 - t2 };
    }
    const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
    console.log(
      `      plan+checks+apply (whole zone from nothing / one change in the zone): ${Object.entries(times)
        .map(([n, t]) => `${Number(n) / 1000}k ${fmt(t.create)} / ${fmt(t.oneChange)}`)
        .join('; ')}`,
    );
  });
});
