import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { requirePebble } from '../../support/pebble.js';
import { eachStore } from '../../support/stores.js';
import { HOOKS, OTHER_ZONE, ZONE, run, sans, setUp, verifyChain, type AcmeSetup } from './harness.js';

/**
 * Lego (Debian `lego` 4.9.1) obtains a certificate from Pebble with our exec hook, a key that
 * holds only dns.acme_challenge, our API and our DNS server — the commands the README shows.
 */
eachStore('lego with examples/acme-hooks/lego-exec.sh', (kind) => {
  let s: AcmeSetup;
  before(async function () {
    this.timeout(60_000);
    requirePebble(this, 'lego', 'openssl', 'curl');
    s = await setUp(kind);
  });
  after(async () => s?.close());

  /** README "Use with lego", plus what Pebble needs (its CA file, our DNS server as the resolver). */
  const lego = (dir: string, domains: readonly string[]) =>
    run(
      'lego',
      [
        '--server',
        s.pebble.directoryUrl,
        '--accept-tos',
        '--email',
        'acme@domivka-demo.com.ua',
        '--path',
        dir,
        '--dns',
        'exec',
        '--dns.disable-cp',
        '--dns.resolvers',
        `127.0.0.1:${s.api.dnsPort}`,
        ...domains.flatMap((d) => ['-d', d]),
        'run',
      ],
      {
        ...s.hookEnv(join(dir, 'state')),
        EXEC_PATH: join(HOOKS, 'lego-exec.sh'),
        EXEC_SEQUENCE_INTERVAL: '1',
        EXEC_POLLING_INTERVAL: '1',
        LEGO_CA_CERTIFICATES: s.files.listenerCa,
      },
    );

  it("issues www.x + *.x: exit 0, the SANs asked for, a chain to Pebble's root, no challenge value left", async function () {
    this.timeout(90_000);
    const dir = join(s.tmp, 'lego-ok');
    const names = [`www.${ZONE}`, `*.${ZONE}`];
    const r = await lego(dir, names);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.contain(`domivka-acme: added TXT _acme-challenge.www.${ZONE} in zone ${ZONE}`);
    expect(r.out).to.contain(`domivka-acme: removed TXT _acme-challenge.${ZONE} from zone ${ZONE}`);
    expect(r.out).not.to.contain(s.acmeKey);

    const certs = join(dir, 'certificates');
    const bundle = join(certs, `www.${ZONE}.crt`);
    const issuer = join(certs, `www.${ZONE}.issuer.crt`);
    expect(existsSync(bundle), readdirSync(certs).join(' ')).to.equal(true);
    expect(sans(readFileSync(bundle, 'utf8'))).to.deep.equal([...names].sort());
    const v = await verifyChain(s.files.root, issuer, bundle); // the bundle's first certificate is the leaf
    expect(v.code, v.out).to.equal(0);
    expect(v.out).to.contain(': OK');

    expect(await s.leftovers(ZONE, names)).to.deep.equal([]);
    expect(readdirSync(join(dir, 'state')).filter((f) => !f.endsWith('.removed'))).to.deep.equal([]);
  });

  it('cannot get a certificate for a domain outside the key: the hook fails naming right_missing, lego fails, nothing written', async function () {
    this.timeout(90_000);
    const dir = join(s.tmp, 'lego-refused');
    const r = await lego(dir, [OTHER_ZONE]);
    expect(r.code, r.out).to.not.equal(0);
    expect(r.out).to.contain(`no zone of this key accepts _acme-challenge.${OTHER_ZONE}`);
    expect(r.out).to.contain('403 right_missing');
    expect(r.out).not.to.contain(s.acmeKey);
    expect(existsSync(join(dir, 'certificates', `${OTHER_ZONE}.crt`))).to.equal(false);
    expect(await s.leftovers(OTHER_ZONE, [OTHER_ZONE])).to.deep.equal([]);
  });
});
