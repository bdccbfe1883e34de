import { expect } from 'chai';
import { ThreadImportPlanner } from '../../adapters/dns/import-planner/index.js';
import { inlineImportPlanner } from '../../core/dns/imports/import-planner.js';
import { changeList } from '../../core/dns/plans/plan.js';
import type { ImportPlanner } from '../../core/dns/ports/zone-import.port.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import { ZoneSets } from '../../core/dns/zone/zone-sets.js';
import { DomainError } from '../../core/kernel/errors.js';

const ORIGIN = 'example.com';
const current: RecordSet[] = [
  { name: ORIGIN, type: 'SOA', ttl: 3600, values: ['ns1.example.net. hostmaster.example.com. 1 3600 600 1209600 300'] },
  { name: ORIGIN, type: 'NS', ttl: 3600, values: ['ns1.example.net.'] },
  { name: `old.${ORIGIN}`, type: 'A', ttl: 300, values: ['192.0.2.9'] },
  { name: `www.${ORIGIN}`, type: 'A', ttl: 300, values: ['192.0.2.1'] },
];
const file = [
  `$ORIGIN ${ORIGIN}.`,
  '$TTL 300',
  '@ IN SOA ns.old. host.old. 1 3600 600 1209600 300',
  '@ IN NS ns.old.',
  'www IN A 192.0.2.2',
  'mail IN CNAME www',
  '@ IN MX 10 mail', // an MX at a CNAME: a check error
  'x IN A 192.0.2.3',
  'x 600 IN A 192.0.2.4', // a second TTL in one set: a warning
  '@ IN DNSKEY 257 3 13 AAAA',
  ...Array.from({ length: 2000 }, (_, i) => `h${i} IN TXT "host ${i}"`),
].join('\n');
const chunks = (text: string, size: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
};
const start = (planner: ImportPlanner, maxRecords = 10_000) => planner.start({ origin: ORIGIN, maxRecords, generateMax: 10 });
/** Every planner under test: this thread, a planning thread from the first character, and the default (small files inline). */
const planners: Array<[string, ImportPlanner]> = [
  ['inline', inlineImportPlanner],
  ['a planning thread', new ThreadImportPlanner({ inlineBelowChars: 0, youngGenerationMb: 16 })],
  ['small first', new ThreadImportPlanner()],
];

