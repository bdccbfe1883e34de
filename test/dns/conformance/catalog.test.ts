import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { knotConf } from '../../../adapters/dns/knot-conf.js';
import { catalogMemberId } from '../../../adapters/dns/catalog.js';
import { SqlStore } from '../../../adapters/sql/index.js';
import { ROOT, startServerProcess, type ServerProcess } from '../../support/server-process.js';
import { freePort, kdig, rdata, requireTools, waitFor, runKnotd, type Knotd } from '../server/tools.js';
import { serverEngines } from './engines.js';
import { serialAt } from './probe.js';

const run = promisify(execFile);
const CATALOG = 'catalog.domivka.invalid';
const DEMO = 'domivka-demo.com.ua';

/**
 * New zones reach the secondaries by themselves: `npm start` offers a catalog zone (RFC 9432) and Knot,
 * configured once by `npm run knot:conf`'s text (catalog-role: interpret), adds a domain registered
 * after it started and drops a zone removed from the store, with no config reload.
 */
for (const engine of serverEngines('catalog')) {
  describe(`DNS catalog zone (${engine.name}): a Knot secondary follows zones as they come and go`, function () {
    this.timeout(180_000);
    let server: ServerProcess;
    let knotd: Knotd | undefined;
    let knotDir: string;
    let knotPort: number;
    let engineEnv: Record<string, string> = {};

    before(async function () {
      requireTools(this, 'knotd', 'knotc', 'kdig');
      knotPort = await freePort();
      engineEnv = await engine.env();
      server = await startServerProcess({ DNS_SECONDARIES: `127.0.0.1:${knotPort}`, ...engineEnv });
      knotDir = await mkdtemp(join(tmpdir(), 'domivka-catalog-knot-'));
      for (const d of ['run', 'db', 'zones']) await mkdir(join(knotDir, d));
      const conf = join(knotDir, 'knot.conf');
      // The text `npm run knot:conf` prints, with this test's ports and directory.
      await writeFile(
        conf,
        knotConf({
          dir: knotDir,
          listen: [`127.0.0.1@${knotPort}`],
          primary: `127.0.0.1@${server.dnsPort}`,
          notifyFrom: '127.0.0.1',
          zones: [],
          catalog: CATALOG,
          logLevel: 'info',
        }),
      );
      knotd = runKnotd(conf);
    });

    after(async () => {
      await knotd?.stop();
      if (knotDir) await rm(knotDir, { recursive: true, force: true });
      await server?.stop();
      await engine.drop?.(engineEnv);
    });

    const tail = () => knotd!.log().split('\n').slice(-30).join('\n');

    it('serves the catalog itself: version 2 and one PTR per zone, under a stable member id', async () => {
      const version = await kdig(server.dnsPort, `version.${CATALOG}`, 'TXT');
      expect(rdata(version.answer, 'TXT')).to.deep.equal(['"2"']);
      const axfr = await run('kdig', ['@127.0.0.1', '-p', String(server.dnsPort), '+tcp', CATALOG, 'AXFR']);
      const members = axfr.stdout
        .split('\n')
        .filter((l) => /\sPTR\s/.test(l))
        .map((l) => l.trim().split(/\s+/));
      expect(members.map((m) => m.at(-1))).to.include(`${DEMO}.`);
      for (const m of members) expect(m[0]).to.match(new RegExp(`^[0-9a-f]{32}\\.zones\\.${CATALOG.replace(/\./g, '\\.')}\\.$`));
    });

    it('Knot, configured with the catalog only, serves the zones that existed when it started', async () => {
      const took = await waitFor(async () => (await serialAt(knotPort, DEMO)) !== null, 30_000, 100);
      expect(took, `Knot never served ${DEMO}; its log:\n${tail()}`).to.not.equal(null);
    });

    it('a domain registered after Knot started is served by Knot without touching its configuration', async () => {
      const { stdout } = await run(
        join(ROOT, 'node_modules', '.bin', 'tsx'),
        [
          'src/main/sandbox-key.ts',
          '--rights',
          'domain.register,domain.read',
          '--domains',
          'catalog-new-shop.com.ua',
          '--cidr',
          '127.0.0.0/8',
          '--spend-limit',
          '2000',
          '--json',
        ],
        { cwd: ROOT, env: server.env },
      );
      const key = JSON.parse(stdout.trim()).key as string;
      const res = await fetch(`${server.api}/v1/domains`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'catalog-register-1' },
        body: JSON.stringify({ domain: 'catalog-new-shop.com.ua', years: 1 }),
      });
      expect(res.status, await res.clone().text()).to.equal(201);
      const registered = Date.now();
      const took = await waitFor(async () => (await serialAt(knotPort, 'catalog-new-shop.com.ua')) !== null, 20_000, 50);
      expect(took, `Knot never served the new zone; its log:\n${tail()}`).to.not.equal(null);
      // eslint-disable-next-line no-console
      console.log(`      registered → Knot serves the new zone: ${Date.now() - registered} ms`);
    });

    it('a zone removed from the store stops being served by Knot', async () => {
      const store = new SqlStore({
        url: server.env.DATABASE_URL!,
        ...(server.env.DATABASE_SCHEMA ? { schema: server.env.DATABASE_SCHEMA } : {}),
      });
      try {
        const zone = (await store.zones.versions()).find((v) => v.domain === 'catalog-new-shop.com.ua');
        expect(zone, 'the registered zone is in the store').to.not.equal(undefined);
        await store.uow.transaction(() => store.zones.remove(zone!.id));
      } finally {
        await store.close();
      }
      const took = await waitFor(async () => (await serialAt(knotPort, 'catalog-new-shop.com.ua')) === null, 20_000, 100);
      expect(took, `Knot still serves the removed zone; its log:\n${tail()}`).to.not.equal(null);
      expect(await serialAt(knotPort, DEMO), 'the other zones stay').to.not.equal(null);
    });

    /** The catalog as `dig … AXFR` lists it: the zones its PTR records name. */
    const catalogMembers = async (): Promise<string[]> => {
      const axfr = await run('kdig', ['@127.0.0.1', '-p', String(server.dnsPort), '+tcp', CATALOG, 'AXFR']);
      return axfr.stdout
        .split('\n')
        .filter((l) => /\sPTR\s/.test(l))
        .map((l) => l.trim().split(/\s+/).at(-1)!.replace(/\.$/, ''))
        .sort();
    };

    it('a domain.host key cannot take the catalog over: its name and the names under it are refused, and a zone of its name in the store is never served in its place', async () => {
      const before = await catalogMembers();
      expect(before).to.include(DEMO);
      const { stdout } = await run(
        join(ROOT, 'node_modules', '.bin', 'tsx'),
        ['src/main/sandbox-key.ts', '--rights', 'domain.host,dns.edit,domain.read', '--domains', `${CATALOG},zones.${CATALOG}`, '--json'],
        { cwd: ROOT, env: server.env },
      );
      const key = JSON.parse(stdout.trim()).key as string;
      for (const domain of [CATALOG, `zones.${CATALOG}`]) {
        const res = await fetch(`${server.api}/v1/hosted-domains`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ domain }),
        });
        const body = (await res.json()) as { error: { code: string; message: { uk: string; en: string } } };
        expect(res.status, JSON.stringify(body)).to.equal(422);
        expect(body.error.code).to.equal('domain_reserved');
        expect(body.error.message.en).to.include(CATALOG);
        expect(body.error.message.uk).to.match(/[\u0400-\u04FF]/);
      }
      expect(await catalogMembers()).to.deep.equal(before);
      // Another path (a row written before the refusal, a hand-made fix): the account's zone of the catalog's
      // name, with the PTR an attacker would add, is stored and marked served.
      const store = new SqlStore({
        url: server.env.DATABASE_URL!,
        ...(server.env.DATABASE_SCHEMA ? { schema: server.env.DATABASE_SCHEMA } : {}),
      });
      const evil = `${catalogMemberId('victim-zone.example')}.zones.${CATALOG}`;
      const serial = (await serialAt(server.dnsPort, CATALOG))!;
      const id = randomUUID();
      try {
        const demo = (await store.zones.versions()).find((v) => v.domain === DEMO)!;
        const owner = (await store.zones.findById(demo.id))!;
        await store.uow.transaction(() =>
          store.zones.create({
            id,
            accountId: owner.accountId,
            environment: owner.environment,
            domain: CATALOG,
            // A serial as our zones carry (YYYYMMDDnn): far past the catalog's version, as the attack's was.
            serial: owner.serial,
            served: true,
            recordSets: [
              {
                name: CATALOG,
                type: 'SOA',
                ttl: 300,
                values: [`ns1.domivka.net. hostmaster.${CATALOG}. ${owner.serial} 3600 600 86400 300`],
              },
              { name: CATALOG, type: 'NS', ttl: 300, values: ['ns1.domivka.net.'] },
              { name: `version.${CATALOG}`, type: 'TXT', ttl: 300, values: ['2'] },
              { name: evil, type: 'PTR', ttl: 300, values: ['victim-zone.example.'] },
            ],
          }),
        );
        // Served once read: the catalog's version moved with the new zone (its serial is the version).
        const moved = await waitFor(async () => ((await serialAt(server.dnsPort, CATALOG)) ?? 0) > serial, 20_000, 50);
        expect(moved, 'the catalog moved to its next version').to.not.equal(null);
        const after = await catalogMembers();
        expect(after).to.deep.equal(before);
        expect(await serialAt(knotPort, DEMO), 'Knot keeps serving the zones').to.not.equal(null);
        const created = (await serialAt(server.dnsPort, CATALOG))!;
        await store.uow.transaction(() => store.zones.remove(id));
        expect(await waitFor(async () => ((await serialAt(server.dnsPort, CATALOG)) ?? 0) > created, 20_000, 50)).to.not.equal(null);
        expect(await catalogMembers(), 'its removal leaves the catalog').to.deep.equal(before);
        expect(await serialAt(knotPort, DEMO)).to.not.equal(null);
      } finally {
        await store.close();
      }
    });
  });
}
