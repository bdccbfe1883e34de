import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { requirePebble } from '../../support/pebble.js';
import { eachStore } from '../../support/stores.js';
import { dig, rdata } from '../../dns/server/tools.js';
import { OTHER_ZONE, ZONE, run, sans, setUp, verifyChain, type AcmeSetup } from './harness.js';

/**
 * README "DNS UPDATE (RFC 2136) with TSIG", lego block: lego 4.9.1's `rfc2136` provider (miekg/dns: the
 * UPDATE over UDP, signed) obtains x + *.x from Pebble with an ACME-only key's TSIG credential against our
 * DNS server — no hook script, no API call. The algorithm is set explicitly (lego's default is hmac-md5,
 * which we refuse) and names carry the trailing dot miekg/dns wants. Short polling intervals keep the run
 * near Pebble's own pace.
 */
eachStore('lego --dns rfc2136 with an ACME-only key', (kind) => {
  let s: AcmeSetup;
  let tsig: { name: string; algorithm: string; secret: string };
  before(async function () {
    this.timeout(60_000);
    requirePebble(this, 'lego', 'openssl');
    s = await setUp(kind);
    tsig = (await s.api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [ZONE] })).body.tsig;
  });
  after(async () => s?.close());

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
        'rfc2136',
        '--dns.disable-cp',
        '--dns.resolvers',
        `127.0.0.1:${s.api.dnsPort}`,
        ...domains.flatMap((d) => ['-d', d]),
        'run',
      ],
      {
        RFC2136_NAMESERVER: `127.0.0.1:${s.api.dnsPort}`,
        RFC2136_TSIG_KEY: `${tsig.name}.`,
        RFC2136_TSIG_ALGORITHM: `${tsig.algorithm}.`,
        RFC2136_TSIG_SECRET: tsig.secret,
        RFC2136_POLLING_INTERVAL: '1',
        RFC2136_SEQUENCE_INTERVAL: '1',
        RFC2136_PROPAGATION_TIMEOUT: '30',
        LEGO_CA_CERTIFICATES: s.files.listenerCa,
      },
    );

  it("issues x + *.x: exit 0, the SANs asked for, a chain to Pebble's root, no challenge value left", async function () {
    this.timeout(90_000);
    const dir = join(s.tmp, 'lego-rfc2136-ok');
    const names = [ZONE, `*.${ZONE}`];
    const r = await lego(dir, names);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).not.to.contain(tsig.secret);
    const certs = join(dir, 'certificates');
    const bundle = join(certs, `${ZONE}.crt`);
    expect(existsSync(bundle), readdirSync(certs).join(' ')).to.equal(true);
    expect(sans(readFileSync(bundle, 'utf8'))).to.deep.equal([...names].sort());
    const v = await verifyChain(s.files.root, join(certs, `${ZONE}.issuer.crt`), bundle);
    expect(v.code, v.out).to.equal(0);
    // lego's cleanup is an UPDATE deleting the value it added: nothing is left in the store or on the wire.
    expect(await s.leftovers(ZONE, names)).to.deep.equal([]);
    // Each UPDATE was a plan applied by the key (the same checked path as the API's).
    const applied = await s.api.system.store.knex('events').where({ type: 'dns.plan_applied' }).whereLike('actor', 'key:%');
    expect(applied.length, 'plans applied by a key').to.be.at.least(2);
  });

  it('the same credential gets no certificate for another domain of the account: lego fails on REFUSED (as for a zone we do not serve: never NOTAUTH, which lego reads as a bad key), nothing written', async function () {
    this.timeout(60_000);
    const dir = join(s.tmp, 'lego-rfc2136-refused');
    const r = await lego(dir, [OTHER_ZONE]);
    expect(r.code, r.out).to.not.equal(0);
    // The key holds no DNS right there: refused alike whether the account has the zone or not.
    expect(r.out).to.match(/REFUSED/);
    expect(r.out).not.to.contain('bad authentication');
    expect(r.out).not.to.contain(tsig.secret);
    expect(existsSync(join(dir, 'certificates', `${OTHER_ZONE}.crt`))).to.equal(false);
    expect(rdata((await dig(s.api.dnsPort!, `_acme-challenge.${OTHER_ZONE}`, 'TXT')).answer)).to.deep.equal([]);
  });
});
