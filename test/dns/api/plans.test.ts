import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

const run = promisify(execFile);
const has = (tool: string) => spawnSync('which', [tool]).status === 0;

/** Issue 4 through the API, answered by our own DNS server and read with dig. */
eachStore('DNS plans through the API', (kind) => {
  let api: TestApi;
  let editor: string;
  const zone = 'domivka-demo.com.ua';
  before(async function () {
    if (!has('dig')) {
      if (!process.env.CI) this.skip();
      throw new Error('dig (bind9-dnsutils) is required in CI');
    }
    api = await startApi(kind, { dns: true });
    editor = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [zone] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = editor) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  // Asynchronous: the server answers from this same process, so a blocking call would starve it.
  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(api.dnsPort), '@127.0.0.1', name, type])).stdout.trim();

  it('the seeded zone is served by our server', async () => {
    expect(await dig(zone, 'A')).to.equal('192.0.2.10');
    expect(await dig(`www.${zone}`, 'A')).to.equal('192.0.2.10');
    expect(await dig(zone, 'MX')).to.equal(`10 mail.${zone}.`);
  });

  it('lists record sets with the seed fields', async () => {
    const r = await api.call(`/v1/domains/${zone}/dns/records`, { headers: bearer(editor) });
    expect(r.status).to.equal(200);
    expect(r.body.data.find((s: any) => s.type === 'MX')).to.deep.equal({
      name: zone,
      type: 'MX',
      ttl: 3600,
      values: [`10 mail.${zone}.`],
    });
  });

  it('plan → checks → apply → the very next query sees it', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [
        { action: 'create', name: 'api', type: 'A', ttl: 300, values: ['192.0.2.44'] },
        { action: 'create', name: `_dmarc.${zone}.`, type: 'TXT', ttl: 300, values: ['v=DMARC1; p=none'] },
      ],
    });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid).to.equal(true);
    expect(plan.body.changes.map((c: any) => c.name)).to.include.members([`api.${zone}`, `_dmarc.${zone}`]);
    expect(await dig(`api.${zone}`, 'A')).to.equal(''); // a plan writes nothing
    const applied = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(applied.body.serial).to.be.greaterThan(plan.body.base_serial);
    expect(await dig(`api.${zone}`, 'A')).to.equal('192.0.2.44');
    expect((await dig(zone, 'SOA')).split(' ')[2]).to.equal(String(applied.body.serial));
    const again = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('plan_already_applied');
  });

  it('an invalid plan carries every check result in uk and en and cannot be applied', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [
        { action: 'create', name: '@', type: 'CNAME', ttl: 300, values: ['elsewhere.example.'] },
        { action: 'create', name: 'bad', type: 'A', ttl: -5, values: ['300.1.2.3'] },
      ],
    });
    expect(plan.status).to.equal(201);
    expect(plan.body.valid).to.equal(false);
    const rules = plan.body.checks.map((c: any) => c.rule);
    expect(rules).to.include('cname-at-apex');
    for (const c of plan.body.checks) expect(c.message.uk).to.not.equal(c.message.en);
    const r = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('plan_invalid');
  });

  it('apex SOA and NS belong to the service', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: '@', type: 'NS', ttl: 300, values: ['ns.evil.example.'] }],
    });
    expect(plan.body.valid).to.equal(false);
    expect(plan.body.checks.map((c: any) => c.rule)).to.include('apex-soa-ns-service-owned');
  });

  it('two plans racing for one record set cannot both win: the second is 409 plan_stale', async () => {
    const current = { ttl: 300, values: ['192.0.2.10'] };
    const a = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'update', name: 'www', type: 'A', ttl: 300, values: ['192.0.2.11'], current }],
    });
    const b = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'update', name: 'www', type: 'A', ttl: 300, values: ['192.0.2.12'], current }],
    });
    const [ra, rb] = await Promise.all([
      post(`/v1/domains/${zone}/dns/plans/${a.body.id}/apply`, {}),
      post(`/v1/domains/${zone}/dns/plans/${b.body.id}/apply`, {}),
    ]);
    expect([ra.status, rb.status].sort()).to.deep.equal([200, 409]);
    expect([ra, rb].find((r) => r.status === 409)!.body.error.code).to.equal('plan_stale');
    expect(['192.0.2.11', '192.0.2.12']).to.include(await dig(`www.${zone}`, 'A'));
  });

  it('a plan whose record set changed meanwhile is 409 plan_stale naming that set (the freshness guard, not the re-run checks)', async () => {
    const made = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'stale-guard', type: 'A', ttl: 300, values: ['192.0.2.60'] }],
    });
    expect((await post(`/v1/domains/${zone}/dns/plans/${made.body.id}/apply`, {})).status).to.equal(200);
    const current = { ttl: 300, values: ['192.0.2.60'] };
    const mine = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'update', name: 'stale-guard', type: 'A', ttl: 300, values: ['192.0.2.61'], current }],
    });
    const theirs = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'update', name: 'stale-guard', type: 'A', ttl: 300, values: ['192.0.2.62'], current }],
    });
    expect((await post(`/v1/domains/${zone}/dns/plans/${theirs.body.id}/apply`, {})).status).to.equal(200);
    const r = await post(`/v1/domains/${zone}/dns/plans/${mine.body.id}/apply`, {});
    expect(r.status, JSON.stringify(r.body)).to.equal(409);
    expect(r.body.error.code).to.equal('plan_stale');
    // The reason is the set that changed: the checks re-run on the new zone would say something else.
    expect(r.body.error.message.en).to.contain(`(stale-guard.${zone} A changed)`);
    expect(await dig(`stale-guard.${zone}`, 'A')).to.equal('192.0.2.62');
  });

  it('a whole-zone plan is 409 plan_stale when a record set was added meanwhile (it would not delete it)', async () => {
    const now = await api.call(`/v1/domains/${zone}/dns/records?limit=200`, { headers: bearer(editor) });
    const keep = now.body.data.filter(
      (s: any) => !(s.name === zone && (s.type === 'SOA' || s.type === 'NS')) && !s.name.startsWith('_acme-challenge.'),
    );
    const whole = await post(`/v1/domains/${zone}/dns/plans`, { records: keep });
    expect(whole.status, JSON.stringify(whole.body)).to.equal(201);
    expect(whole.body.valid, JSON.stringify(whole.body.checks)).to.equal(true);
    const added = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'added-meanwhile', type: 'A', ttl: 300, values: ['192.0.2.70'] }],
    });
    expect((await post(`/v1/domains/${zone}/dns/plans/${added.body.id}/apply`, {})).status).to.equal(200);
    const r = await post(`/v1/domains/${zone}/dns/plans/${whole.body.id}/apply`, {});
    expect(r.status, JSON.stringify(r.body)).to.equal(409);
    expect(r.body.error.code).to.equal('plan_stale');
    expect(r.body.error.message.en).to.contain(`(added-meanwhile.${zone} A was added)`);
    expect(await dig(`added-meanwhile.${zone}`, 'A')).to.equal('192.0.2.70');
  });

  it('an ACME value written meanwhile does not stale an unrelated plan', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'blog', type: 'A', ttl: 300, values: ['192.0.2.50'] }],
    });
    const c = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: `_acme-challenge.${zone}.`, value: 'token-one' });
    expect(c.status, JSON.stringify(c.body)).to.equal(201);
    const r = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  });

  it('ACME challenges are additive at one name, served at once, and removable', async () => {
    const acme = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [zone] })).secret;
    const one = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: zone, value: 'value-for-x' }, acme);
    const two = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: `*.${zone}`, value: 'value-for-star' }, acme);
    expect(one.status).to.equal(201);
    expect(two.body.name).to.equal(`_acme-challenge.${zone}`);
    const txt = (await dig(`_acme-challenge.${zone}`, 'TXT')).split('\n');
    expect(txt).to.include.members(['"value-for-x"', '"value-for-star"']);
    const del = await api.call(`/v1/domains/${zone}/dns/acme-challenges/${one.body.id}`, {
      method: 'DELETE',
      headers: { ...bearer(acme), 'idempotency-key': randomUUID() },
    });
    expect(del.status).to.equal(204);
    expect((await dig(`_acme-challenge.${zone}`, 'TXT')).split('\n')).to.not.include('"value-for-x"');
  });

  it('a key with only dns.acme_challenge may not touch anything else: 403 naming the change', async () => {
    const acme = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [zone] })).secret;
    const ok = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'create', name: `_acme-challenge.shop.${zone}`, type: 'TXT', ttl: 60, values: ['abc'] }] },
      acme,
    );
    expect(ok.status).to.equal(201);
    const mx = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'delete', name: '@', type: 'MX', current: { ttl: 3600, values: [`10 mail.${zone}.`] } }] },
      acme,
    );
    expect(mx.status).to.equal(403);
    expect(mx.body.error.code).to.equal('right_missing');
    expect(mx.body.error.message.en).to.contain('delete').and.contain('MX');
    const whole = await post(`/v1/domains/${zone}/dns/plans`, { records: [] }, acme);
    expect(whole.status).to.equal(403);
    expect(whole.body.error.code).to.equal('right_missing');
  });

  it('a whole-zone plan computes the diff, and more than 30% of a zone of ≥ 10 sets needs force', async () => {
    const now = await api.call(`/v1/domains/${zone}/dns/records?limit=200`, { headers: bearer(editor) });
    const keep = now.body.data.filter(
      (s: any) => !(s.name === zone && (s.type === 'SOA' || s.type === 'NS')) && !s.name.startsWith('_acme-challenge.'),
    );
    const extra = Array.from({ length: 10 }, (_, i) => ({ name: `h${i}`, type: 'A', ttl: 300, values: [`192.0.2.${100 + i}`] }));
    const grow = await post(`/v1/domains/${zone}/dns/plans`, { records: [...keep, ...extra] });
    expect(grow.body.valid, JSON.stringify(grow.body.checks)).to.equal(true);
    expect(grow.body.counts.create).to.equal(10);
    expect((await post(`/v1/domains/${zone}/dns/plans/${grow.body.id}/apply`, {})).status).to.equal(200);
    const shrink = await post(`/v1/domains/${zone}/dns/plans`, { records: keep });
    expect(shrink.body.counts.delete).to.equal(10);
    const refused = await post(`/v1/domains/${zone}/dns/plans/${shrink.body.id}/apply`, {});
    expect(refused.status).to.equal(409);
    expect(refused.body.error.code).to.equal('plan_unsafe');
    expect((await post(`/v1/domains/${zone}/dns/plans/${shrink.body.id}/apply`, { force: true })).status).to.equal(200);
    expect(await dig(`h3.${zone}`, 'A')).to.equal('');
  });

  it('exports a zone file that kzonecheck and named-checkzone accept, and imports one back', async function () {
    const file = await api.call(`/v1/domains/${zone}/dns/zone`, { headers: bearer(editor) });
    expect(file.status).to.equal(200);
    expect(file.headers.get('content-type')).to.contain('text/dns');
    const dir = mkdtempSync(join(tmpdir(), 'zone-'));
    writeFileSync(join(dir, 'z'), file.body);
    for (const [tool, args] of [
      ['kzonecheck', ['-o', zone, join(dir, 'z')]],
      ['named-checkzone', [zone, join(dir, 'z')]],
    ] as const) {
      if (!has(tool)) {
        if (process.env.CI) throw new Error(`${tool} is required in CI`);
        continue;
      }
      const r = spawnSync(tool, [...args], { encoding: 'utf8' });
      expect(r.status, `${tool}: ${r.stdout}${r.stderr}`).to.equal(0);
    }
    const imported = await post(`/v1/domains/${zone}/dns/plans`, { zone_file: file.body });
    expect(imported.status).to.equal(201);
    expect(imported.body.counts.create + imported.body.counts.update + imported.body.counts.delete).to.equal(0);
  });

  it('reading needs dns.read; a domain.read key is refused', async () => {
    const reader = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [zone] })).secret;
    const read = await api.call(`/v1/domains/${zone}/dns/records`, { headers: bearer(reader) });
    expect(read.status).to.equal(403);
    expect(read.body.error.code).to.equal('right_missing');
    const plan = await post(`/v1/domains/${zone}/dns/plans`, { changes: [] }, reader);
    expect(plan.status).to.equal(403);
    expect(plan.body.error.code).to.equal('right_missing');
  });
});
