import { expect } from 'chai';
import { join } from 'node:path';
import { SqlStore } from '../../adapters/sql/index.js';
import { startKnot, serialAt, type KnotSecondary } from '../dns/conformance/probe.js';
import { dig, digAxfr, freePort, requireTools, waitFor } from '../dns/server/tools.js';
import { startCompiled, type CompiledProcess } from '../support/compiled-process.js';

const SANDBOX = 'domivka-demo.com.ua';
const LIVE = 'live-zone.com.ua';

/**
 * Production mode: sandbox zones are served on SANDBOX_DNS_PORT only — never answered, transferred or
 * NOTIFYed on DNS_PORT — so a Knot secondary of the hidden primary gets the live zone and never a
 * sandbox one. (Development keeps both on DNS_PORT: the tour digs the demo zone there.)
 */
describe('production mode: sandbox zones never reach the secondaries', function () {
  this.timeout(180_000);
  let server: CompiledProcess | null = null;
  let knot: KnotSecondary | null = null;

  after(async () => {
    await knot?.stop();
    await server?.stop();
  });

  it('Knot transfers the live zone from DNS_PORT and never the sandbox zone, which SANDBOX_DNS_PORT alone answers', async function () {
    requireTools(this, 'knotd', 'knotc', 'kdig', 'dig');
    // A store with the sandbox demo (a development start seeds it) and a live zone beside it.
    const seeding = await startCompiled({ RUN_WORKER: 'false', DNS_WORKERS: '1' });
    const dir = seeding.dir;
    expect(await seeding.stop()).to.equal(0);
    const store = new SqlStore({ url: join(dir, 'db.sqlite') });
    const demo = (await store.zones.all()).find((z) => z.domain === SANDBOX)!;
    const rename = (name: string) =>
      name === SANDBOX ? LIVE : name.endsWith(`.${SANDBOX}`) ? `${name.slice(0, -SANDBOX.length)}${LIVE}` : name;
    const recordSets = demo.recordSets.map((set) => ({ ...set, name: rename(set.name) }));
    await store.zones.create({ ...demo, id: 'zone-live-production-test', environment: 'live', domain: LIVE, recordSets });
    await store.close();

    const knotPort = await freePort();
    const sandboxPort = await freePort([knotPort]);
    server = await startCompiled(
      {
        NODE_ENV: 'production',
        COOKIE_SECURE: 'true',
        SEED_DEMO: '',
        RUN_WORKER: 'false',
        DNS_WORKERS: '2',
        SANDBOX_DNS_PORT: String(sandboxPort),
        DNS_SECONDARIES: `127.0.0.1:${knotPort}`,
      },
      { dir },
    );
    knot = await startKnot({ primaryPort: server.dnsPort, zones: [LIVE, SANDBOX], knotPort });
    const took = await waitFor(async () => (await serialAt(knotPort, LIVE)) !== null, 30_000, 100);
    expect(took, `Knot never served ${LIVE}; its log:\n${knot.log()}`).to.not.equal(null);
    // Knot has had every chance (it asked for both zones at start, and retried): the sandbox zone is not there.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await serialAt(knotPort, SANDBOX)).to.equal(null);

    // DNS_PORT: the live zone, and REFUSED for the sandbox one (query and transfer).
    expect((await dig(server.dnsPort, LIVE, 'SOA')).status).to.equal('NOERROR');
    expect((await dig(server.dnsPort, SANDBOX, 'SOA')).status).to.equal('REFUSED');
    expect((await digAxfr(server.dnsPort, SANDBOX)).records).to.deep.equal([]);
    // SANDBOX_DNS_PORT: the sandbox zone, not the live one, and no transfer of anything.
    expect((await dig(sandboxPort, SANDBOX, 'SOA')).status).to.equal('NOERROR');
    expect((await dig(sandboxPort, LIVE, 'SOA')).status).to.equal('REFUSED');
    expect((await digAxfr(sandboxPort, SANDBOX)).records).to.deep.equal([]);
  });
});
