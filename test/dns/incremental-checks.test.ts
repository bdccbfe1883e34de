import { expect } from 'chai';
import { RULES } from '../../core/dns/checks/index.js';
import { buildPlan, type ChangeInput, type PlanInput } from '../../core/dns/plans/plan-builder.js';
import type { RecordSet, RecordType } from '../../core/dns/zone/record-set.js';
import { soaValue } from '../../core/dns/zone/record-set.js';
import { apex, ORIGIN } from './zone-fixtures.js';
import { prng } from '../support/prng.js';

/**
 * The zone rules run incrementally for small plans (only on the names a plan can reach: core/dns/checks/
 * plan-delta.ts). That must never change a plan: for random zones and random plans, the incremental
 * evaluation gives exactly the whole-zone evaluation's plan — the same checks, messages and order.
 *
 * The zones are drawn from a small name space so that names relate often: CNAME chains and loops (and
 * chains into loops), delegations with glue and data below them, DNAMEs (also at the apex), wildcards,
 * SPF includes (also in loops), MX/SRV/NS targets in and out of the zone, relative, upper-case and
 * Unicode targets, values that do not parse. Deterministic: a fixed seed.
 */

type Rand = ReturnType<typeof prng>;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const chance = (r: Rand, p: number): boolean => r() < p;

/** Owner names, relative to the zone ('@' is the apex); xn--e1aybc is "тест" as an A-label. */
const NAMES = [
  '@',
  'a',
  'b',
  'c',
  'd',
  'www',
  'mail',
  'ns1',
  'sub',
  'ns.sub',
  'x.sub',
  'deep.x.sub',
  'dn',
  'y.dn',
  'z.y.dn',
  '*',
  '*.sub',
  '*.dn',
  'w',
  '*.w',
  'q.w',
  'r.q.w',
  '_spf',
  '_spf2',
  '_sip._tcp',
  'xn--e1aybc',
  'l1',
  'l2',
  'l3',
];
const abs = (rel: string): string => (rel === '@' ? ORIGIN : `${rel}.${ORIGIN}`);

/** A target as a user might write it: relative, absolute, upper case, Unicode, outside, the root, an address. */
const target = (r: Rand): string => {
  const n = pick(
    r,
    NAMES.filter((x) => !x.startsWith('*')),
  );
  const k = r();
  if (k < 0.3) return n === '@' ? '@' : n;
  if (k < 0.6) return `${abs(n)}.`;
  if (k < 0.7) return `${abs(n).toUpperCase()}.`;
  if (k < 0.75) return `тест.${ORIGIN}.`;
  if (k < 0.82) return pick(r, ['mail.example.net.', 'ns1.example.org.', 'example.com.evil.']);
  if (k < 0.87) return pick(r, ['.', '192.0.2.1', 'a..b', '@']);
  return `${abs(n)}.`;
};

const spfTarget = (r: Rand): string => abs(pick(r, ['_spf', '_spf2', 'a', 'b', '@', 'l1', 'mail']));

/** Fields separated and ended as users type them: spaces, tabs, a trailing newline. */
const spaced = (r: Rand, v: string): string => {
  if (chance(r, 0.8)) return v;
  return v.replace(/ /g, () => pick(r, [' ', '\t', '  ', ' \t'])) + pick(r, ['', ' ', '\t', '\n']);
};

const value = (r: Rand, type: RecordType): string => spaced(r, rawValue(r, type));

const rawValue = (r: Rand, type: RecordType): string => {
  switch (type) {
    case 'A':
      return chance(r, 0.95) ? `192.0.2.${1 + Math.floor(r() * 5)}` : '300.1.1.1';
    case 'AAAA':
      return `2001:db8::${1 + Math.floor(r() * 5)}`;
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      // Sometimes two fields: invalid, though its last field names a host (the target index must not trust it).
      return chance(r, 0.94) ? target(r) : `${target(r)} ${target(r)}`;
    case 'MX':
      return chance(r, 0.1) ? '0 .' : `${pick(r, [10, 20])} ${target(r)}`;
    case 'SRV':
      return chance(r, 0.1) ? '0 0 0 .' : `10 5 5060 ${target(r)}`;
    case 'TXT': {
      if (chance(r, 0.3)) return pick(r, ['hello', 'v=DMARC1; p=none', 'x'.repeat(20)]);
      const terms: string[] = [];
      const n = Math.floor(r() * 9);
      for (let i = 0; i < n; i++)
        terms.push(
          pick(r, [
            'a',
            'mx',
            'ptr',
            `exists:%{i}.${ORIGIN}`,
            `include:${spfTarget(r)}`,
            `include:${spfTarget(r)}`,
            `include:${spfTarget(r)}`,
            'ip4:192.0.2.0/24',
          ]),
        );
      if (chance(r, 0.2)) terms.push(`redirect=${spfTarget(r)}`);
      return `v=spf1 ${terms.join(' ')} -all`;
    }
    case 'CAA':
      return pick(r, ['0 issue "letsencrypt.org"', '0 issuewild ";"']);
    case 'SOA':
      return soaValue(1 + Math.floor(r() * 3));
    case 'SPF':
      return 'v=spf1 -all';
  }
};

