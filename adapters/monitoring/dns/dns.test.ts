import { expect } from 'chai';
import type { DnsSpec } from '../../../core/monitoring/monitor.js';
import type { EmbeddedNameserver } from '../../dns/embedded/index.js';
import { exampleZone } from '../../../test/dns/server/fixtures.js';
import { freePort, startServer } from '../../../test/dns/server/tools.js';
import { DnsProbeAdapter, normalizeValue } from './index.js';

/** The dns probe against our own embedded DNS server (a real UDP/TCP peer). */
describe('adapters/monitoring/dns: DnsProbeAdapter', () => {
  let ns: EmbeddedNameserver;
  let port: number;
  before(async () => {
    ({ ns, port } = await startServer([exampleZone()]));
  });
  after(async () => ns.stop());

  const probe = () => new DnsProbeAdapter({ own: { host: '127.0.0.1', port } });
  const spec = (name: string, type: DnsSpec['type'], expected: string[] | null = null, nameservers: string[] = []): DnsSpec => ({
    kind: 'dns',
    name,
    type,
    expected,
    nameservers,
  });

  it('answers of each shape compare in presentation form (order, case and trailing dots aside)', async () => {
    expect((await probe().check(spec('www.example.test', 'A', ['192.0.2.2', '192.0.2.1']), 2000)).ok).to.equal(true);
    expect((await probe().check(spec('www.example.test', 'AAAA', ['2001:DB8:0::1']), 2000)).ok).to.equal(true);
    expect((await probe().check(spec('example.test', 'MX', ['20 MX2.example.net.', '10 mail.example.test']), 2000)).ok).to.equal(true);
    expect((await probe().check(spec('example.test', 'TXT', ['v=spf1 mx -all']), 2000)).ok).to.equal(true);
    expect(
      (await probe().check(spec('example.test', 'CAA', ['0 issue "letsencrypt.org"', '0 iodef "mailto:security@example.test"']), 2000)).ok,
    ).to.equal(true);
    expect((await probe().check(spec('_sip._tcp.example.test', 'SRV', ['10 60 5060 sip.example.test.']), 2000)).ok).to.equal(true);
    expect(normalizeValue('CNAME', 'WWW.Example.Test.')).to.equal('www.example.test');
  });

  it('an answer truncated over UDP (TC) is asked again over TCP', async () => {
    // big.example.test holds ~6 KB of TXT: it only fits a TCP answer.
    const r = await probe().check(spec('big.example.test', 'TXT'), 3000);
    expect(r.ok, JSON.stringify(r.reason)).to.equal(true);
    expect((r.detail.servers as Array<{ values: string[] }>)[0]!.values).to.have.length(30);
  });

  it('a wrong value, NXDOMAIN, no data, and a listed nameserver that does not answer all fail with the server named', async () => {
    expect((await probe().check(spec('www.example.test', 'A', ['192.0.2.9']), 2000)).reason).to.match(
      /answered 192\.0\.2\.1, 192\.0\.2\.2, expected 192\.0\.2\.9/,
    );
    expect((await probe().check(spec('nope.example.test', 'A'), 2000)).reason).to.match(/NXDOMAIN/);
    expect((await probe().check(spec('mail.example.test', 'AAAA'), 2000)).reason).to.match(/no records of this type/);
    const silent = await freePort([port]);
    const r = await probe().check(spec('www.example.test', 'A', null, [`127.0.0.1:${silent}`]), 1000);
    expect(r.ok).to.equal(false);
    expect(r.reason).to.contain(`127.0.0.1:${silent}:`);
    expect((r.detail.servers as Array<{ server: string; ok: boolean }>).map((s) => [s.server, s.ok])).to.deep.equal([
      [`127.0.0.1:${port}`, true],
      [`127.0.0.1:${silent}`, false],
    ]);
  });
});
