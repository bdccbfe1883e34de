import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ZoneService } from '../../../core/dns/zone/zone-service.js';
import { TOKENS } from '../../../src/tokens.js';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

/**
 * Concurrent writes of one zone: a write that loses the race to other writes of the zone at every
 * attempt answers 409 zone_busy with Retry-After — its own code, not the money operations'
 * operation_in_progress — and is not kept by the idempotency store, so the same key succeeds on retry.
 */
eachStore('DNS: concurrent writes of one zone (zone_busy)', (kind) => {
  let api: TestApi;
  let editor: string;
  const zone = 'domivka-demo.com.ua';
  /** Names whose commits lose the race while contended: the store's compare-and-set sees a serial moved on. */
  const contended = new Set<string>();

  before(async () => {
    api = await startApi(kind);
    editor = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [zone] })).secret;
    const zones = api.system.get(TOKENS.ZoneService) as ZoneService;
    const commit = zones.commit.bind(zones);
    // Another writer got in first, every time: the real commit against the store, from a serial that is
    // no longer the zone's (what a concurrent write leaves behind), so the store refuses it.
    zones.commit = (z, upserts, deletes) =>
      commit(upserts.some((s) => contended.has(s.name)) ? { ...z, serial: z.serial - 1 } : z, upserts, deletes);
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, key: string = randomUUID()) =>
    api.call(path, { method: 'POST', headers: { ...bearer(editor), 'idempotency-key': key }, json });
  const plan = async (name: string) => {
    const r = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name, type: 'A', ttl: 300, values: ['192.0.2.77'] }],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };

  it('regression: two concurrent applies on one zone, one always losing the race: 200 and 409 zone_busy with Retry-After; the same key then succeeds', async () => {
    const [a, b] = [await plan('busy-a'), await plan('busy-b')];
    contended.add(`busy-b.${zone}`);
    const keyB = randomUUID();
    const [ra, rb] = await Promise.all([
      post(`/v1/domains/${zone}/dns/plans/${a}/apply`, {}),
      post(`/v1/domains/${zone}/dns/plans/${b}/apply`, {}, keyB),
    ]);
    expect(ra.status, JSON.stringify(ra.body)).to.equal(200);
    expect(rb.status, JSON.stringify(rb.body)).to.equal(409);
    expect(rb.body.error.code).to.equal('zone_busy');
    expect(rb.body.error.message.en).to.equal(
      `The zone ${zone} is being changed by other requests; this change was not written. Retry in 1 s with the same Idempotency-Key.`,
    );
    expect(rb.body.error.message.uk).to.contain(`Зону ${zone}`);
    expect(JSON.stringify(rb.body)).to.not.match(/domain_id|money|грошов/);
    expect(Number(rb.headers.get('retry-after'))).to.be.at.least(1);
    // Not stored: once the zone is quiet, the same Idempotency-Key applies the plan.
    contended.clear();
    const again = await post(`/v1/domains/${zone}/dns/plans/${b}/apply`, {}, keyB);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.serial).to.be.greaterThan(0);
    const records = await api.call(`/v1/domains/${zone}/dns/records`, { headers: bearer(editor) });
    expect(records.body.data.map((s: { name: string }) => s.name)).to.include.members([`busy-a.${zone}`, `busy-b.${zone}`]);
  });

  it('an ACME challenge write that always loses the race is 409 zone_busy too', async () => {
    contended.add(`_acme-challenge.${zone}`);
    try {
      const r = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: `_acme-challenge.${zone}`, value: 'x'.repeat(43) });
      expect(r.status, JSON.stringify(r.body)).to.equal(409);
      expect(r.body.error.code).to.equal('zone_busy');
      expect(r.headers.get('retry-after')).to.not.equal(null);
    } finally {
      contended.clear();
    }
  });
});
