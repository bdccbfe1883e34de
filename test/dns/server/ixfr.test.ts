import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { soaValue, type RecordSet } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { exampleZone } from './fixtures.js';
import { requireTools, startServer } from './tools.js';

/**
 * Incremental IXFR (RFC 1995 §4) from the journal of what this server published
 * (adapters/dns/embedded/journal.ts), asked with dig over TCP: the changes since the client's serial,
 * diff by diff, and the whole zone AXFR-style when the journal does not reach back to it.
 */

const S = 2026112100;

/** exampleZone at `serial`, changed by `edit` (sets by name and type: replaced, removed with null, or added). */
const version = (serial: number, edit: Record<string, RecordSet | null> = {}): Zone => {
  const base = exampleZone(serial);
  const key = (s: RecordSet): string => `${s.name} ${s.type}`;
  const sets = base.recordSets.filter((s) => !(key(s) in edit)).concat(Object.values(edit).filter((s): s is RecordSet => s !== null));
  return { ...base, recordSets: sets.map((s) => (s.type === 'SOA' ? { ...s, values: [soaValue(serial)] } : s)) };
};

// v0 → v1: mail A removed, www A's TTL changed (a deleted and an added record each), new A added.
const V1 = {
  'mail.example.test A': null,
  'www.example.test A': { name: 'www.example.test', type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.2'] },
  'new.example.test A': { name: 'new.example.test', type: 'A', ttl: 60, values: ['192.0.2.99'] },
} satisfies Record<string, RecordSet | null>;
// v1 → v2: one of www's addresses replaced, a TXT added.
const V2 = {
  ...V1,
  'www.example.test A': { name: 'www.example.test', type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.3'] },
  'two.example.test TXT': { name: 'two.example.test', type: 'TXT', ttl: 300, values: ['second change'] },
} satisfies Record<string, RecordSet | null>;

/** dig's records of an IXFR over TCP, as "name ttl type data" lines. */
const ixfr = async (port: number, serial: number): Promise<string[]> => {
  const { stdout } = await promisify(execFile)(
    'dig',
    [
      '@127.0.0.1',
      '-p',
      String(port),
      '+tcp',
      '+time=3',
      '+tries=1',
      '+nocmd',
      '+nostats',
      '+nocomments',
      `ixfr=${serial}`,
      'example.test',
    ],
    { timeout: 15_000 },
  );
  return stdout
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith(';'))
    .map((l) => {
      const [name, ttl, , type, ...data] = l.trim().split(/\s+/);
      return `${name} ${ttl} ${type} ${type === 'SOA' ? data[2] : data.join(' ')}`;
    });
};

describe('DNS server incremental IXFR (RFC 1995) from its journal', function () {
  this.timeout(30_000);
  before(function () {
    requireTools(this, 'dig');
  });

  it("sends the changes since the client's serial, diff by diff: old SOA, deletions, new SOA, additions", async () => {
    const { ns, port } = await startServer([version(S)]);
    try {
      await ns.publish(version(S + 1, V1));
      await ns.publish(version(S + 2, V2));
      expect(ns.journalSpan('example.test')).to.deep.equal({ diffs: 2, from: S, to: S + 2, records: 9 });
      const soa = (n: number): string => `example.test. 3600 SOA ${n}`;
      // From v1: one diff.
      expect(await ixfr(port, S + 1)).to.deep.equal([
        soa(S + 2),
        soa(S + 1),
        'www.example.test. 60 A 192.0.2.2',
        soa(S + 2),
        'www.example.test. 60 A 192.0.2.3',
        'two.example.test. 300 TXT "second change"',
        soa(S + 2),
      ]);
      // From v0: both diffs in order.
      const both = await ixfr(port, S);
      expect(both[0]).to.equal(soa(S + 2));
      expect(both.at(-1)).to.equal(soa(S + 2));
      const first = both.slice(1, both.indexOf(soa(S + 1)));
      expect(first[0]).to.equal(soa(S));
      expect(first.slice(1)).to.have.members([
        'mail.example.test. 300 A 192.0.2.25',
        'www.example.test. 300 A 192.0.2.1',
        'www.example.test. 300 A 192.0.2.2',
      ]);
      const added = both.slice(both.indexOf(soa(S + 1)) + 1, both.indexOf(soa(S + 1), both.indexOf(soa(S + 1)) + 1));
      expect(added).to.have.members([
        'www.example.test. 60 A 192.0.2.1',
        'www.example.test. 60 A 192.0.2.2',
        'new.example.test. 60 A 192.0.2.99',
      ]);
      expect(both.length, 'SOA ×6 and 11 changed records').to.equal(6 + 3 + 3 + 1 + 2);
      // Current: the SOA alone. Unknown (older than the journal): the whole zone, AXFR-style.
      expect(await ixfr(port, S + 2)).to.deep.equal([soa(S + 2)]);
      const whole = await ixfr(port, S - 1);
      expect(whole.length).to.be.greaterThan(60);
      expect([whole[0], whole.at(-1)]).to.deep.equal([soa(S + 2), soa(S + 2)]);
      expect(whole.filter((r) => / SOA /.test(r))).to.have.length(2);
    } finally {
      await ns.stop();
    }
  });

  it('a withdraw, a gap in the chain or ixfrJournal: 0 leave only whole transfers; the journal keeps ixfrJournal diffs at most, and fewer records than the zone', async () => {
    const { ns, port } = await startServer([version(S)]);
    const off = await startServer([version(S)], { ixfrJournal: 0 });
    const ten = await startServer([version(S)], { ixfrJournal: 10 });
    try {
      await ns.publish(version(S + 1, V1));
      await off.ns.publish(version(S + 1, V1));
      expect(off.ns.journalSpan('example.test')).to.equal(null);
      expect((await ixfr(off.port, S)).length).to.be.greaterThan(60);
      // Withdrawn and published again: the old diffs describe a zone that was gone in between.
      await ns.withdraw('example.test');
      await ns.publish(version(S + 2, V2));
      expect(ns.journalSpan('example.test')).to.equal(null);
      expect((await ixfr(port, S + 1)).length).to.be.greaterThan(60);
      // Many small versions (two records each): at most ixfrJournal diffs, and fewer records than the zone has.
      const small = (i: number): Zone =>
        version(S + i, { ...V2, 'n.example.test TXT': { name: 'n.example.test', type: 'TXT', ttl: 300, values: [`v${i}`] } });
      for (let i = 3; i <= 130; i++) {
        await ns.publish(small(i));
        await ten.ns.publish(small(i));
      }
      expect(ten.ns.journalSpan('example.test')).to.deep.equal({ diffs: 10, from: S + 120, to: S + 130, records: 20 });
      const zoneRecords = small(130)
        .recordSets.filter((r) => r.type !== 'SOA')
        .reduce((n, r) => n + r.values.length, 0);
      expect(ns.journalSpan('example.test')).to.deep.equal({
        diffs: Math.floor(zoneRecords / 2),
        from: S + 130 - Math.floor(zoneRecords / 2),
        to: S + 130,
        records: 2 * Math.floor(zoneRecords / 2),
      });
      expect(await ixfr(port, S + 129)).to.have.length(6); // SOA, old SOA, 1 deleted, new SOA, 1 added, SOA
      // A change bigger than the zone (200 names replaced by 200 others: 400 records in a zone of ~280): no diff is worth keeping.
      const hosts = (p: string): Record<string, RecordSet> =>
        Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [
            `${p}${i}.example.test A`,
            { name: `${p}${i}.example.test`, type: 'A' as const, ttl: 300, values: [`10.9.${i >> 8}.${i & 255}`] },
          ]),
        );
      await ns.publish(version(S + 131, { ...V2, ...hosts('b') }));
      expect(ns.journalSpan('example.test')).to.deep.include({ to: S + 131 });
      await ns.publish(version(S + 132, { ...V2, ...hosts('c') }));
      expect(ns.journalSpan('example.test')).to.deep.equal({ diffs: 0, from: null, to: null, records: 0 });
      expect((await ixfr(port, S + 131)).length).to.be.greaterThan(200);
    } finally {
      await ns.stop();
      await off.ns.stop();
      await ten.ns.stop();
    }
  });
  it("regression: a serial that comes round again (RFC 1982) never gets another version's history: jumps and spans of 2^31 drop the journal", async () => {
    const www = (v: string): Record<string, RecordSet> => ({
      'www.example.test A': { name: 'www.example.test', type: 'A', ttl: 300, values: [v] },
    });
    const A = 1000;
    const B = (A + 2 ** 31 - 1) >>> 0; // newer than A by RFC 1982, the largest step there is
    const C = (B + 2 ** 31 - 1) >>> 0; // newer than B: 998, just before A again
    const { ns, port } = await startServer([version(A, www('192.0.2.10'))]);
    try {
      // A jump empties the journal: what came before it may come again. C → A is a small step (one diff).
      for (const [serial, v, diffs] of [
        [B, '192.0.2.11', 0],
        [C, '192.0.2.12', 0],
        [A, '192.0.2.13', 1],
        [B, '192.0.2.14', 0],
      ] as const) {
        await ns.publish(version(serial, www(v)));
        expect(ns.journalSpan('example.test'), `after ${serial}`).to.deep.include({ diffs });
      }
      // A secondary at A (the second A, www .13) asks from A: the whole zone of B, with www .14.
      const lines = await ixfr(port, A);
      expect(lines.length).to.be.greaterThan(20);
      expect(lines.filter((l) => l.startsWith('www.example.test. 300 A '))).to.deep.equal(['www.example.test. 300 A 192.0.2.14']);
      // Small steps that add up to half the circle: the oldest diffs go, so no serial is held twice.
      const step = 2 ** 30 - 1;
      let serial = B;
      for (let i = 1; i <= 5; i++) {
        serial = (serial + step) >>> 0;
        await ns.publish(version(serial, www(`192.0.2.${20 + i}`)));
        const span = ns.journalSpan('example.test')!;
        expect(span.diffs, `step ${i}`).to.equal(Math.min(i, 2));
        expect((span.to! - span.from! + 2 ** 32) % 2 ** 32).to.be.lessThan(2 ** 31);
      }
      // Two steps back: both diffs; one step back: one (SOA, old SOA, 1 deleted, new SOA, 1 added, SOA).
      expect(await ixfr(port, (serial - 2 * step + 2 ** 32) % 2 ** 32)).to.have.length(10);
      expect(await ixfr(port, (serial - step + 2 ** 32) % 2 ** 32)).to.have.length(6);
    } finally {
      await ns.stop();
    }
  });
});
