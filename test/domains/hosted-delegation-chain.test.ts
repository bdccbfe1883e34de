import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { IterativeDelegationResolver } from '../../adapters/delegation/iterative/index.js';
import type { EnvironmentAdapters } from '../../src/tokens.js';
import { TOKENS } from '../../src/tokens.js';
import { dig, freePort, requireTools, runKnotd, type Knotd } from '../dns/server/tools.js';
import { secondAccount } from '../hostile/support/second-account.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * The takeover cases against a real delegation chain on loopback: a root (127.0.0.2), the `ua` TLD
 * (127.0.0.3) and the `com.ua` parent (127.0.0.4) in knotd, and the "previous provider" of client.com.ua
 * (127.0.0.5); our server below them. The test environment resolves delegations with the real iterative
 * resolver, its root hint pointing at the local root.
 */
const SOA = (origin: string) =>
  `${origin} 60 SOA ns.${origin === '.' ? 'root.' : origin} hostmaster.${origin === '.' ? 'root.' : origin} 1 3600 600 86400 60`;

const ROOT = [SOA('.'), '. 60 NS a.root.', 'a.root. 60 A 127.0.0.2', 'ua. 60 NS ns1.ua.', 'ns1.ua. 60 A 127.0.0.3'];
const TLD = [SOA('ua.'), 'ua. 60 NS ns1.ua.', 'ns1.ua. 60 A 127.0.0.3', 'com.ua. 60 NS ns1.com.ua.', 'ns1.com.ua. 60 A 127.0.0.4'];
/** The parent: dangling.com.ua points at our nameservers (a zone deleted, its delegation left behind). */
const parent = (client: 'previous' | 'ours' | 'gone', serial: number) => [
  `com.ua. 60 SOA ns1.com.ua. hostmaster.com.ua. ${serial} 3600 600 86400 60`,
  'com.ua. 60 NS ns1.com.ua.',
  'ns1.com.ua. 60 A 127.0.0.4',
  'dangling.com.ua. 60 NS ns1.domivka.net.',
  'dangling.com.ua. 60 NS ns2.domivka.net.',
  ...(client === 'previous' ? ['client.com.ua. 60 NS ns1.client.com.ua.', 'ns1.client.com.ua. 60 A 127.0.0.5'] : []),
  ...(client === 'ours' ? ['client.com.ua. 60 NS ns1.domivka.net.', 'client.com.ua. 60 NS ns2.domivka.net.'] : []),
];
const previous = (token: string) => [
  SOA('client.com.ua.'),
  'client.com.ua. 60 NS ns1.client.com.ua.',
  'ns1.client.com.ua. 60 A 127.0.0.5',
  `_domivka-challenge.client.com.ua. 60 TXT "${token}"`,
];

