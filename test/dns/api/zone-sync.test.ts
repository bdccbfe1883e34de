import { expect } from 'chai';
import pino from 'pino';
import { System } from '../../../src/system.js';
import { TOKENS } from '../../../src/tokens.js';
import { ZoneSync } from '../../../adapters/dns/zone-sync.js';
import { catalogMemberId } from '../../../adapters/dns/catalog.js';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { udpQuestion } from '../server/tools.js';
import { eachStore } from '../../support/stores.js';
import { startApi, testConfig, type TestApi } from '../../support/system.js';

const query = (port: number, name: string, type: 'A' | 'SOA' | 'PTR') => udpQuestion(port, name, type);

/** Zones changed by another process (the worker, another API process) reach this server's DNS. */
eachStore('ZoneSync', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('an unverified hosted zone is served by no server (all zones, or one environment alone as production does), nor listed in the catalog, until it is verified', async () => {
    const zs = api.system.get(TOKENS.ZoneService);
    const name = 'unverified-sync.example';
    const zone = await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, 'test', name));
    const catalogName = 'catalog.sync.invalid';
    const member = `${catalogMemberId(name)}.zones.${catalogName}`;
    const servers = await Promise.all(
      [{}, { only: 'test' as const }].map(async (options) => {
        const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
        await dns.start();
        const catalog = { name: catalogName, version: api.system.store.zones };
        return { dns, sync: new ZoneSync(api.system.store.zones, dns, pino({ level: 'silent' }), { ...options, catalog }) };
      }),
    );
    try {
      for (const { dns, sync } of servers) {
        await sync.load();
        expect(((await query(dns.address().port, name, 'SOA')) as { rcode?: string }).rcode).to.equal('REFUSED');
        expect((await query(dns.address().port, 'domivka-demo.dev', 'SOA')).answers!.length).to.equal(1);
        expect((await query(dns.address().port, member, 'PTR')).answers ?? []).to.have.length(0);
      }
      await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', name, true));
      for (const { dns, sync } of servers) {
        await sync.load();
        expect(((await query(dns.address().port, name, 'SOA')) as { rcode?: string }).rcode).to.equal('NOERROR');
        expect((await query(dns.address().port, member, 'PTR')).answers).to.have.length(1);
      }
    } finally {
      for (const { dns, sync } of servers) {
        sync.stop();
        await dns.stop();
      }
      await api.system.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', zone.domain));
    }
  });

  it('publishes what another process committed, and withdraws what it removed', async () => {
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    await dns.start();
    const sync = new ZoneSync(api.system.store.zones, dns, pino({ level: 'silent' }));
    try {
      await sync.load();
      const port = dns.address().port;
      expect((await query(port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data)).to.deep.equal([
        '192.0.2.10',
      ]);
      // "Another process": a second system on the same store, with no nameserver of its own.
      const other = new System(testConfig(api.store), { logger: pino({ level: 'silent' }) });
      const zs = other.get(TOKENS.ZoneService);
      const zone = (await other.store.zones.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
      await other.store.uow.transaction(() =>
        zs.commit(zone, [{ name: 'www.domivka-demo.dev', type: 'A', ttl: 300, values: ['192.0.2.99'] }], []),
      );
      await other.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', 'domivka-blog.kyiv.ua'));
      await other.close();
      await sync.load();
      expect((await query(port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data)).to.deep.equal([
        '192.0.2.99',
      ]);
      expect(((await query(port, 'domivka-blog.kyiv.ua', 'SOA')) as { rcode?: string }).rcode).to.equal('REFUSED');
    } finally {
      sync.stop();
      await dns.stop();
    }
  });
});
