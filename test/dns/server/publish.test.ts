import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { startServer as start } from './tools.js';
import { childZone, exampleZone } from './fixtures.js';
import { dig, kdig, rdata, requireTools } from './tools.js';

/**
 * "answers are pre-encoded per name and type and rebuilt when a plan is applied; the apply
 * returns only once the change is served by our own server (a test asserts the very next query sees
 * it)". The nameserver port's publish resolves when that is true.
 */
describe('DNS server publish and withdraw', () => {
  let ns: EmbeddedNameserver;
  let port: number;
  const logged: Array<{ level: string; obj: object; msg: string }> = [];
  const logger = {
    debug: (obj: object, msg: string) => logged.push({ level: 'debug', obj, msg }),
    info: (obj: object, msg: string) => logged.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => logged.push({ level: 'warn', obj, msg }),
    error: (obj: object, msg: string) => logged.push({ level: 'error', obj, msg }),
  };

  before(async function () {
    requireTools(this, 'dig', 'kdig');
    ({ ns, port } = await start([exampleZone()], { logger }));
  });
  after(async () => ns?.stop());

  it('the very next query after publish resolves sees the change, every time', async () => {
    for (let i = 1; i <= 10; i++) {
      const serial = 2026112100 + i;
      await ns.publish(exampleZone(serial, [{ name: 'fresh.example.test', type: 'TXT', ttl: 60, values: [`version ${i}`] }]));
      const r = i % 2 ? await dig(port, 'fresh.example.test', 'TXT') : await kdig(port, 'fresh.example.test', 'TXT');
      expect(rdata(r.answer), `after publish ${i}`).to.deep.equal([`"version ${i}"`]);
      expect(rdata((await dig(port, 'example.test', 'SOA')).answer)[0]).to.include(` ${serial} `);
    }
  });

  it('a removed record set is gone at once (NXDOMAIN)', async () => {
    await ns.publish(exampleZone(2026112200));
    expect((await dig(port, 'fresh.example.test', 'TXT')).status).to.equal('NXDOMAIN');
  });

  it('a publish with an older serial (RFC 1982) is ignored and logged: the zone never moves back', async () => {
    await ns.publish(exampleZone(2026112300, [{ name: 'newer.example.test', type: 'A', ttl: 60, values: ['192.0.2.200'] }]));
    await ns.publish(exampleZone(2026112299));
    expect(rdata((await dig(port, 'newer.example.test', 'A')).answer)).to.deep.equal(['192.0.2.200']);
    expect(logged.some((l) => l.level === 'warn' && l.msg.includes('older serial'))).to.equal(true);
  });

  it('withdraw: the names are refused; a child zone stays; publishing again serves them again', async () => {
    await ns.publish(childZone());
    await ns.withdraw('example.test');
    expect((await dig(port, 'www.example.test', 'A')).status).to.equal('REFUSED');
    expect(rdata((await dig(port, 'www.child.example.test', 'A')).answer)).to.deep.equal(['192.0.2.77']);
    await ns.publish(exampleZone(1));
    expect(rdata((await dig(port, 'www.example.test', 'A')).answer)).to.have.length(2);
  });

  it('a record set that cannot be encoded is skipped and logged; the rest of the zone is served', async () => {
    await ns.publish(
      exampleZone(2, [
        { name: 'bad.example.test', type: 'A', ttl: 60, values: ['not-an-address'] },
        { name: 'elsewhere.example.org', type: 'A', ttl: 60, values: ['192.0.2.9'] },
        { name: 'good.example.test', type: 'A', ttl: 60, values: ['192.0.2.10'] },
      ]),
    );
    expect((await dig(port, 'bad.example.test', 'A')).status).to.equal('NXDOMAIN');
    expect(rdata((await dig(port, 'good.example.test', 'A')).answer)).to.deep.equal(['192.0.2.10']);
    const errors = logged
      .filter((l) => l.level === 'error' && l.msg === 'record set not served')
      .map((l) => (l.obj as { name: string }).name);
    expect(errors).to.include.members(['bad.example.test', 'elsewhere.example.org']);
  });

  it('a zone without an apex SOA is rejected and the served version stays', async () => {
    const z = exampleZone(3);
    let error: unknown;
    try {
      await ns.publish({ ...z, recordSets: z.recordSets.filter((s) => s.type !== 'SOA') });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(TypeError);
    expect(rdata((await dig(port, 'good.example.test', 'A')).answer)).to.deep.equal(['192.0.2.10']);
  });
});
