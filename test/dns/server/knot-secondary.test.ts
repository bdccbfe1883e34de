import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { exampleZone } from './fixtures.js';
import { freePort, kdig, knotSecondaryConf, rdata, requireTools, startServer, waitFor, runKnotd, type Knotd } from './tools.js';

const SERIAL = 2026112100;

/** "start knotd as a secondary in the test, apply a plan, and see the new record answered by Knot (kdig)". */
describe('Knot as a secondary of our server (AXFR, NOTIFY, IXFR)', function () {
  this.timeout(60_000);
  let ns: EmbeddedNameserver;
  let knotPort: number;
  let dir: string;
  let knotd: Knotd | undefined;

  const knotSerial = async (): Promise<number | null> => {
    const soa = rdata((await kdig(knotPort, 'example.test', 'SOA')).answer, 'SOA')[0];
    return soa ? Number(soa.split(/\s+/)[2]) : null;
  };

  before(async function () {
    requireTools(this, 'knotd', 'knotc', 'kdig');
    dir = await mkdtemp(join(tmpdir(), 'domivka-knot-'));
    knotPort = await freePort();
    ({ ns } = await startServer([exampleZone(SERIAL)], { secondaries: [{ host: '127.0.0.1', port: knotPort }] }));
    const conf = join(dir, 'knot.conf');
    await writeFile(conf, knotSecondaryConf({ dir, knotPort, primaryPort: ns.address().port, zones: ['example.test'] }));
    knotd = runKnotd(conf);
    // Knot starts with no zone file and bootstraps the zone by AXFR from us.
    const took = await waitFor(async () => (await knotSerial()) === SERIAL, 20_000, 100);
    expect(took, `knotd never served the zone; its log:\n${knotd!.log()}`).to.not.equal(null);
  });

  after(async () => {
    await knotd?.stop();
    await ns?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('bootstraps the zone by AXFR and answers it authoritatively', async () => {
    const r = await kdig(knotPort, 'www.example.test', 'A');
    expect(r.status).to.equal('NOERROR');
    expect(r.flags).to.include('aa');
    expect(rdata(r.answer)).to.have.members(['192.0.2.1', '192.0.2.2']);
    expect(rdata((await kdig(knotPort, 'long.example.test', 'TXT')).answer)).to.have.length(1);
    expect(knotd!.log()).to.match(/AXFR, incoming, remote 127\.0\.0\.1@\d+, finished/);
  });

  it('serves a record published to our server within seconds (NOTIFY, then a transfer)', async () => {
    const t0 = Date.now();
    await ns.publish(exampleZone(SERIAL + 1, [{ name: 'new.example.test', type: 'A', ttl: 60, values: ['192.0.2.99'] }]));
    // Ours at once…
    expect(rdata((await kdig(ns.address().port, 'new.example.test', 'A')).answer)).to.deep.equal(['192.0.2.99']);
    // …and Knot's soon after, told by NOTIFY rather than its hourly refresh.
    const took = await waitFor(async () => rdata((await kdig(knotPort, 'new.example.test', 'A')).answer)[0] === '192.0.2.99', 5000);
    expect(took, `Knot did not serve the new record within 5 s; its log:\n${knotd!.log()}`).to.not.equal(null);
    expect(knotd!.log()).to.match(/notify, incoming, remote 127\.0\.0\.1@\d+/i);
    // Only the change came: an incremental IXFR from our journal, which Knot stored (no AXFR fallback).
    const since = knotd!.log().slice(knotd!.log().lastIndexOf('notify, incoming'));
    expect(since).to.match(/IXFR, incoming, remote 127\.0\.0\.1@\d+, finished/);
    expect(since).to.not.match(/AXFR-style|fallback to AXFR|failed to store/);
    expect(ns.journalSpan('example.test')).to.deep.include({ diffs: 1, from: SERIAL, to: SERIAL + 1, records: 1 });
    expect(await knotSerial()).to.equal(SERIAL + 1);
    // eslint-disable-next-line no-console
    console.log(`      publish → Knot serves the new record: ${Date.now() - t0} ms`);
  });

  it('a removed record goes from Knot too (an IXFR that deletes it)', async () => {
    const mark = knotd!.log().length;
    await ns.publish(exampleZone(SERIAL + 2));
    const took = await waitFor(async () => (await kdig(knotPort, 'new.example.test', 'A')).status === 'NXDOMAIN', 5000);
    expect(took, knotd!.log()).to.not.equal(null);
    expect(await knotSerial()).to.equal(SERIAL + 2);
    expect(knotd!.log().slice(mark)).to.match(/IXFR, incoming, remote 127\.0\.0\.1@\d+, finished/);
    expect(knotd!.log().slice(mark)).to.not.match(/AXFR-style|fallback to AXFR|failed to store/);
  });

  it('notifySecondaries reports that Knot acknowledged', async () => {
    const outcomes = await ns.notifySecondaries('example.test');
    expect(outcomes).to.deep.equal([{ secondary: `127.0.0.1:${knotPort}`, acknowledged: true, attempts: 1 }]);
  });
});