const TYPES: readonly RecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'CAA', 'DNAME', 'PTR', 'SOA', 'SPF'];
const WEIGHTED: readonly RecordType[] = [...TYPES, 'A', 'A', 'AAAA', 'CNAME', 'CNAME', 'CNAME', 'NS', 'NS', 'TXT', 'TXT', 'MX', 'DNAME'];

const randomSet = (r: Rand, name: string, type: RecordType): RecordSet => {
  const n = type === 'CNAME' || type === 'SOA' || type === 'DNAME' ? (chance(r, 0.9) ? 1 : 2) : 1 + Math.floor(r() * 3);
  return { name: abs(name), type, ttl: pick(r, [60, 300, 3600]), values: Array.from({ length: n }, () => value(r, type)) };
};

const randomZone = (r: Rand): RecordSet[] => {
  const sets = new Map<string, RecordSet>();
  // The apex SOA and NS, as stored zones have them (rarely broken, to reach soa-apex/ns-apex).
  for (const s of apex()) if (chance(r, 0.95)) sets.set(`${s.name} ${s.type}`, s);
  const n = Math.floor(r() * 28);
  for (let i = 0; i < n; i++) {
    const name = pick(r, NAMES);
    const type = pick(r, WEIGHTED);
    sets.set(`${abs(name)} ${type}`, randomSet(r, name, type));
  }
  // Zone order matters to some messages (where a CNAME loop is entered): shuffle.
  const out = [...sets.values()];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** How a user might name the owner in a change: relative, '@', absolute with a dot, upper case. */
const ownerInput = (r: Rand, s: { name: string }): string => {
  const rel = s.name === ORIGIN ? '@' : s.name.slice(0, -ORIGIN.length - 1);
  return pick(r, [rel, `${s.name}.`, s.name, rel.toUpperCase()]);
};

const randomChanges = (r: Rand, zone: readonly RecordSet[]): ChangeInput[] => {
  const out: ChangeInput[] = [];
  const n = 1 + Math.floor(r() * 4);
  for (let i = 0; i < n; i++) {
    const existing = zone.length > 0 && chance(r, 0.55) ? pick(r, zone) : null;
    if (existing) {
      const current = chance(r, 0.9) ? { ttl: existing.ttl, values: [...existing.values] } : { ttl: existing.ttl, values: ['192.0.2.99'] };
      const k = r();
      if (k < 0.45) out.push({ action: 'delete', name: ownerInput(r, existing), type: existing.type, current });
      else if (k < 0.9)
        out.push({
          action: 'update',
          name: ownerInput(r, existing),
          type: existing.type,
          values: randomSet(r, 'x', existing.type).values,
          current,
        });
      else
        out.push({ action: 'create', name: ownerInput(r, existing), type: existing.type, values: randomSet(r, 'x', existing.type).values });
    } else {
      const name = pick(r, NAMES);
      const type = pick(r, WEIGHTED);
      const s = randomSet(r, name, type);
      if (chance(r, 0.92)) out.push({ action: 'create', name: ownerInput(r, s), type, ttl: s.ttl, values: [...s.values] });
      else out.push({ action: 'delete', name: ownerInput(r, s), type, current: { ttl: s.ttl, values: [...s.values] } });
    }
  }
  return out;
};

/** A whole desired zone: the current one with some sets dropped, changed and added. */
const randomRecords = (r: Rand, zone: readonly RecordSet[]): PlanInput => {
  const records: Array<{ name: string; type: string; ttl: number; values: string[] }> = [];
  for (const s of zone) {
    if (chance(r, 0.15)) continue;
    const set = chance(r, 0.15) ? randomSet(r, 'x', s.type) : s;
    records.push({ name: s.name, type: s.type, ttl: set.ttl, values: [...set.values] });
  }
  const extra = Math.floor(r() * 3);
  for (let i = 0; i < extra; i++) {
    const s = randomSet(r, pick(r, NAMES), pick(r, WEIGHTED));
    records.push({ name: s.name, type: s.type, ttl: s.ttl, values: [...s.values] });
  }
  return { records };
};

const both = (current: RecordSet[], input: PlanInput) => ({
  incremental: buildPlan({ origin: ORIGIN, current, input, zoneRules: 'incremental' }),
  whole: buildPlan({ origin: ORIGIN, current, input, zoneRules: 'whole' }),
});

describe('incremental zone checks equal the whole-zone checks (property, fixed seed)', function () {
  this.timeout(120_000);
  const zoneRuleIds = RULES.filter((rule) => rule.scope === 'zone').map((rule) => rule.id);

  it('random zones and random changes: the same plan either way, and every zone rule is exercised', () => {
    const r = prng(0x5eed_2026);
    const seen = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const current = randomZone(r);
      const input: PlanInput = chance(r, 0.85) ? { changes: randomChanges(r, current) } : randomRecords(r, current);
      const { incremental, whole } = both(current, input);
      expect(incremental, `case ${i}: ${JSON.stringify({ current, input })}`).to.deep.equal(whole);
      for (const c of whole.checks) seen.set(c.rule, (seen.get(c.rule) ?? 0) + 1);
    }
    // The generator must reach every zone rule, often enough to mean something.
    for (const id of zoneRuleIds) expect(seen.get(id) ?? 0, `results of ${id}`).to.be.at.least(20);
  });

  it('chains into a CNAME loop: the loop is entered where the first chain in zone order meets it', () => {
    // l1 → l2 → l3 → l2 is a loop entered at l2; a plan that removes or adds a chain into it changes where.
    const z = (sets: RecordSet[]) => [...apex(), ...sets];
    const cname = (name: string, to: string): RecordSet => ({ name: abs(name), type: 'CNAME', ttl: 300, values: [`${abs(to)}.`] });
    const current = z([cname('a', 'l3'), cname('l1', 'l2'), cname('l2', 'l3'), cname('l3', 'l2')]);
    const plans: PlanInput[] = [
      { changes: [{ action: 'delete', name: 'a', type: 'CNAME', current: { ttl: 300, values: [`${abs('l3')}.`] } }] },
      { changes: [{ action: 'update', name: 'a', type: 'CNAME', values: ['b'], current: { ttl: 300, values: [`${abs('l3')}.`] } }] },
      { changes: [{ action: 'create', name: 'b', type: 'CNAME', values: ['l1'] }] },
      { changes: [{ action: 'delete', name: 'l3', type: 'CNAME', current: { ttl: 300, values: [`${abs('l2')}.`] } }] },
      { changes: [{ action: 'create', name: 'c', type: 'A', values: ['192.0.2.1'] }] },
    ];
    for (const input of plans) {
      const { incremental, whole } = both(current, input);
      expect(incremental.checks).to.deep.equal(whole.checks);
    }
  });

  it('SPF include loops, a new delegation, a DNAME at the apex, a new wildcard: the same plan either way', () => {
    const txt = (name: string, v: string): RecordSet => ({ name: abs(name), type: 'TXT', ttl: 300, values: [v] });
    const current = [
      ...apex(),
      txt('@', `v=spf1 a mx ptr include:_spf.${ORIGIN} -all`),
      txt('_spf', `v=spf1 a mx ptr exists:x include:_spf2.${ORIGIN} -all`),
      txt('_spf2', `v=spf1 a mx ptr exists:y include:_spf.${ORIGIN} -all`),
      { name: abs('x.sub'), type: 'A', ttl: 300, values: ['192.0.2.1'] } as RecordSet,
      { name: abs('www'), type: 'CNAME', ttl: 300, values: [`nowhere.q.w.${ORIGIN}.`] } as RecordSet,
      { name: abs('mail'), type: 'MX', ttl: 300, values: [`10 host.sub.${ORIGIN}.`] } as RecordSet,
    ];
    const spf2 = { ttl: 300, values: [`v=spf1 a mx ptr exists:y include:_spf.${ORIGIN} -all`] };
    const plans: PlanInput[] = [
      { changes: [{ action: 'update', name: '_spf2', type: 'TXT', values: ['v=spf1 a -all'], current: spf2 }] },
      // Still a loop: every policy on it or reaching it is over the limit, whichever is counted first.
      { changes: [{ action: 'update', name: '_spf2', type: 'TXT', values: [`v=spf1 a mx include:_spf.${ORIGIN} -all`], current: spf2 }] },
      { changes: [{ action: 'create', name: 'sub', type: 'NS', values: ['ns.sub', 'ns.example.net.'] }] },
      { changes: [{ action: 'create', name: '@', type: 'DNAME', values: ['example.net.'] }] },
      { changes: [{ action: 'create', name: '*.w', type: 'A', values: ['192.0.2.7'] }] },
      { changes: [{ action: 'create', name: '*.q.w', type: 'TXT', values: ['hi'] }] },
    ];
    for (const input of plans) {
      const { incremental, whole } = both(current, input);
      expect(incremental.checks).to.deep.equal(whole.checks);
    }
  });

  it('by default a small plan on a large zone runs incrementally and reports what the whole zone would', () => {
    const sets: RecordSet[] = [...apex()];
    for (let i = 0; i < 2000; i++) {
      sets.push({ name: abs(`h${i}`), type: 'A', ttl: 300, values: [`10.0.${i >> 8}.${i & 255}`] });
      sets.push({ name: abs(`m${i}`), type: 'MX', ttl: 300, values: [`10 h${i + 1}.${ORIGIN}.`] });
    }
    const input: PlanInput = { changes: [{ action: 'delete', name: 'h7', type: 'A', current: { ttl: 300, values: ['10.0.0.7'] } }] };
    const auto = buildPlan({ origin: ORIGIN, current: sets, input });
    const whole = buildPlan({ origin: ORIGIN, current: sets, input, zoneRules: 'whole' });
    expect(auto).to.deep.equal(whole);
    // m6 now points at a name without an address (m1999 pointed at h2000, absent all along: not reported).
    expect(auto.checks.map((c) => `${c.rule} ${c.name}`)).to.deep.equal([`dangling-target m6.${ORIGIN}`]);
  });
});