describe('import planners: the same plan and the same refusals in this thread and on a planning thread', () => {
  const plans: Array<{ changes: unknown; checks: unknown; valid: boolean; read: number; skipped: unknown }> = [];

  for (const [label, planner] of planners) {
    it(`${label}: reads the file in pieces of any size and plans it on the zone given`, async () => {
      const session = start(planner);
      try {
        for (const c of chunks(file, 997)) await session.push(c);
        const plan = await session.plan(ZoneSets.of(current), { maxRecordSets: 5000 });
        expect(plan.valid).to.equal(false);
        expect(plan.checks.map((c) => c.rule)).to.include('mx-target-not-cname');
        expect(plan.checks.map((c) => c.rule)).to.include('rrset-ttl');
        expect(changeList(plan.changes).find((c) => c.name === `www.${ORIGIN}`)).to.deep.include({
          action: 'update',
          values: ['192.0.2.2'],
        });
        expect(changeList(plan.changes).find((c) => c.name === `old.${ORIGIN}`)).to.deep.include({ action: 'delete' });
        expect(changeList(plan.changes).filter((c) => c.action === 'create')).to.have.length(2000 + 3);
        plans.push({
          changes: changeList(plan.changes),
          checks: plan.checks,
          valid: plan.valid,
          read: session.recordsRead,
          skipped: session.skipped(),
        });
      } finally {
        session.close();
      }
    });
  }

  it('every planner made the same plan and counted the same records and skips', () => {
    expect(plans).to.have.length(planners.length);
    for (const p of plans.slice(1)) expect(p).to.deep.equal(plans[0]);
    expect(plans[0]!.read).to.equal(2008);
    expect(plans[0]!.skipped).to.deep.equal([
      { type: 'DNSKEY', reason: 'dnssec', count: 1, names: [ORIGIN] },
      { type: 'NS', reason: 'service-owned', count: 1, names: [ORIGIN] },
      { type: 'SOA', reason: 'service-owned', count: 1, names: [ORIGIN] },
    ]);
  });

  for (const [label, planner] of planners) {
    it(`${label}: a refusal comes back as the parser's DomainError (code and facts), with the records read up to it`, async () => {
      const refused = async (text: string, maxRecords?: number): Promise<{ err: DomainError; read: number }> => {
        const session = start(planner, maxRecords);
        try {
          for (const c of chunks(text, 4096)) await session.push(c);
          await session.plan(ZoneSets.of(current), {});
        } catch (err) {
          expect(err).to.be.instanceOf(DomainError);
          return { err: err as DomainError, read: session.recordsRead };
        } finally {
          session.close();
        }
        throw new Error('not refused');
      };
      const include = await refused(`${file}\n$INCLUDE /etc/passwd\n`);
      expect(include.err.code).to.equal('zone_file_include');
      expect(include.err.params).to.deep.equal({ line: 2011 });
      const outside = await refused(`${file}\nevil.org. IN A 192.0.2.66\n`);
      expect(outside.err.code).to.equal('zone_file_out_of_zone');
      expect(outside.err.params).to.deep.equal({ line: 2011, name: 'evil.org.', domain: ORIGIN });
      const many = await refused(file, 100);
      expect(many.err.code).to.equal('import_too_many_records');
      expect(many.err.params).to.deep.equal({ limit: 100 });
      expect(many.read).to.equal(101);
    });
  }
});

describe('import planner: a plan that outgrows its thread’s heap', () => {
  it('fails that import (the thread is stopped), and the next import plans as usual', async () => {
    const small = new ThreadImportPlanner({ inlineBelowChars: 0, oldGenerationMb: 8 });
    const big = Array.from({ length: 60_000 }, (_, i) => `h${i} IN TXT "host ${i} ${'x'.repeat(40)}"`).join('\n');
    const session = start(small, 100_000);
    let failure: unknown = null;
    try {
      for (const c of chunks(big, 64 * 1024)) await session.push(c);
      await session.plan(ZoneSets.of(current), {});
    } catch (err) {
      failure = err;
    } finally {
      session.close();
    }
    expect(failure).to.be.instanceOf(Error);
    expect((failure as { code?: string }).code).to.equal('ERR_WORKER_OUT_OF_MEMORY');
    const next = start(new ThreadImportPlanner({ inlineBelowChars: 0 }));
    try {
      await next.push(file);
      expect(changeList((await next.plan(ZoneSets.of(current), {})).changes)).to.have.length.above(2000);
    } finally {
      next.close();
    }
  });
});

describe('import planner: planning threads at once', () => {
  it('an import past the process’s threads waits for one to end (done or closed), then plans as usual', async () => {
    const one = new ThreadImportPlanner({ inlineBelowChars: 0, maxThreads: 1 });
    const first = start(one);
    const second = start(one);
    try {
      await first.push(file);
      let secondStarted = false;
      const pushing = second.push(file).then(() => (secondStarted = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(secondStarted, 'the second import waits while the first holds the only thread').to.equal(false);
      const plan = await first.plan(ZoneSets.of(current), {});
      expect(changeList(plan.changes)).to.have.length.above(2000);
      await pushing; // the first thread is done: its place goes to the second
      expect(changeList((await second.plan(ZoneSets.of(current), {})).changes)).to.deep.equal(changeList(plan.changes));
      // A closed session frees its place too.
      const third = start(one);
      await third.push(file);
      third.close();
      const fourth = start(one);
      await fourth.push(file);
      expect(changeList((await fourth.plan(ZoneSets.of(current), {})).changes)).to.have.length.above(2000);
      fourth.close();
    } finally {
      first.close();
      second.close();
    }
  });
});
