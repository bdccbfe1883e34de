import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ThreadImportPlanner } from '../../adapters/dns/import-planner/index.js';
import { inlineImportPlanner } from '../../core/dns/imports/import-planner.js';
import { buildPlan } from '../../core/dns/plans/plan-builder.js';
import { changeList, type ChangesJson } from '../../core/dns/plans/plan.js';
import type { ImportedPlan, ImportPlanner } from '../../core/dns/ports/zone-import.port.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import { ZoneSets } from '../../core/dns/zone/zone-sets.js';

/**
 * An import's plan is the same whatever holds it in memory: on a generated zone file with a mix of types and
 * of problems (bad values, CNAME conflicts, dangling and CNAME targets, loops, delegations with and without
 * glue, wildcards, long TXT, mixed TTLs, SPF), against a zone it updates and deletes from, the changes, the
 * check results and the verdict are pinned by their digest, taken from the code before the import's memory
 * work (commit a955785), and every way of planning it — this thread, a planning thread, the whole text at
 * once — gives exactly that plan.
 */
const ORIGIN = 'mix.example';

/** Digests of the plans under the code before (commit a955785). */
const GOLDEN = {
  whole: 'fecf3ecc929c5a3a8baac6e897487f0ffff059cde8d357df4a1ac1bfc2e0f178',
  incremental: '34f98b7a49fe278f534771a5ad93f48bdebd2984499f517d2baf549aa5844301',
};

/** A small deterministic generator (mulberry32), so the file is the same on every run. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** The file's lines and the zone it is imported into (n units of a few sets each). */
const generate = (n: number, seed: number): { file: string; current: RecordSet[] } => {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const lines = [
    `$ORIGIN ${ORIGIN}.`,
    '$TTL 300',
    '@ 3600 IN SOA ns1.old.example. hostmaster.old.example. 1 3600 600 1209600 300',
    '@ IN NS ns1.old.example.',
    '@ IN MX 10 mail',
    '@ IN TXT "v=spf1 include:_spf.example.net -all"',
    '@ IN CAA 0 issue "letsencrypt.org"',
    'mail IN A 192.0.2.25',
    '* IN A 192.0.2.80',
    'www IN CNAME @',
  ];
  const current: RecordSet[] = [
    { name: ORIGIN, type: 'SOA', ttl: 3600, values: ['ns1.domivka.net. hostmaster.domivka.net. 7 3600 600 1209600 300'] },
    { name: ORIGIN, type: 'NS', ttl: 3600, values: ['ns1.domivka.net.', 'ns2.domivka.net.'] },
    { name: `_acme-challenge.${ORIGIN}`, type: 'TXT', ttl: 60, values: ['token'] },
  ];
  for (let i = 0; i < n; i++) {
    const h = `h${i}`;
    const k = Math.floor(r() * 24);
    const ttl = pick(['', '60 ', '3600 ', '1h ']);
    switch (k) {
      case 0:
      case 1:
      case 2:
        lines.push(`${h} ${ttl}IN A 10.${(i >> 8) & 255}.${i & 255}.${1 + Math.floor(r() * 250)}`);
        if (r() < 0.3) lines.push(`${h} ${ttl}IN A 10.${(i >> 8) & 255}.${i & 255}.251`);
        break;
      case 3:
        lines.push(`${h} IN AAAA 2001:DB8::${i.toString(16)}:0:1`);
        break;
      case 4:
        lines.push(`${h} IN CNAME h${Math.floor(r() * n)}`);
        break;
      case 5:
        lines.push(`${h} IN MX ${Math.floor(r() * 50)} h${Math.floor(r() * n)}`, `${h} IN MX 20 mx.elsewhere.example.`);
        break;
      case 6:
        lines.push(`${h} IN TXT "plain ${i}" "second string"`, `${h} IN TXT "v=spf1 ip4:10.0.${i & 255}.0/24 ~all"`);
        break;
      case 7:
        lines.push(`${h} IN TXT "${'x'.repeat(200 + (i % 200))}" "${'y'.repeat(100)}"`);
        break;
      case 8:
        lines.push(`_sip._tcp.${h} IN SRV 10 60 5060 h${Math.floor(r() * n)}`);
        break;
      case 9:
        lines.push(`${h} IN CAA 0 issue "letsencrypt.org"`, `${h} IN CAA 128 tbs "x"`);
        break;
      case 10:
        lines.push(`sub${i} IN NS ns.sub${i}`, `ns.sub${i} IN A 192.0.2.${i & 255}`);
        break;
      case 11:
        lines.push(`sub${i} IN NS ns.outside.example.`, `x.sub${i} IN A 192.0.2.9`);
        break;
      case 12:
        lines.push(`${h} IN A 300.1.2.3`); // not an address
        break;
      case 13:
        lines.push(`${h} IN CNAME www`, `${h} IN TXT "beside a CNAME"`);
        break;
      case 14:
        lines.push(`loop${i}a IN CNAME loop${i}b`, `loop${i}b IN CNAME loop${i}a`);
        break;
      case 15:
        lines.push(`${h} IN MX 10 nowhere${i}`);
        break;
      case 16:
        lines.push(`${i}.2.0.192.in-addr IN PTR ${h}.${ORIGIN}.`);
        break;
      case 17:
        lines.push(`*.w${i} IN A 192.0.2.${i & 255}`, `w${i} 60 IN AAAA ::1`, `w${i} 120 IN AAAA ::2`);
        break;
      case 18:
        lines.push(`${h} IN SPF "v=spf1 -all"`);
        break;
      case 19:
        lines.push(`${h} IN TYPE65534 \\# 0`);
        break;
      case 20:
        lines.push(`d${i} IN DNAME target${i}.example.net.`, `x.d${i} IN A 192.0.2.1`);
        break;
      default:
        lines.push(`${h} IN A 10.1.${i & 255}.${(i >> 8) & 255}`, `${h} IN AAAA 2001:db8::${i.toString(16)}`);
    }
    // The zone now: some sets the same, some with other values or TTL, some absent from the file (deleted).
    const c = r();
    if (c < 0.1) current.push({ name: `${h}.${ORIGIN}`, type: 'A', ttl: 300, values: [`10.${(i >> 8) & 255}.${i & 255}.9`] });
    else if (c < 0.15) current.push({ name: `gone${i}.${ORIGIN}`, type: 'TXT', ttl: 300, values: [`old ${i}`] });
    else if (c < 0.2) current.push({ name: `${h}.${ORIGIN}`, type: 'AAAA', ttl: 300, values: [`2001:db8::${i.toString(16)}`] });
  }
  return { file: `${lines.join('\n')}\n`, current };
};

