import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeDnssecCrypto } from '../../adapters/crypto/node/index.js';
import { CompactNodes, compaction, compileZone, type CompiledZone, type Part } from '../../adapters/dns/embedded/compiled-zone.js';
import { RR, SignatureCache } from '../../adapters/dns/embedded/dnssec.js';
import type { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { resolve, type Resolution } from '../../adapters/dns/embedded/resolve.js';
import { T, type EncodedSet } from '../../adapters/dns/embedded/wire.js';
import { ZoneSignatures } from '../../adapters/dns/embedded/zone-signatures.js';
import type { RecordSet, RecordType } from '../../core/dns/zone/record-set.js';
import type { ZoneSigning } from '../../core/dns/zone/zone-signing.js';
import type { Zone } from '../../core/dns/zone/zone.js';
import { CSK_FLAGS, dnskeyRdata, keyTag, type DnssecAlgorithm } from '../../core/dnssec/dnskey.js';
import { digAxfr, requireTools, startServer } from './server/tools.js';
import { prng as rng } from '../support/prng.js';

/**
 * Issues 22 and 24: a publish that changes a few record sets updates the compiled zone in place of compiling
 * it again (adapters/dns/embedded/incremental.ts). Property-style: a random sequence of small changes (sets
 * added, removed and replaced; names that bring and take empty non-terminals, wildcards, delegations and
 * their glue, NS/MX/SRV targets whose addresses change), and after each the incrementally built version
 * must be the one a whole compile of the same version makes — the same names, sets in the same order,
 * cuts, glue, additional data, NSEC chain, and the same answer to every question asked of both. Signed:
 * the same again (signatures aside: ECDSA signs at random), and the AXFR copy passes ldns-verify-zone.
 * INCREMENTAL_STEPS (default 40) sets how many versions each run publishes.
 */
const ZONE = 'incr.example';
const STEPS = Number(process.env.INCREMENTAL_STEPS ?? 40);
const SIG = 64; // both algorithms make 64-octet signatures

const abs = (n: string): string => (n === '@' ? ZONE : `${n}.${ZONE}`);
const soa = (serial: number): RecordSet => ({
  name: ZONE,
  type: 'SOA',
  ttl: 3600,
  values: [`ns1.domivka.net. hostmaster.domivka.net. ${serial} 3600 600 1209600 300`],
});

const baseSets = (): RecordSet[] => [
  soa(1),
  { name: ZONE, type: 'NS', ttl: 3600, values: ['ns1.domivka.net.', 'ns2.domivka.net.'] },
  { name: ZONE, type: 'A', ttl: 300, values: ['192.0.2.1'] },
  { name: ZONE, type: 'MX', ttl: 300, values: [`10 ${abs('mail')}.`] },
  { name: abs('mail'), type: 'A', ttl: 300, values: ['192.0.2.25'] },
  { name: abs('www'), type: 'A', ttl: 300, values: ['192.0.2.80'] },
  { name: abs('www'), type: 'AAAA', ttl: 300, values: ['2001:db8::80'] },
  { name: abs('_sip._tcp'), type: 'SRV', ttl: 300, values: [`0 5 5060 ${abs('www')}.`] },
  { name: abs('*.w'), type: 'A', ttl: 300, values: ['192.0.2.99'] },
  { name: abs('a.ent'), type: 'TXT', ttl: 300, values: ['below an empty non-terminal'] },
  { name: abs('x.y.deep'), type: 'TXT', ttl: 300, values: ['three levels'] },
  { name: abs('sub'), type: 'NS', ttl: 3600, values: [`ns.${abs('sub')}.`, 'ns.elsewhere.net.'] },
  { name: abs('ns.sub'), type: 'A', ttl: 3600, values: ['192.0.2.53'] },
  { name: abs('out'), type: 'NS', ttl: 3600, values: ['ns.elsewhere.net.'] },
  { name: abs('c1'), type: 'CNAME', ttl: 300, values: [`${abs('www')}.`] },
];

/** Names the changes pick from: existing ones, new ones (some deep: empty non-terminals), wildcards, names below cuts. */
const NAMES = [
  '@',
  'mail',
  'www',
  'c1',
  'a.ent',
  'b.ent',
  'ent',
  'x.y.deep',
  'z.y.deep',
  'y.deep',
  'n1',
  'n2',
  'n3',
  'p.q.r.n4',
  '*.w',
  'w',
  'a.w',
  '*',
  '*.z',
  'q.*.z',
  'mail2',
  'ns.sub',
  'ns2.sub',
  'host.sub',
  'ns.out',
  'sub',
  'out',
  'newcut',
  'ns.newcut',
  '_sip._tcp',
  '_xmpp._tcp',
];
const TYPES: RecordType[] = ['A', 'A', 'AAAA', 'TXT', 'MX', 'SRV', 'NS', 'CNAME', 'CAA', 'PTR'];
const TARGETS = ['mail', 'www', 'n1', 'n2', 'mail2', 'ns.sub', 'ns2.sub', 'ns.newcut', 'p.q.r.n4', 'a.w'];

const valueOf = (type: RecordType, r: () => number): string[] => {
  const pick = (): string => abs(TARGETS[Math.floor(r() * TARGETS.length)]!);
  const n = 1 + Math.floor(r() * 2);
  const vals = new Set<string>();
  for (let i = 0; i < (type === 'CNAME' ? 1 : n); i++) {
    const k = Math.floor(r() * 250) + 1;
    if (type === 'A') vals.add(`192.0.2.${k}`);
    else if (type === 'AAAA') vals.add(`2001:db8::${k.toString(16)}`);
    else if (type === 'TXT') vals.add(`text ${k}`);
    else if (type === 'MX') vals.add(`${k} ${pick()}.`);
    else if (type === 'SRV') vals.add(`0 ${k} 443 ${pick()}.`);
    else if (type === 'NS') vals.add(`${pick()}.`);
    else if (type === 'CNAME') vals.add(`${pick()}.`);
    else if (type === 'CAA') vals.add(`0 issue "ca${k}.example"`);
    else vals.add(`${pick()}.`);
  }
  return [...vals];
};

/** One small change, as the store's next version makes it: a replaced set keeps its place, a new one goes last. */
const change = (sets: RecordSet[], r: () => number): void => {
  const op = r();
  const mutable = sets.map((s, i) => [s, i] as const).filter(([s]) => s.type !== 'SOA' && !(s.name === ZONE && s.type === 'NS'));
  if (op < 0.3 && mutable.length > 0) {
    const [, i] = mutable[Math.floor(r() * mutable.length)]!;
    sets.splice(i, 1);
    return;
  }
  if (op < 0.38 && mutable.length > 0) {
    // Moved in the list (the sets of its name may change order: ANY answers the first).
    const [moved, i] = mutable[Math.floor(r() * mutable.length)]!;
    sets.splice(i, 1);
    sets.splice(1 + Math.floor(r() * sets.length), 0, moved);
    return;
  }
  if (op < 0.6 && mutable.length > 0) {
    const [s, i] = mutable[Math.floor(r() * mutable.length)]!;
    sets[i] = { ...s, ttl: r() < 0.3 ? 60 + Math.floor(r() * 600) : s.ttl, values: valueOf(s.type, r) };
    return;
  }
  const name = abs(NAMES[Math.floor(r() * NAMES.length)]!);
  const type = TYPES[Math.floor(r() * TYPES.length)]!;
  if (name === ZONE && type === 'NS') return;
  const set: RecordSet = { name, type, ttl: 300, values: valueOf(type, r) };
  const at = sets.findIndex((s) => s.name === name && s.type === type);
  if (at >= 0) sets[at] = set;
  else sets.push(set);
};

const tails = (s: EncodedSet): string =>
  s.tails.map((t) => (s.type === RR.RRSIG ? t.subarray(0, t.length - SIG) : t).toString('hex')).join(',');
const setText = (s: EncodedSet | undefined): string => (s ? `${s.type}/${s.ttl}/${tails(s)}` : '-');
const partText = (p: Part): string => `${p.owner} ${p.required === true ? 'required ' : ''}${setText(p.set)}`;

/** Everything a compiled zone answers from, names sorted (signatures cut off: they are made at random). */
const dump = (z: CompiledZone): string[] => {
  const out = [
    `apex ${z.apex} labels ${z.labels} serial ${z.serial} expire ${z.expire} records ${z.recordCount}`,
    `soa ${setText(z.soa)} negative ${setText(z.negativeSoa)} sig ${setText(z.dnssec?.negativeSoaSig)}`,
    `apexNode ${z.apexNode === z.nodes.get(z.apex) ? 'current' : 'STALE'}`,
  ];
  let additional = 0;
  for (const name of [...z.nodes.keys()].sort()) {
    const n = z.nodes.get(name)!;
    out.push(`${name} name=${n.name} cut=${n.cut} wire=${n.wire.toString('hex')}`);
    out.push(`  order ${n.order.map(setText).join(' | ')}`);
    out.push(`  sets ${[...n.sets.values()].map(setText).sort().join(' | ')}`);
    out.push(`  same ${n.order.every((s) => n.sets.get(s.type) === s) && n.order.length === n.sets.size}`);
    out.push(`  glue ${n.glue.map(partText).join(' | ')}`);
    const sigs = n.sigs && n.sigs.size > 0 ? [...n.sigs].sort(([a], [b]) => a - b) : [];
    out.push(`  sigs ${sigs.map(([t, s]) => `${t}:${setText(s)}`).join(' | ')}`);
    for (const s of n.order) {
      const parts = z.additional.get(s);
      if (parts) {
        additional++;
        out.push(`  additional ${s.type} ${parts.map(partText).join(' | ')}`);
      }
    }
  }
  out.push(`additional entries ${z.additional.size} reachable ${additional}`);
  if (z.dnssec) {
    const { labels, nodes } = z.dnssec.chain;
    out.push(`chain ${labels.map((l) => [...l].reverse().join('.')).join(' ')}`);
    out.push(`chain nodes ${nodes.map((n) => `${n.name}${z.nodes.get(n.name) === n ? '' : ' STALE'}`).join(' ')}`);
  }
  return out;
};

const QTYPES = [T.A, T.AAAA, T.MX, T.TXT, T.NS, T.CNAME, T.SRV, T.SOA, 255, RR.DS, RR.NSEC, RR.RRSIG, RR.DNSKEY];

const suffixes = (name: string): string[] => {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(i).join('.'));
};

