import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { NodeDnssecCrypto } from '../../adapters/crypto/node/index.js';
import type { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { CSK_FLAGS, dnskeyRdata, keyTag } from '../../core/dnssec/dnskey.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import type { Zone } from '../../core/dns/zone/zone.js';
import { dig, freePort, requireTools, runKnotd, startServer, waitFor, type Knotd } from '../dns/server/tools.js';
import { startUnbound, type Unbound } from './validators.js';

const run = promisify(execFile);

/**
 * RFC 8901 model 2, the way a signed zone moves between operators without going insecure: each operator
 * signs the zone with its own key and publishes the other's key in its DNSKEY set; the parent holds both
 * DS. The other operator here is a real Knot signing the same records with its own CSK, holding our key
 * as a public-only key (`keymgr import-pub`). The decisive check is the mixed cache of RFC 8901 §2.1.2: a
 * resolver that learnt the DNSKEY set from one operator and then asks the other must validate its answers
 * — and must not once our DNSKEY set lacks the other's key, which is why taking that key out is a class 3
 * operation (dnssec_foreign_key_remove) and not an instant call.
 */
const ZONE = 'multi-signer.com';
const crypto = new NodeDnssecCrypto();

const rs = (name: string, type: RecordSet['type'], values: string[], ttl = 300): RecordSet => ({
  name: name === '@' ? ZONE : `${name}.${ZONE}`,
  type,
  ttl,
  values,
});
const SETS: RecordSet[] = [
  rs('@', 'SOA', ['ns1.domivka.net. hostmaster.domivka.net. 7 3600 600 1209600 300'], 3600),
  rs('@', 'NS', ['ns1.domivka.net.', 'ns1.other-operator.net.'], 3600),
  rs('@', 'A', ['192.0.2.1']),
  rs('@', 'MX', [`10 mail.${ZONE}.`]),
  rs('mail', 'A', ['192.0.2.25']),
  rs('www', 'A', ['192.0.2.80']),
  rs('*.w', 'A', ['192.0.2.99']),
];
const zoneFile = SETS.flatMap((s) => s.values.map((v) => `${s.name}. ${s.ttl} IN ${s.type} ${v}`)).join('\n') + '\n';

const now = () => Math.floor(Date.now() / 1000);

/** The other operator: Knot signing the zone with its own CSK and publishing ours (public only). */
const startOtherOperator = async (ours: {
  flags: number;
  publicKey: string;
}): Promise<{ knot: Knotd; port: number; dnskey: string; ds: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'dmk-multisigner-'));
  const port = await freePort();
  const conf = join(dir, 'knot.conf');
  writeFileSync(join(dir, `${ZONE}.zone`), zoneFile);
  writeFileSync(
    conf,
    `server:
    listen: 127.0.0.1@${port}
    rundir: ${dir}
database:
    storage: ${dir}
policy:
  - id: other
    algorithm: ecdsap256sha256
    single-type-signing: on
    manual: on
    nsec3: off
zone:
  - domain: ${ZONE}
    file: ${dir}/${ZONE}.zone
    storage: ${dir}
    dnssec-signing: on
    dnssec-policy: other
    zonefile-sync: -1
    zonefile-load: difference-no-serial
    journal-content: all
log:
  - target: stderr
    any: notice
`,
  );
  const keymgr = async (...args: string[]) => (await run('keymgr', ['-c', conf, `${ZONE}.`, ...args], { timeout: 20_000 })).stdout;
  await keymgr('generate', 'algorithm=13', 'ksk=yes', 'zsk=yes');
  writeFileSync(join(dir, 'ours.key'), `${ZONE}. IN DNSKEY ${ours.flags} 3 13 ${ours.publicKey}\n`);
  await keymgr('import-pub', join(dir, 'ours.key'));
  // Knot's own key: the one `keymgr list` does not mark public-only (ours is, and may sort first).
  const id = (await keymgr('list'))
    .split('\n')
    .find((l) => l.trim() && !l.includes('public-only'))!
    .split(/\s+/)[0]!;
  const own = (await keymgr('dnskey', id)).trim().split('\n')[0]!;
  const dnskey = own
    .split(/\s+/)
    .slice(2)
    .join(' ')
    .replace(/^DNSKEY /, '');
  const ds = (await keymgr('ds', id))
    .split('\n')
    .find((l) => / DS \d+ 13 2 /.test(l))!
    .replace(/^.* DS /, '');
  const knot = runKnotd(conf);
  const up = await waitFor(async () => (await dig(port, ZONE, 'DNSKEY', '+dnssec')).answer.some((r) => r.type === 'RRSIG'), 15_000, 100);
  if (up === null) throw new Error(`knotd did not serve the signed zone: ${knot.log()}`);
  return { knot, port, dnskey, ds: ds.replace(/[a-f]/g, (c) => c.toUpperCase()) };
};

