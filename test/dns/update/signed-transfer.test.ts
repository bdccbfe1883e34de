import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { knotConf } from '../../../adapters/dns/knot-conf.js';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';
import { freePort, kdig, rdata, requireTools, runKnotd, waitFor, type Knotd } from '../server/tools.js';

const run = (cmd: string, args: string[], input?: string): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 15_000 }, (err, so, se) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${so}${se}` }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });

/**
 * DESIGN "Signed AXFR/IXFR needs dns.read": a secondary elsewhere is authorised by a key's TSIG credential,
 * not its address. Our server here lets no address transfer unsigned (the allow-list is 192.0.2.1 only).
 */
eachStore("Zone transfers signed with a key's TSIG credential", (kind) => {
  let api: TestApi;
  let port: number;
  let knot: Knotd | undefined;
  before(async function () {
    requireTools(this, 'kdig', 'knotd', 'knotc', 'nsupdate');
    api = await startApi(kind, { dns: true, dnsAxfrAllow: ['192.0.2.1'] });
    port = api.dnsPort!;
  });
  after(async () => {
    await knot?.stop();
    await api?.close();
  });

  it('unsigned AXFR is refused; an ACME-only key may not transfer; a dns.read key may (every message signed, kdig verifies)', async () => {
    expect((await kdig(port, '+tcp', 'domivka-demo.dev', 'AXFR')).raw).to.match(/REFUSED|failed/);
    const acme = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: ['domivka-demo.dev'] })).body.tsig;
    const refused = await run('kdig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+time=2',
      '+retry=0',
      '-y',
      `${acme.algorithm}:${acme.name}:${acme.secret}`,
      'domivka-demo.dev',
      'AXFR',
    ]);
    expect(refused.out).to.match(/REFUSED/);
    const reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['domivka-demo.dev'] })).body.tsig;
    const ok = await run('kdig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+time=2',
      '+retry=0',
      '-y',
      `${reader.algorithm}:${reader.name}:${reader.secret}`,
      'domivka-demo.dev',
      'AXFR',
    ]);
    expect(ok.out).not.to.match(/WARNING|failed|REFUSED/);
    expect(ok.out).to.match(/www\.domivka-demo\.dev\.\s+\d+\s+IN\s+A/);
    const other = await run('kdig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+time=2',
      '+retry=0',
      '-y',
      `${reader.algorithm}:${reader.name}:${reader.secret}`,
      'domivka-demo.com.ua',
      'AXFR',
    ]);
    // The account's other domain, outside the key's scope: refused, as an unknown name is (below).
    expect(other.out).to.match(/REFUSED/);
  });

  it("a key without a DNS right on a zone cannot tell the account's zones (another domain, an unverified hosted one) from unknown names: REFUSED alike (dig, kdig)", async () => {
    const reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['domivka-demo.dev'] })).body.tsig;
    const hoster = await api.issueKey({ environment: 'test', rights: ['domain.host'], domains: ['unverified-hosted.org'] });
    const hosted = await api.call('/v1/hosted-domains', {
      method: 'POST',
      headers: { authorization: `Bearer ${hoster.secret}`, 'idempotency-key': `h-${Date.now()}` },
      json: { domain: 'unverified-hosted.org' },
    });
    expect(hosted.status, JSON.stringify(hosted.body)).to.equal(201);
    // Not verified yet: stored and editable, never served (the sandbox verifies at once, so it is set back here).
    await api.system.store.knex('dns_zones').where({ domain: 'unverified-hosted.org', environment: 'test' }).update({ served: false });
    const y = `${reader.algorithm}:${reader.name}:${reader.secret}`;
    /** The answer's header status, with the zone's name taken out: what tells one answer from another. */
    const digStatus = async (zone: string) => {
      const r = await run('dig', ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=3', '-y', y, zone, 'AXFR']);
      return r.out.replaceAll(zone, '<zone>').match(/Transfer failed\.|status: \w+|XFR size|REFUSED|NOTAUTH/g);
    };
    const kdigStatus = async (zone: string) => {
      const r = await run('kdig', ['@127.0.0.1', '-p', String(port), '+time=2', '+retry=0', '-y', y, zone, 'AXFR']);
      return r.out
        .replaceAll(zone, '<zone>')
        .split('\n')
        .filter((l) => l.startsWith(';; ERROR') && !l.includes('failed to query server'));
    };
    const unknown = await kdigStatus('never-registered-anywhere.com.ua');
    expect(unknown, 'an unknown name').to.deep.equal([";; ERROR: server replied with error 'REFUSED'"]);
    expect(await kdigStatus('domivka-demo.com.ua'), 'the account’s other domain').to.deep.equal(unknown);
    expect(await kdigStatus('unverified-hosted.org'), 'the account’s unverified hosted zone').to.deep.equal(unknown);
    const digUnknown = await digStatus('never-registered-anywhere.com.ua');
    expect(await digStatus('domivka-demo.com.ua')).to.deep.equal(digUnknown);
    expect(await digStatus('unverified-hosted.org')).to.deep.equal(digUnknown);
    // A key that holds dns.read on the unverified hosted zone is not given it either: it is not served.
    const own = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['unverified-hosted.org'] })).body.tsig;
    const ownOut = await run('kdig', [
      '@127.0.0.1',
      '-p',
      String(port),
      '+time=2',
      '+retry=0',
      '-y',
      `${own.algorithm}:${own.name}:${own.secret}`,
      'unverified-hosted.org',
      'AXFR',
    ]);
    expect(ownOut.out).to.match(/NOTAUTH/);
  });

  it('a Knot secondary on the TSIG form of knot:conf pulls AXFR, and IXFR after an UPDATE', async function () {
    this.timeout(60_000);
    const reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['domivka-demo.dev'] })).body.tsig;
    const editor = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] })).body.tsig;
    const dir = mkdtempSync(join(tmpdir(), 'knot-tsig-'));
    const knotPort = await freePort([port]);
    // The form `npm run knot:conf -- --tsig …` prints, run by knotd.
    for (const d of ['run', 'db', 'zones']) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(
      join(dir, 'knot.conf'),
      knotConf({
        dir,
        listen: [`127.0.0.1@${knotPort}`],
        primary: `127.0.0.1@${port}`,
        notifyFrom: '127.0.0.1',
        zones: ['domivka-demo.dev'],
        tsig: reader,
        logLevel: 'info',
      }),
    );
    knot = runKnotd(join(dir, 'knot.conf'));
    const has = async (name: string) => rdata((await kdig(knotPort, name, 'A')).answer).length > 0;
    expect(await waitFor(() => has('www.domivka-demo.dev'), 15_000), knot.log()).to.not.equal(null);
    const script = `server 127.0.0.1 ${port}\nzone domivka-demo.dev\nupdate add knot-tsig.domivka-demo.dev. 60 A 192.0.2.44\nsend\n`;
    const upd = await run('nsupdate', ['-y', `${editor.algorithm}:${editor.name}:${editor.secret}`], script);
    expect(upd, upd.out).to.deep.include({ code: 0 });
    await run('knotc', ['-c', join(dir, 'knot.conf'), 'zone-refresh', 'domivka-demo.dev']);
    expect(await waitFor(() => has('knot-tsig.domivka-demo.dev'), 15_000), knot.log()).to.not.equal(null);
    expect(knot.log()).to.match(/IXFR/);
  });
});