const answerText = (r: Resolution): string =>
  [
    `rcode ${r.rcode} aa ${r.aa}`,
    `an ${r.answer.map(partText).join(' | ')}`,
    `ns ${r.authority.map(partText).join(' | ')}`,
    `ar ${r.additional.map(partText).join(' | ')}`,
  ].join('\n');

/** Asks both zones every question about every name of either (and names that are not there), with DO clear and set. */
const sameAnswers = (a: CompiledZone, b: CompiledZone, step: number): number => {
  const names = new Set<string>([...a.nodes.keys(), ...b.nodes.keys()]);
  for (const n of [...names]) {
    names.add(`nx.${n}`);
    names.add(`a.b.${n}`);
  }
  let asked = 0;
  for (const name of names) {
    const sfx = suffixes(name);
    for (const qtype of QTYPES) {
      for (const dnssec of [false, true]) {
        const x = answerText(resolve(a, name, sfx, qtype, dnssec));
        const y = answerText(resolve(b, name, sfx, qtype, dnssec));
        expect(x, `step ${step}: ${name} type ${qtype} DO ${dnssec}`).to.equal(y);
        asked++;
      }
    }
  }
  return asked;
};

const crypto = new NodeDnssecCrypto();
const testKey = (algorithm: DnssecAlgorithm): ZoneSigning['keys'][number] => {
  const k = crypto.generate(algorithm);
  const tag = keyTag(dnskeyRdata(CSK_FLAGS, algorithm, k.publicKey));
  return { tag, algorithm, flags: CSK_FLAGS, publicKey: k.publicKey, sealedPrivateKey: k.privateKey, published: true, signing: true };
};