describe('DNSSEC: a signed zone moves between operators without going insecure (RFC 8901 model 2, Knot as the other operator)', function () {
  this.timeout(120_000);
  let ns: EmbeddedNameserver;
  let port: number;
  let other: Awaited<ReturnType<typeof startOtherOperator>>;
  let ourDs: string;
  let ourKey: { tag: number; algorithm: 13; flags: number; publicKey: string; sealedPrivateKey: string; published: true; signing: true };
  const unbounds: Unbound[] = [];

  /** Our zone, carrying (or not) the other operator's key beside ours. */
  const ourZone = (serial: number, foreign: boolean): Zone => {
    const [flags, , algorithm, ...key] = other.dnskey.split(/\s+/);
    return {
      domain: ZONE,
      serial,
      recordSets: SETS.map((s) => (s.type === 'SOA' ? { ...s, values: [s.values[0]!.replace(' 7 ', ` ${serial} `)] } : s)),
      signing: {
        keys: [ourKey],
        inception: now() - 5400,
        expiration: now() + 14 * 86400,
        cds: false,
        ...(foreign ? { foreign: [{ flags: Number(flags), algorithm: Number(algorithm), publicKey: key.join('') }] } : {}),
      },
    };
  };

  before(async function () {
    requireTools(this, 'knotd', 'keymgr', 'unbound', 'unbound-control', 'dig');
    const k = crypto.generate(13);
    const rdata = dnskeyRdata(CSK_FLAGS, 13, k.publicKey);
    ourKey = {
      tag: keyTag(rdata),
      algorithm: 13,
      flags: CSK_FLAGS,
      publicKey: k.publicKey,
      sealedPrivateKey: k.privateKey,
      published: true,
      signing: true,
    };
    ourDs = `${ourKey.tag} 13 2 ${crypto.dsDigest(ZONE, rdata)}`;
    other = await startOtherOperator(ourKey);
    ({ ns, port } = await startServer([ourZone(7, true)], { openKey: (s) => s }));
  });
  after(async () => {
    for (const u of unbounds) await u.stop();
    await ns?.stop();
    await other?.knot.stop();
  });

  const resolver = async (stubPort: number): Promise<Unbound> => {
    const u = await startUnbound(ZONE, [ourDs, other.ds], stubPort, { control: true });
    unbounds.push(u);
    return u;
  };
  /** The key tag of the RRSIG over the answer's `type` RRset (which operator signed it). */
  const signerOf = (a: Awaited<ReturnType<Unbound['query']>>, type: string): number[] =>
    a.answer.filter((r) => r.type === 'RRSIG' && r.data.startsWith(`${type} `)).map((r) => Number(r.data.split(/\s+/)[6]));
  /** Point the resolver's stub at another server, keeping its cache (what a resolver does when it picks another NS). */
  const switchTo = async (u: Unbound, stubPort: number): Promise<void> => {
    await u.control('stub_remove', ZONE);
    await u.control('stub_add', ZONE, `127.0.0.1@${stubPort}`);
  };

  it("each operator's DNSKEY set carries both keys, each signed by its own operator's key", async () => {
    const otherTag = keyTag(dnskeyRdata(...(([f, , a, ...k]) => [Number(f), Number(a), k.join('')] as const)(other.dnskey.split(/\s+/))));
    const ours = await dig(port, ZONE, 'DNSKEY', '+dnssec');
    const theirs = await dig(other.port, ZONE, 'DNSKEY', '+dnssec');
    for (const [who, a, signer] of [
      ['ours', ours, ourKey.tag],
      ['Knot', theirs, otherTag],
    ] as const) {
      const keys = a.answer.filter((r) => r.type === 'DNSKEY').map((r) => r.data.replace(/\s+/g, ' '));
      expect(keys, `${who}: ${a.raw}`).to.have.length(2);
      expect(keys.map((d) => d.split(' ').slice(3).join(''))).to.have.members([
        ourKey.publicKey,
        other.dnskey.split(/\s+/).slice(3).join(''),
      ]);
      expect(signerOf(a, 'DNSKEY'), who).to.deep.equal([signer]);
    }
  });

  it('a validator anchored on both DS validates either operator on its own (positive, NXDOMAIN, wildcard)', async () => {
    for (const stub of [port, other.port]) {
      const u = await resolver(stub);
      for (const [name, type, status] of [
        [`www.${ZONE}`, 'A', 'NOERROR'],
        [`nothing.${ZONE}`, 'A', 'NXDOMAIN'],
        [`x.w.${ZONE}`, 'A', 'NOERROR'],
      ] as const) {
        const a = await u.query(name, type);
        expect(a.status, `${stub} ${name}: ${a.raw}\n${u.log()}`).to.equal(status);
        expect(a.flags, `${stub} ${name} validated: ${a.raw}\n${u.log()}`).to.include('ad');
      }
    }
  });

  it("a resolver that learnt the DNSKEY set from one operator validates the other's answers (both directions)", async () => {
    const otherTag = Number(other.ds.split(' ')[0]);
    for (const [first, second, secondTag] of [
      [port, other.port, otherTag],
      [other.port, port, ourKey.tag],
    ] as const) {
      const u = await resolver(first);
      expect((await u.query(ZONE, 'DNSKEY')).flags).to.include('ad');
      await switchTo(u, second);
      const a = await u.query(`mail.${ZONE}`, 'A');
      expect(a.status, `${a.raw}\n${u.log()}`).to.equal('NOERROR');
      expect(a.flags, `validated with the first operator's DNSKEY set: ${a.raw}\n${u.log()}`).to.include('ad');
      expect(signerOf(a, 'A'), 'signed by the second operator').to.deep.equal([secondTag]);
    }
  });

  it("without the other operator's key in our DNSKEY set, that mixed cache fails: removal too early takes the zone off for validators", async () => {
    await ns.publish(ourZone(8, false));
    const u = await resolver(port);
    const keys = await u.query(ZONE, 'DNSKEY');
    expect(keys.answer.filter((r) => r.type === 'DNSKEY')).to.have.length(1);
    await switchTo(u, other.port);
    const a = await u.query(`mail.${ZONE}`, 'A');
    expect(a.status, `${a.raw}\n${u.log()}`).to.equal('SERVFAIL');
    // Once the move is over (the other operator gone from the delegation), our zone alone validates.
    const alone = await resolver(port);
    const ok = await alone.query(`www.${ZONE}`, 'A');
    expect(ok.flags, ok.raw).to.include('ad');
    expect(signerOf(ok, 'A')).to.deep.equal([ourKey.tag]);
  });
});
