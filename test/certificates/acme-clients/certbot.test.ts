import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requirePebble } from '../../support/pebble.js';
import { eachStore } from '../../support/stores.js';
import { HOOKS, OTHER_ZONE, ZONE, run, sans, setUp, verifyChain, type AcmeSetup } from './harness.js';

/**
 * Certbot (Debian `certbot` 2.1) obtains a certificate from Pebble with our manual auth and
 * cleanup hooks, a key that holds only dns.acme_challenge, our API and our DNS server — the commands the
 * README shows. x + *.x puts two values at one name at once (certbot runs every auth hook first).
 */
eachStore('certbot with examples/acme-hooks/certbot-{auth,cleanup}.sh', (kind) => {
  let s: AcmeSetup;
  before(async function () {
    this.timeout(60_000);
    requirePebble(this, 'certbot', 'openssl', 'curl');
    s = await setUp(kind);
  });
  after(async () => s?.close());

  /** README "Use with certbot", plus what Pebble needs (its CA file) and a directory of its own. */
  const certbot = (dir: string, domains: readonly string[]) =>
    run(
      'certbot',
      [
        'certonly',
        '--non-interactive',
        '--agree-tos',
        '--register-unsafely-without-email',
        '--server',
        s.pebble.directoryUrl,
        '--config-dir',
        join(dir, 'config'),
        '--work-dir',
        join(dir, 'work'),
        '--logs-dir',
        join(dir, 'logs'),
        '--manual',
        '--preferred-challenges',
        'dns',
        '--manual-auth-hook',
        join(HOOKS, 'certbot-auth.sh'),
        '--manual-cleanup-hook',
        join(HOOKS, 'certbot-cleanup.sh'),
        ...domains.flatMap((d) => ['-d', d]),
      ],
      { ...s.hookEnv(join(dir, 'state')), REQUESTS_CA_BUNDLE: s.files.listenerCa, HOME: dir },
    );

  it("issues x + *.x: exit 0, the SANs asked for, a chain to Pebble's root, no challenge value left", async function () {
    this.timeout(90_000);
    const dir = join(s.tmp, 'certbot-ok');
    const names = [ZONE, `*.${ZONE}`];
    const r = await certbot(dir, names);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).not.to.contain(s.acmeKey);

    const live = join(dir, 'config', 'live', ZONE);
    expect(existsSync(join(live, 'cert.pem')), r.out).to.equal(true);
    expect(sans(readFileSync(join(live, 'cert.pem'), 'utf8'))).to.deep.equal([...names].sort());
    const v = await verifyChain(s.files.root, join(live, 'chain.pem'), join(live, 'cert.pem'));
    expect(v.code, v.out).to.equal(0);
    expect(v.out).to.contain(': OK');

    expect(await s.leftovers(ZONE, names)).to.deep.equal([]);
    const log = readFileSync(join(dir, 'logs', 'letsencrypt.log'), 'utf8');
    expect(log).not.to.contain(s.acmeKey);
  });

  it('cannot get a certificate for a domain outside the key: the auth hook fails naming right_missing, certbot fails, nothing written', async function () {
    this.timeout(90_000);
    const dir = join(s.tmp, 'certbot-refused');
    const r = await certbot(dir, [OTHER_ZONE]);
    expect(r.code, r.out).to.not.equal(0);
    const log = readFileSync(join(dir, 'logs', 'letsencrypt.log'), 'utf8');
    expect(`${r.out}\n${log}`).to.contain(`no zone of this key accepts _acme-challenge.${OTHER_ZONE}`).and.contain('403 right_missing');
    expect(`${r.out}\n${log}`).not.to.contain(s.acmeKey);
    expect(existsSync(join(dir, 'config', 'live', OTHER_ZONE))).to.equal(false);
    expect(await s.leftovers(OTHER_ZONE, [OTHER_ZONE])).to.deep.equal([]);
  });
});
