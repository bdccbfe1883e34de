import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID, X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TOKENS } from '../../src/tokens.js';
import { freePort } from '../dns/server/tools.js';
import { requirePebble, startPebble, type Pebble } from '../support/pebble.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const run = promisify(execFile);
const zone = 'domivka-demo.com.ua';
const pems = (bundle: string): string[] => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

/**
 * The ACME adapter end to end: POST /v1/certificates with the test environment's CA set to
 * ACME against a real Pebble (SANDBOX_CA=acme), whose DNS-01 lookups go to our own embedded server.
 */
eachStore('certificates from Pebble through our API and our DNS', (kind) => {
  let pebble: Pebble;
  let api: TestApi;
  let issuer: string;

  before(async function () {
    requirePebble(this);
    this.timeout(60_000);
    const dnsPort = await freePort();
    pebble = await startPebble(dnsPort);
    api = await startApi(kind, {
      dns: true,
      dnsPort,
      env: { SANDBOX_CA: 'acme', SANDBOX_ACME_DIRECTORY_URL: pebble.directoryUrl, SANDBOX_ACME_CA_FILE: pebble.listenerCaFile },
    });
    issuer = (await api.issueKey({ environment: 'test', template: 'certificates', domains: [zone] })).secret;
  });
  after(async () => {
    await api?.close();
    await pebble?.stop();
  });

  const waitIssued = async (id: string) => {
    await api.system.get(TOKENS.IssuanceQueue).drain();
    return (await api.call(`/v1/certificates/${id}`, { headers: bearer(issuer) })).body;
  };

  it("issues x and *.x; the chain verifies against Pebble's root; no challenge value stays behind", async function () {
    this.timeout(60_000);
    const r = await api.call('/v1/certificates', {
      method: 'POST',
      headers: { ...bearer(issuer), 'idempotency-key': randomUUID() },
      json: { domains: [`www.${zone}`, `*.${zone}`] },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body.ca).to.equal('acme');
    const c = await waitIssued(r.body.id);
    expect(c.status, JSON.stringify(c.failure)).to.equal('issued');
    expect(c.issuer).to.match(/Pebble/);
    const chain = (await api.call(`/v1/certificates/${r.body.id}/chain`, { headers: bearer(issuer) })).body as string;
    const [leaf, ...intermediates] = pems(chain);
    expect(new X509Certificate(leaf!).subjectAltName!.split(', ').sort()).to.deep.equal([`DNS:*.${zone}`, `DNS:www.${zone}`]);
    const dir = mkdtempSync(join(tmpdir(), 'pebble-chain-'));
    writeFileSync(join(dir, 'leaf.pem'), leaf!);
    writeFileSync(join(dir, 'inter.pem'), intermediates.join(''));
    writeFileSync(join(dir, 'root.pem'), await pebble.rootPem());
    const { stdout } = await run('openssl', [
      'verify',
      '-CAfile',
      join(dir, 'root.pem'),
      '-untrusted',
      join(dir, 'inter.pem'),
      join(dir, 'leaf.pem'),
    ]);
    expect(stdout.trim()).to.match(/OK$/);
    const left = await api.system.store.knex('acme_challenges').count({ n: '*' });
    expect(Number(left[0]!.n)).to.equal(0);
    const records = await api.call(`/v1/domains/${zone}/dns/records?name=_acme-challenge.${zone}`, {
      headers: bearer((await api.issueKey({ environment: 'test', template: 'read_only', domains: [zone] })).secret),
    });
    expect(records.body.data).to.deep.equal([]);
  });

  it('the ACME account key is kept (sealed) in the store, one per directory', async () => {
    const rows = await api.system.store.knex('acme_accounts');
    expect(rows).to.have.length(1);
    expect(rows[0].directory_url).to.equal(pebble.directoryUrl);
    expect(rows[0].key_sealed).to.not.match(/BEGIN/);
  });

  it('renews from Pebble in place when due', async function () {
    this.timeout(60_000);
    const r = await api.call('/v1/certificates', {
      method: 'POST',
      headers: { ...bearer(issuer), 'idempotency-key': randomUUID() },
      json: { domains: [`renew.${zone}`] },
    });
    const first = await waitIssued(r.body.id);
    expect(first.status, JSON.stringify(first.failure)).to.equal('issued');
    api.clock.set(new Date(new Date(first.renew_after).getTime() + 1000));
    const report = await api.system.get(TOKENS.CertificateIssuance).run();
    expect(report.renewed).to.be.at.least(1);
    // Read from the store: the clock moved past the key's own expiry.
    const renewed = (await api.system.store.certificates.find(r.body.id))!;
    expect(renewed.status).to.equal('issued');
    expect(renewed.serial).to.not.equal(first.serial);
  });
});