/** One knotd serving one zone on one loopback address. */
const authority = (address: string, port: number, zone: string, lines: readonly string[]): Knotd & { dir: string } => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-chain-'));
  writeFileSync(join(dir, 'zone.zone'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'knot.conf'),
    [
      'server:',
      `    rundir: "${dir}"`,
      `    listen: ${address}@${port}`,
      'database:',
      `    storage: "${dir}"`,
      'zone:',
      `  - domain: "${zone}"`,
      `    storage: "${dir}"`,
      '    file: "zone.zone"',
      '',
    ].join('\n'),
  );
  const k = runKnotd(join(dir, 'knot.conf'));
  return {
    ...k,
    dir,
    stop: async () => {
      await k.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

eachStore('Hosted domains: no takeover of dangling delegations (real resolver, local root/TLD/parent in knotd)', (kind) => {
  let api: TestApi;
  let port: number;
  let key: string;
  let bKey: string;
  let b: Awaited<ReturnType<typeof secondAccount>>;
  const knots: Array<Knotd & { dir: string }> = [];
  let parentNs: (Knotd & { dir: string }) | null = null;
  let previousNs: (Knotd & { dir: string }) | null = null;

  const settle = (k: Knotd & { dir: string }, name: string, address: string) =>
    (async () => {
      for (let i = 0; i < 60; i++) {
        const r = await dig(port, `@${address}`, name, 'SOA', '+norec', '+time=1', '+tries=1').catch(() => null);
        if (r && r.status === 'NOERROR') return;
        await new Promise((ok) => setTimeout(ok, 50));
      }
      throw new Error(`knotd at ${address} did not come up: ${k.log()}`);
    })();

  before(async function () {
    requireTools(this, 'knotd', 'knotc', 'dig');
    port = await freePort();
    knots.push(authority('127.0.0.2', port, '.', ROOT), authority('127.0.0.3', port, 'ua', TLD));
    parentNs = authority('127.0.0.4', port, 'com.ua', parent('previous', 1));
    await settle(knots[0]!, '.', '127.0.0.2');
    await settle(knots[1]!, 'ua', '127.0.0.3');
    await settle(parentNs, 'com.ua', '127.0.0.4');
    const resolver = new IterativeDelegationResolver({ roots: [{ host: '127.0.0.2', port }], port, timeoutMs: 400 });
    api = await startApi(kind, {
      dns: true,
      wrapSandbox: (a: EnvironmentAdapters): EnvironmentAdapters => ({ ...a, delegations: resolver }),
    });
    const names = ['client.com.ua', 'dangling.com.ua'];
    key = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'domain.host', 'dns.edit'], domains: names })).secret;
    b = await secondAccount(api, 'b-elsewhere.com.ua');
    const cookie = await api.signIn({ email: b.email, password: b.password, totpSecret: b.totpSecret });
    bKey = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'domain.host'], domains: names }, cookie)).secret;
  });
  after(async () => {
    await api?.close();
    await previousNs?.stop();
    await parentNs?.stop();
    for (const k of knots) await k.stop();
  });

  const post = (path: string, json: unknown, secret = key) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const ours = (name: string, type = 'SOA') => dig(api.dnsPort!, '@127.0.0.1', name, type, '+norec', '+time=1', '+tries=1');
  const reparent = async (client: 'previous' | 'ours' | 'gone', serial: number) => {
    await parentNs!.stop();
    parentNs = authority('127.0.0.4', port, 'com.ua', parent(client, serial));
    await settle(parentNs, 'com.ua', '127.0.0.4');
  };

  it('a dangling delegation to our nameservers is not claimable: the claim stays pending (delegation_unproven) and is never answered', async () => {
    const r = await host(bKey, 'dangling.com.ua');
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.hosting.status).to.equal('pending_delegation');
    expect(r.body.hosting.problem.code).to.equal('delegation_unproven');
    // Checking again changes nothing: the parent's delegation to us proves nothing by itself.
    const again = await post('/v1/domains/dangling.com.ua/hosting/verify', {}, bKey);
    expect(again.body.hosting).to.include({ status: 'pending_delegation' });
    expect(again.body.hosting.problem.code).to.equal('delegation_unproven');
    const answer = await ours('dangling.com.ua');
    expect(answer.status).to.equal('REFUSED');
  });

  it('an unverified zone is not answered; the TXT proof served by the current outside nameservers activates it; then our server answers', async () => {
    const r = await host(key, 'client.com.ua');
    expect(r.status).to.equal(201);
    expect(r.body.hosting.status).to.equal('pending_delegation');
    // The previous provider is not up yet: nobody served the proof.
    expect(r.body.hosting.problem.code).to.equal('verification_txt_missing');
    expect((await ours('client.com.ua')).status).to.equal('REFUSED');
    // The holder publishes the TXT at the provider the parent delegates to now.
    previousNs = authority('127.0.0.5', port, 'client.com.ua', previous(r.body.hosting.verification.value));
    await settle(previousNs, 'client.com.ua', '127.0.0.5');
    // Another account cannot use the holder's proof: its own value is not there.
    const other = await host(bKey, 'client.com.ua');
    expect(other.body.hosting.status).to.equal('pending_delegation');
    const verified = await post('/v1/domains/client.com.ua/hosting/verify', {});
    expect(verified.status, JSON.stringify(verified.body)).to.equal(200);
    expect(verified.body.hosting).to.include({ status: 'active', problem: null });
    const served = await ours('client.com.ua');
    expect(served.status).to.equal('NOERROR');
    expect(served.flags).to.include('aa');
    // The other account's claim stays pending: the outside nameservers serve the holder's value, not its own.
    const b2 = await post('/v1/domains/client.com.ua/hosting/verify', {}, bKey);
    expect(b2.body.hosting.status).to.equal('pending_delegation');
    expect(b2.body.hosting.problem.code).to.equal('verification_txt_missing');
  });

  it('the delegation moves to our nameservers: still active, no problem; then the parent drops it: hosting.problem delegation_lost and an event, still served', async () => {
    await reparent('ours', 2);
    const stillOk = await api.system.get(TOKENS.RecheckHosting).run();
    expect(stillOk.checked).to.equal(0); // checked moments ago: not due yet
    const checked = await post('/v1/domains/client.com.ua/hosting/verify', {});
    expect(checked.body.hosting).to.include({ status: 'active', problem: null });

    await reparent('gone', 3);
    api.clock.advance(2 * 3600_000); // past HOSTING_RECHECK_SECONDS (3600)
    const report = await api.system.get(TOKENS.RecheckHosting).run();
    expect(report, JSON.stringify(report)).to.include({ checked: 1, problem: 1 });
    const d = await api.call('/v1/domains/client.com.ua', { headers: bearer(key) });
    expect(d.body.hosting.status).to.equal('active');
    expect(d.body.hosting.problem.code).to.equal('delegation_lost');
    const rows: Array<{ data: string }> = await api.system.store
      .knex('events')
      .where({ type: 'domain.hosting_problem', subject: 'domain:client.com.ua', account_id: api.demo.accountId });
    expect(rows.some((r) => r.data.includes('delegation_lost'))).to.equal(true);
    expect((await ours('client.com.ua')).status).to.equal('NOERROR');
  });

  const host = (secret: string, domain: string) => post('/v1/hosted-domains', { domain }, secret);
});
