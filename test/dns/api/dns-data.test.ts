import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanSteps } from '../../../core/dns/types/scan.js';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

const has = (tool: string) => spawnSync('which', [tool]).status === 0;

/** TXT octets through the store on both engines; rights judged before any value is parsed. */
eachStore('DNS data: TXT octets stored exactly, refusals by right before parsing', (kind) => {
  let api: TestApi;
  let editor: string;
  let acmeOnly: string;
  const zone = 'domivka-demo.dev';
  before(async () => {
    api = await startApi(kind);
    editor = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.read'], domains: [zone] })).secret;
    acmeOnly = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [zone] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = editor) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });

  it('an ACME-only key is refused (403 right_missing) before any value of its plan is parsed', async () => {
    const value = `0 issue "${' '.repeat(4000)}x"`;
    const before = scanSteps.n;
    const r = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'create', name: 'www', type: 'CAA', ttl: 300, values: [value, value, value] }] },
      acmeOnly,
    );
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('right_missing');
    expect(scanSteps.n - before, 'characters scanned while refusing').to.equal(0);
    // Its own kind of change still plans.
    const ok = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'create', name: '_acme-challenge.www', type: 'TXT', ttl: 60, values: ['token'] }] },
      acmeOnly,
    );
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
  });

  it('TXT text with NUL, non-UTF-8 octets and long UTF-8 is stored, listed, exported and imported exactly', async () => {
    // The API refuses U+0000 in any JSON string (no-nul), so the NUL comes from a zone file's \000.
    const values = ['nul\u0000inside', 'raw \udcff\udc80 octets', 'ї'.repeat(300)];
    const current = (await api.call(`/v1/domains/${zone}/dns/zone`, { headers: bearer(editor) })).body as string;
    const zoneFile = `${current}octets 300 IN TXT "nul\\000inside"\noctets 300 IN TXT "raw \\255\\128 octets"\noctets 300 IN TXT "${'ї'.repeat(300)}"\n`;
    const plan = await post(`/v1/domains/${zone}/dns/plans`, { zone_file: zoneFile });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid, JSON.stringify(plan.body.checks)).to.equal(true);
    expect((await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {})).status).to.equal(200);
    const stored = (await api.system.store.zones.find(api.demo.accountId, 'test', zone))!.recordSets.find(
      (s) => s.name === `octets.${zone}`,
    )!;
    expect([...stored.values].sort()).to.deep.equal([...values].sort());
    const listed = await api.call(`/v1/domains/${zone}/dns/records`, { headers: bearer(editor) });
    const set = (listed.body.records ?? listed.body.data ?? listed.body).find?.((s: { name: string }) => s.name === `octets.${zone}`);
    if (set) expect([...set.values].sort()).to.deep.equal([...values].sort());
    const file = (await api.call(`/v1/domains/${zone}/dns/zone`, { headers: bearer(editor) })).body as string;
    expect(file).to.contain('"nul\\000inside"');
    expect(file).to.contain('"raw \\255\\128 octets"');
    if (has('kzonecheck')) {
      const dir = mkdtempSync(join(tmpdir(), 'zone-'));
      writeFileSync(join(dir, 'z'), file);
      const r = spawnSync('kzonecheck', ['-o', zone, join(dir, 'z')], { encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).to.equal(0);
    }
    const imported = await post(`/v1/domains/${zone}/dns/plans`, { zone_file: file });
    expect(imported.status).to.equal(201);
    expect(
      imported.body.counts.create + imported.body.counts.update + imported.body.counts.delete,
      JSON.stringify(imported.body.changes),
    ).to.equal(0);
  });

  it('a lone surrogate that stands for no octet is refused (txt-octets), not turned into U+FFFD', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'lone', type: 'TXT', ttl: 300, values: ['bad \ud800 here'] }],
    });
    expect(plan.body.valid).to.equal(false);
    expect(plan.body.checks.map((c: { rule: string }) => c.rule)).to.include('txt-octets');
  });

  it('a zone-file CAA value beyond 4096 characters is refused (value-length), not parsed', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      zone_file: `$ORIGIN ${zone}.\n@ 300 IN CAA 0 issue "${' '.repeat(100_000)}"\n`,
    });
    expect(plan.status).to.equal(201);
    expect(plan.body.valid).to.equal(false);
    expect(plan.body.checks.map((c: { rule: string }) => c.rule)).to.include('value-length');
  });
});