const skip = (): void => undefined;
const identity = (s: string): string => s;

const window = (): Pick<ZoneSigning, 'inception' | 'expiration'> => {
  const now = Math.floor(Date.now() / 1000);
  return { inception: now - 5400, expiration: now + 14 * 86400 };
};

/** Publishes STEPS random versions; after each, `check` compares the incremental version with a whole compile. */
const run = async (
  seed: number,
  signing: ZoneSigning | undefined,
  listed: 'shared' | 'copies' | 'shuffled',
  check: (zone: Zone, incremental: CompiledZone, step: number, zs: ZoneSignatures) => Promise<void>,
): Promise<ZoneSignatures> => {
  const r = rng(seed);
  const zs = new ZoneSignatures(null, signing ? identity : null);
  const sets = baseSets();
  for (let step = 0; step <= STEPS; step++) {
    if (step > 0) {
      const changes = 1 + Math.floor(r() * 3);
      for (let i = 0; i < changes; i++) change(sets, r);
      sets[0] = soa(step + 1);
    }
    // As the store lists a version (untouched sets shared, in place), or as new objects; 'shuffled': the first
    // version lists its sets in random order (the SOA first).
    const recordSets = listed === 'copies' ? sets.map((s) => ({ ...s })) : [...sets];
    if (listed === 'shuffled' && step === 0)
      for (let i = sets.length - 1; i > 1; i--) {
        const k = 1 + Math.floor(r() * i);
        [sets[i], sets[k]] = [sets[k]!, sets[i]!];
        [recordSets[i], recordSets[k]] = [recordSets[k]!, recordSets[i]!];
      }
    const zone: Zone = { domain: ZONE, serial: step + 1, recordSets, ...(signing ? { signing } : {}) };
    await check(zone, await zs.compile(zone, skip), step, zs);
  }
  return zs;
};

