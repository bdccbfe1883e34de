import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDnssecCrypto } from '../../adapters/crypto/node/index.js';
import { CSK_FLAGS, dnskeyRdata, keyTag, type DnssecAlgorithm } from '../../core/dnssec/dnskey.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import type { ZoneSigning } from '../../core/dns/zone/zone-signing.js';
import type { Zone } from '../../core/dns/zone/zone.js';
import type { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { dig, digAxfr, freePort, knotSecondaryConf, requireTools, runKnotd, startServer, waitFor } from '../dns/server/tools.js';
import { delvFor, startUnbound, type Unbound } from './validators.js';

/**
 * A signed zone checked by two real validators — unbound validating with our DS as its trust anchor and our
 * server as its stub, and BIND's delv asking our server with the same DS — ldns-verify-zone and kzonecheck on the
 * AXFR copy, and a copy with one signature altered served by Knot, which both validators must refuse.
 */
const ZONE = 'signed-example.com';
const crypto = new NodeDnssecCrypto();

export const testKey = (algorithm: DnssecAlgorithm) => {
  const k = crypto.generate(algorithm);
  const rdata = dnskeyRdata(CSK_FLAGS, algorithm, k.publicKey);
  const tag = keyTag(rdata);
  return {
    key: { tag, algorithm, flags: CSK_FLAGS, publicKey: k.publicKey, sealedPrivateKey: k.privateKey, published: true, signing: true },
    ds: `${tag} ${algorithm} 2 ${crypto.dsDigest(ZONE, rdata)}`,
  };
};

const rs = (name: string, type: RecordSet['type'], values: string[], ttl = 300): RecordSet => ({
  name: name === '@' ? ZONE : `${name}.${ZONE}`,
  type,
  ttl,
  values,
});

export const sampleSets = (serial: number): RecordSet[] => [
  rs('@', 'SOA', [`ns1.domivka.net. hostmaster.domivka.net. ${serial} 3600 600 1209600 300`], 3600),
  rs('@', 'NS', ['ns1.domivka.net.', 'ns2.domivka.net.'], 3600),
  rs('@', 'A', ['192.0.2.1']),
  rs('@', 'MX', [`10 mail.${ZONE}.`]),
  rs('mail', 'A', ['192.0.2.25']),
  rs('www', 'A', ['192.0.2.80']),
  rs('c1', 'CNAME', [`c2.${ZONE}.`]),
  rs('c2', 'CNAME', [`www.${ZONE}.`]),
  rs('*.w', 'A', ['192.0.2.99']),
  rs('a.ent', 'TXT', ['below an empty non-terminal']),
  rs('sub', 'NS', [`ns.sub.${ZONE}.`]),
  rs('ns.sub', 'A', ['192.0.2.53']),
  rs('big', 'TXT', ['x'.repeat(200), 'y'.repeat(200)]),
];

const window = (): Pick<ZoneSigning, 'inception' | 'expiration'> => {
  const now = Math.floor(Date.now() / 1000);
  return { inception: now - 5400, expiration: now + 14 * 86400 };
};

const identity = (s: string): string => s;

for (const algorithm of [13, 15] as const) {
  describe(`DNSSEC: a zone signed with algorithm ${algorithm}, checked by validators`, function () {
    this.timeout(60_000);
    let ns: EmbeddedNameserver;
    let port: number;
    let unbound: Unbound;
    let ds: string;
    let zone: Zone;

    before(async function () {
      requireTools(this, 'unbound', 'dig', 'delv', 'ldns-verify-zone', 'kzonecheck', 'knotd');
      const k = testKey(algorithm);
      ds = k.ds;
      zone = { domain: ZONE, serial: 1, recordSets: sampleSets(1), signing: { keys: [k.key], ...window(), cds: false } };
      ({ ns, port } = await startServer([zone], { openKey: identity }));
      unbound = await startUnbound(ZONE, [ds], port);
    });
    after(async () => {
      await unbound?.stop();
      await ns?.stop();
    });

    const ad = async (name: string, type: string, status: string): Promise<void> => {
      const a = await unbound.query(name, type);
      expect(a.status, `${name} ${type}: ${a.raw}\n${unbound.log()}`).to.equal(status);
      expect(a.flags, `${name} ${type} validated: ${a.raw}\n${unbound.log()}`).to.include('ad');
    };

    it('validates a positive answer, the DNSKEY set and the SOA', async () => {
      await ad(`www.${ZONE}`, 'A', 'NOERROR');
      await ad(ZONE, 'DNSKEY', 'NOERROR');
      await ad(ZONE, 'MX', 'NOERROR');
    });
    it('validates NXDOMAIN (NSEC over the name and over the wildcard) and NODATA, an empty non-terminal too', async () => {
      await ad(`nothing.${ZONE}`, 'A', 'NXDOMAIN');
      await ad(`www.${ZONE}`, 'AAAA', 'NOERROR');
      await ad(`ent.${ZONE}`, 'A', 'NOERROR');
      await ad(`x.y.z.${ZONE}`, 'TXT', 'NXDOMAIN');
    });
    it('validates a wildcard expansion and a wildcard NODATA', async () => {
      await ad(`anything.w.${ZONE}`, 'A', 'NOERROR');
      const a = await unbound.query(`anything.w.${ZONE}`, 'A');
      expect(a.answer.map((r) => r.data)).to.include('192.0.2.99');
      await ad(`other.w.${ZONE}`, 'AAAA', 'NOERROR');
    });
    it('validates a CNAME chain and the proof that a delegation has no DS', async () => {
      await ad(`c1.${ZONE}`, 'A', 'NOERROR');
      const a = await unbound.query(`c1.${ZONE}`, 'A');
      expect(a.answer.filter((r) => r.type === 'CNAME')).to.have.length(2);
      await ad(`sub.${ZONE}`, 'DS', 'NOERROR');
    });
    it('a second validator, delv, fully validates the same answers: positive, NXDOMAIN, NODATA, wildcard, CNAME chain, no DS', async () => {
      const delv = delvFor(ZONE, [ds]);
      for (const [name, type, negative] of [
        [`www.${ZONE}`, 'A', false],
        [`${ZONE}`, 'DNSKEY', false],
        [`nothing.${ZONE}`, 'A', true],
        [`www.${ZONE}`, 'AAAA', true],
        [`ent.${ZONE}`, 'A', true],
        [`anything.w.${ZONE}`, 'A', false],
        [`c1.${ZONE}`, 'A', false],
        [`sub.${ZONE}`, 'DS', true],
      ] as const) {
        const a = await delv(port, name, type);
        expect(a.validated, `${name} ${type}: ${a.out}`).to.equal(true);
        expect(a.negative, `${name} ${type}: ${a.out}`).to.equal(negative);
      }
      const wild = await delv(port, `anything.w.${ZONE}`, 'A');
      expect(wild.out).to.match(/anything\.w\.signed-example\.com\.\s+300\s+IN\s+A\s+192\.0\.2\.99/);
    });
    it('answers with RRSIGs and proofs only when DO is set; a referral carries the NSEC proving no DS', async () => {
      const plain = await dig(port, `www.${ZONE}`, 'A');
      expect(plain.answer.map((r) => r.type)).to.deep.equal(['A']);
      const signed = await dig(port, `www.${ZONE}`, 'A', '+dnssec');
      expect(signed.answer.map((r) => r.type)).to.deep.equal(['A', 'RRSIG']);
      // RFC 4035 §3.1.1: a signed RRset in the additional section comes with its RRSIGs.
      const mx = await dig(port, ZONE, 'MX', '+dnssec');
      expect(mx.answer.map((r) => r.type)).to.deep.equal(['MX', 'RRSIG']);
      expect(mx.additional.map((r) => `${r.name} ${r.type}`)).to.deep.equal([`mail.${ZONE}. A`, `mail.${ZONE}. RRSIG`]);
      expect(mx.additional[1]!.data).to.match(/^A 13|^A 15/);
      const mxPlain = await dig(port, ZONE, 'MX');
      expect(mxPlain.additional.map((r) => r.type)).to.deep.equal(['A']);
      const nx = await dig(port, `nothing.${ZONE}`, 'A', '+dnssec');
      expect(nx.authority.map((r) => r.type)).to.include.members(['SOA', 'RRSIG', 'NSEC']);
      const ref = await dig(port, `host.sub.${ZONE}`, 'A', '+dnssec');
      expect(ref.flags).to.not.include('aa');
      expect(ref.authority.map((r) => r.type)).to.deep.equal(['NS', 'NSEC', 'RRSIG']);
    });
    it('truncates over UDP rather than send an answer without its signature; TCP gets it whole', async () => {
      // Two 200-octet strings fit 512 octets; with their RRSIG they do not.
      const plain = await dig(port, `big.${ZONE}`, 'TXT', '+bufsize=512', '+ignore');
      expect(plain.flags, plain.raw).to.not.include('tc');
      expect(plain.answer.map((r) => r.type)).to.deep.equal(['TXT', 'TXT']);
      const signed = await dig(port, `big.${ZONE}`, 'TXT', '+dnssec', '+bufsize=512', '+ignore');
      expect(signed.flags, signed.raw).to.include('tc');
      expect(signed.answer).to.have.length(0);
      const tcp = await dig(port, `big.${ZONE}`, 'TXT', '+dnssec', '+tcp');
      expect(tcp.answer.map((r) => r.type)).to.deep.equal(['TXT', 'TXT', 'RRSIG']);
      await ad(`big.${ZONE}`, 'TXT', 'NOERROR');
    });
    it('passes ldns-verify-zone and kzonecheck --dnssec on on the AXFR copy', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dmk-signed-'));
      const { raw } = await digAxfr(port, ZONE, '+onesoa', '+nocmd', '+nostats');
      const file = join(dir, `${ZONE}.zone`);
      writeFileSync(
        file,
        raw
          .split('\n')
          .filter((l) => l.trim() && !l.startsWith(';'))
          .join('\n') + '\n',
      );
      const ldns = spawnSync('ldns-verify-zone', [file], { encoding: 'utf8' });
      expect(ldns.status, ldns.stdout + ldns.stderr).to.equal(0);
      expect(ldns.stdout + ldns.stderr).to.match(/Zone is verified and complete/);
      const knot = spawnSync('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file], { encoding: 'utf8' });
      expect(knot.status, knot.stdout + knot.stderr).to.equal(0);
    });
    it('a copy with one signature altered, served by Knot, fails validation (unbound: SERVFAIL; delv: not validated)', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dmk-tamper-'));
      mkdirSync(join(dir, 'zones'));
      const { raw } = await digAxfr(port, ZONE, '+onesoa', '+nocmd', '+nostats');
      const lines = raw.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
      const i = lines.findIndex((l) => l.startsWith(`www.${ZONE}.`) && /\sRRSIG\s+A\s/.test(l));
      expect(i, 'the RRSIG over www A').to.be.greaterThan(-1);
      // Flip one character of the signature's base64 (the last field).
      const line = lines[i]!;
      const at = line.length - 10;
      lines[i] = line.slice(0, at) + (line[at] === 'A' ? 'B' : 'A') + line.slice(at + 1);
      writeFileSync(join(dir, 'zones', `${ZONE}.zone`), lines.join('\n') + '\n');
      const knotPort = await freePort([port]);
      mkdirSync(join(dir, 'db'));
      const conf = join(dir, 'knot.conf');
      writeFileSync(
        conf,
        `server:\n    rundir: "${dir}"\n    listen: 127.0.0.1@${knotPort}\ndatabase:\n    storage: "${dir}/db"\ntemplate:\n  - id: default\n    storage: "${dir}/zones"\n    file: "%s.zone"\nzone:\n  - domain: ${ZONE}\n`,
      );
      const knotd = runKnotd(conf);
      const tampered = await startUnbound(ZONE, [ds], knotPort);
      try {
        const good = await tampered.query(`mail.${ZONE}`, 'A');
        expect(good.flags, good.raw).to.include('ad');
        const bad = await tampered.query(`www.${ZONE}`, 'A');
        expect(bad.status, bad.raw).to.equal('SERVFAIL');
        // delv agrees: the altered signature does not validate, the untouched one does.
        const delv = delvFor(ZONE, [ds]);
        expect((await delv(knotPort, `mail.${ZONE}`, 'A')).validated).to.equal(true);
        const delvBad = await delv(knotPort, `www.${ZONE}`, 'A');
        expect(delvBad.validated, delvBad.out).to.equal(false);
        expect(delvBad.out, delvBad.out).to.match(/resolution failed|validation failed|no valid signature|SERVFAIL/i);
      } finally {
        await tampered.stop();
        await knotd.stop();
      }
    });
    it('a Knot secondary transfers the signed zone and serves it unchanged: unbound validates through it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'dmk-knot2-'));
      const knotPort = await freePort([port]);
      const conf = join(dir, 'knot.conf');
      writeFileSync(conf, knotSecondaryConf({ dir, knotPort, primaryPort: port, zones: [ZONE] }));
      const knotd = runKnotd(conf);
      try {
        const got = await waitFor(async () => (await dig(knotPort, ZONE, 'SOA')).status === 'NOERROR', 10_000);
        expect(got, knotd.log()).to.not.equal(null);
        const via = await startUnbound(ZONE, [ds], knotPort);
        try {
          for (const [name, type, status] of [
            [`www.${ZONE}`, 'A', 'NOERROR'],
            [`nothing.${ZONE}`, 'A', 'NXDOMAIN'],
            [`any.w.${ZONE}`, 'A', 'NOERROR'],
          ] as const) {
            const a = await via.query(name, type);
            expect(a.status, a.raw).to.equal(status);
            expect(a.flags, `${name} ${type} through Knot: ${a.raw}`).to.include('ad');
          }
        } finally {
          await via.stop();
        }
      } finally {
        await knotd.stop();
      }
    });
    it('re-signs only the RRsets a change touched', async () => {
      const sets = sampleSets(2).map((s) => (s.name === `www.${ZONE}` ? { ...s, values: ['192.0.2.81'] } : s));
      zone = { ...zone, serial: 2, recordSets: sets };
      await ns.publish(zone);
      const a = await dig(port, `www.${ZONE}`, 'A', '+dnssec');
      expect(a.answer.map((r) => r.data)).to.include('192.0.2.81');
      // Changed: the SOA (serial) and www A. Every other signature is the one made before.
      expect(ns.signatures.cacheOf(ZONE)!.made).to.equal(2);
      await ad(`www.${ZONE}`, 'A', 'NOERROR');
    });
  });
}
