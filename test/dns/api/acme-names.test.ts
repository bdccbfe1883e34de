import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { domainToASCII } from 'node:url';
import { promisify } from 'node:util';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

const run = promisify(execFile);
const has = (tool: string) => spawnSync('which', [tool]).status === 0;

/** ACME challenge owner names are stored as a plan would store them: A-labels that pass every name rule. */
eachStore('DNS: ACME challenge names are stored as A-labels that can be served', (kind) => {
  let api: TestApi;
  let key: string;
  const zone = 'domivka-demo.dev';
  before(async function () {
    if (!has('dig')) {
      if (!process.env.CI) this.skip();
      throw new Error('dig (bind9-dnsutils) is required in CI');
    }
    api = await startApi(kind, { dns: true });
    key = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.read', 'dns.acme_challenge'], domains: [zone] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });
  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(api.dnsPort), '@127.0.0.1', name, type])).stdout.trim();
  const names = async () => (await api.system.store.zones.find(api.demo.accountId, 'test', zone))!.recordSets.map((s) => s.name);
  const exportPasses = async () => {
    const file = await api.call(`/v1/domains/${zone}/dns/zone`, { headers: bearer(key) });
    const dir = mkdtempSync(join(tmpdir(), 'zone-'));
    writeFileSync(join(dir, 'z'), file.body as string);
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
    return file.body as string;
  };

  it('an internationalised host is stored and answered as its A-label, and the export passes kzonecheck', async () => {
    const ascii = `_acme-challenge.${domainToASCII(`єпт.${zone}`)}`;
    const c = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: `_acme-challenge.єпт.${zone}`, value: 'idn-token' });
    expect(c.status, JSON.stringify(c.body)).to.equal(201);
    expect(c.body.name).to.equal(ascii);
    expect(await names()).to.include(ascii);
    expect((await names()).some((n) => /[^\x00-\x7f]/.test(n))).to.equal(false);
    expect(await dig(ascii, 'TXT')).to.equal('"idn-token"');
    expect(await exportPasses()).to.contain(`_acme-challenge.xn--`);
    // Whatever is listed, a plan can delete.
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'delete', name: ascii, type: 'TXT', current: { ttl: 60, values: ['idn-token'] } }],
    });
    expect(plan.body.valid, JSON.stringify(plan.body.checks)).to.equal(true);
    expect((await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {})).status).to.equal(200);
    expect(await names()).to.not.include(ascii);
  });

  it('48 × "𝐚" is the 48-octet A-label "a…a", not a 192-octet label', async () => {
    const host = `${'𝐚'.repeat(48)}.${zone}`;
    const c = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: host, value: 'bold-a' });
    expect(c.status, JSON.stringify(c.body)).to.equal(201);
    expect(c.body.name).to.equal(`_acme-challenge.${'a'.repeat(48)}.${zone}`);
    expect(await dig(c.body.name, 'TXT')).to.equal('"bold-a"');
    await exportPasses();
  });

  it('a name that cannot be served is refused (validation_failed), never stored', async () => {
    // A host that is a valid domain but, with the prefix, is over 253 characters.
    const labels = Array.from({ length: 4 }, (_, i) => `${String(i)}${'h'.repeat(57)}`).join('.');
    const host = `${labels}.${zone}`;
    expect(host.length).to.be.at.most(253);
    expect(`_acme-challenge.${host}`.length).to.be.above(253);
    const before = await names();
    const c = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: host, value: 'too-long' });
    expect(c.status).to.equal(422);
    expect(c.body.error.code).to.equal('validation_failed');
    expect(await names()).to.deep.equal(before);
  });
});