describe('DNS: a publish of a few changes updates the compiled zone (issues 22 and 24)', function () {
  this.timeout(60_000 + STEPS * 1000);

  for (const [seed, listed] of [
    [1, 'shared'],
    [2, 'copies'],
    [3, 'shuffled'],
  ] as const) {
    it(`unsigned, seed ${seed}, sets ${listed}: after every change the same zone and answers as a whole compile`, async () => {
      let asked = 0;
      const zs = await run(seed, undefined, listed, async (zone, incremental, step) => {
        const whole = compileZone(zone, skip);
        expect(dump(incremental), `step ${step}`).to.deep.equal(dump(whole));
        asked += sameAnswers(incremental, whole, step);
      });
      expect(zs.built.full).to.be.at.least(1);
      expect(zs.built.incremental, JSON.stringify(zs.built)).to.be.at.least(STEPS / 2);
      expect(asked).to.be.above(STEPS * 500);
    });
  }

  it('unsigned and held compactly (CompactNodes, from every size): after every change the same zone and answers as a whole compile', async () => {
    const was = { ...compaction };
    Object.assign(compaction, { minNames: 1, minShare: 0 });
    try {
      let compact = 0;
      const zs = await run(6, undefined, 'shared', async (zone, incremental, step) => {
        const whole = compileZone(zone, skip);
        if (whole.nodes instanceof CompactNodes && whole.nodes.leaves > 0) compact++;
        expect(dump(incremental), `step ${step}`).to.deep.equal(dump(whole));
        // And the compact form is the zone the plain one is.
        Object.assign(compaction, was);
        const plain = compileZone(zone, skip);
        Object.assign(compaction, { minNames: 1, minShare: 0 });
        expect(plain.nodes).to.be.instanceOf(Map);
        expect(dump(whole), `step ${step}`).to.deep.equal(dump(plain));
        expect([...whole.nodes.keys()], `step ${step}: the names in the same order (an AXFR's)`).to.deep.equal([...plain.nodes.keys()]);
        sameAnswers(whole, plain, step);
        sameAnswers(incremental, whole, step);
      });
      expect(compact).to.equal(STEPS + 1);
      expect(zs.built.incremental, JSON.stringify(zs.built)).to.be.at.least(STEPS / 2);
    } finally {
      Object.assign(compaction, was);
    }
  });

  for (const [seed, listed] of [
    [4, 'shared'],
    [5, 'shuffled'],
  ] as const) {
    it(`signed, seed ${seed}, sets ${listed}: the same zone, NSEC chain and answers as a whole compile, signing only what changed`, async () => {
      const signing: ZoneSigning = { keys: [testKey(13)], ...window(), cds: false };
      const built = await run(seed, signing, listed, async (zone, incremental, step, zs) => {
        const whole = compileZone(zone, skip, { openKey: identity, signatures: new SignatureCache() });
        expect(dump(incremental), `step ${step}`).to.deep.equal(dump(whole));
        sameAnswers(incremental, whole, step);
        // Each set has one signature per key: a one-signer cache holds exactly what the version uses.
        if (step > 0) expect(zs.cacheOf(ZONE)!.made, `step ${step}`).to.be.below(20);
      });
      expect(built.built.incremental, JSON.stringify(built.built)).to.be.at.least(STEPS / 2);
    });
  }

  describe('signed, served and transferred', () => {
    let ns: EmbeddedNameserver | undefined;
    after(async () => ns?.stop());

    it('every few versions the AXFR copy passes ldns-verify-zone (NSEC chain complete, every RRSIG valid)', async function () {
      requireTools(this, 'dig', 'ldns-verify-zone');
      const signing: ZoneSigning = { keys: [testKey(15)], ...window(), cds: true };
      const r = rng(6);
      const sets = baseSets();
      const first: Zone = { domain: ZONE, serial: 1, recordSets: [...sets], signing };
      const started = await startServer([first], { openKey: identity });
      ns = started.ns;
      const dir = mkdtempSync(join(tmpdir(), 'dmk-incr-'));
      let verified = 0;
      for (let step = 1; step <= STEPS; step++) {
        const changes = 1 + Math.floor(r() * 3);
        for (let i = 0; i < changes; i++) change(sets, r);
        sets[0] = soa(step + 1);
        await ns.publish({ domain: ZONE, serial: step + 1, recordSets: [...sets], signing });
        if (step % 8 !== 0 && step !== STEPS) continue;
        const { raw } = await digAxfr(started.port, ZONE, '+onesoa', '+nocmd', '+nostats');
        const file = join(dir, `${step}.zone`);
        writeFileSync(
          file,
          `${raw
            .split('\n')
            .filter((l) => l.trim() && !l.startsWith(';'))
            .join('\n')}\n`,
        );
        const ldns = spawnSync('ldns-verify-zone', [file], { encoding: 'utf8' });
        expect(ldns.status, `step ${step}: ${ldns.stdout}${ldns.stderr}`).to.equal(0);
        expect(ldns.stdout + ldns.stderr).to.match(/Zone is verified and complete/);
        verified++;
      }
      expect(verified).to.be.at.least(2);
      expect(ns.signatures.built.incremental, JSON.stringify(ns.signatures.built)).to.be.at.least(STEPS / 2);
    });
  });
});