const digest = (p: ImportedPlan): string =>
  createHash('sha256')
    .update(JSON.stringify({ changes: changeList(p.changes), checks: p.checks, valid: p.valid }))
    .digest('hex');

const chunks = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};

const planWith = async (planner: ImportPlanner, file: string, current: readonly RecordSet[], size = 4093): Promise<ImportedPlan> => {
  const session = planner.start({ origin: ORIGIN, maxRecords: 1_000_000, generateMax: 10 });
  try {
    for (const c of chunks(file, size)) await session.push(c);
    return await session.plan(ZoneSets.of(current), { maxRecordSets: 1_000_000 });
  } finally {
    session.close();
  }
};

/**
 * The zone file, the zone it goes into, and the digest of its plan under the code before. `whole`: a new
 * zone (every rule on the whole zone); `incremental`: the same file into the zone it nearly is already.
 */
const CASES = (() => {
  const fresh = generate(3000, 22);
  const big = generate(3000, 7);
  // The zone as the file would make it, but for a few sets: a plan that touches a small part of the zone.
  const planned = buildPlan({ origin: ORIGIN, current: big.current, input: { zone_file: big.file } }).after;
  const near = planned.filter((_, i) => i % 97 !== 5).map((s, i) => (i % 89 === 3 ? { ...s, ttl: s.ttl + 1 } : s));
  for (let i = 0; i < 12; i++)
    near.push({ name: `extra${i}.${ORIGIN}`, type: i % 2 ? 'A' : 'CNAME', ttl: 300, values: [i % 2 ? '192.0.2.7' : `h${i}`] });
  return [
    { label: 'a new zone (whole-zone checks)', file: fresh.file, current: fresh.current, golden: GOLDEN.whole },
    { label: 'a zone nearly as the file has it (incremental checks)', file: big.file, current: near, golden: GOLDEN.incremental },
  ];
})();

describe('an import plans exactly as before, whatever holds it in memory', function () {
  this.timeout(120_000);
  for (const c of CASES) {
    describe(c.label, () => {
      it('this thread: the changes, checks and verdict of the code before (digest)', async () => {
        const plan = await planWith(inlineImportPlanner, c.file, c.current);
        expect(changeList(plan.changes).length).to.be.greaterThan(50);
        expect(plan.checks.length).to.be.greaterThan(10);
        expect(digest(plan)).to.equal(c.golden);
      });
      it('a planning thread: the same plan', async () => {
        const plan = await planWith(new ThreadImportPlanner({ inlineBelowChars: 0 }), c.file, c.current);
        expect(digest(plan)).to.equal(c.golden);
        // Handed over as the JSON text of the list (stored as it is), with its counts.
        const { json, counts } = plan.changes as ChangesJson;
        const list = changeList(plan.changes);
        expect(json).to.equal(JSON.stringify(list));
        expect(counts).to.deep.equal({
          create: list.filter((x) => x.action === 'create').length,
          update: list.filter((x) => x.action === 'update').length,
          delete: list.filter((x) => x.action === 'delete').length,
        });
      });
      it('the whole text in one piece: the same plan', async () => {
        const session = inlineImportPlanner.start({ origin: ORIGIN, maxRecords: 1_000_000, generateMax: 10 });
        await session.push(c.file);
        expect(digest(await session.plan(ZoneSets.of(c.current), { maxRecordSets: 1_000_000 }))).to.equal(c.golden);
        session.close();
      });
    });
  }
});
