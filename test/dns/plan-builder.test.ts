import { expect } from 'chai';
import { applyChanges, buildPlan, checkZone, isSafeChange } from '../../core/dns/plans/plan-builder.js';
import type { Change } from '../../core/dns/plans/plan.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import { formatZoneFile } from '../../core/dns/zone/zone-file.js';
import { apex, ORIGIN, rs } from './zone-fixtures.js';

const zone = (...sets: RecordSet[]): RecordSet[] => [...apex(), ...sets];
const summary = (changes: readonly Change[]) => changes.map((c) => `${c.action} ${c.name} ${c.type}`);
const rules = (checks: ReadonlyArray<{ rule: string }>) => checks.map((c) => c.rule);

describe('plans from changes (create / update / delete; update and delete state the current set)', () => {
  const current = zone(rs('@', 'A', ['192.0.2.1']), rs('www', 'A', ['192.0.2.1']), rs('old', 'TXT', ['bye']));

  it('resolves names, canonicalises values and orders deletes, updates, creates (each by name, then type)', () => {
    const p = buildPlan({
      origin: 'Example.COM.',
      current,
      input: {
        changes: [
          { action: 'create', name: 'mail', type: 'MX', ttl: 300, values: ['10 Mail.Example.net.'] },
          { action: 'create', name: 'b', type: 'AAAA', values: ['2001:DB8::0:1'] },
          { action: 'create', name: 'b', type: 'A', values: ['192.0.2.8'] },
          {
            action: 'update',
            name: 'www.example.com.',
            type: 'A',
            ttl: 60,
            values: ['192.0.2.2'],
            current: { ttl: 300, values: ['192.0.2.1'] },
          },
          { action: 'delete', name: 'old', type: 'TXT', current: { ttl: 300, values: ['bye'] } },
        ],
      },
    });
    expect(p.valid, JSON.stringify(p.checks)).to.equal(true);
    expect(p.source).to.equal('changes');
    expect(summary(p.changes)).to.deep.equal([
      'delete old.example.com TXT',
      'update www.example.com A',
      'create b.example.com A',
      'create b.example.com AAAA',
      'create mail.example.com MX',
    ]);
    expect(p.changes[3]!.values).to.deep.equal(['2001:db8::1']);
    expect(p.changes[4]!.values).to.deep.equal(['10 mail.example.net.']);
    expect(p.changes[1]).to.deep.equal({
      action: 'update',
      name: 'www.example.com',
      type: 'A',
      ttl: 60,
      values: ['192.0.2.2'],
      current: { ttl: 300, values: ['192.0.2.1'] },
    });
    expect(p.counts).to.deep.equal({ create: 3, update: 1, delete: 1, errors: 0, warnings: 0 });
    expect(p.before.map((b) => [b.name, b.type, b.set?.values ?? null])).to.deep.equal([
      ['old.example.com', 'TXT', ['bye']],
      ['www.example.com', 'A', ['192.0.2.1']],
      ['b.example.com', 'A', null],
      ['b.example.com', 'AAAA', null],
      ['mail.example.com', 'MX', null],
    ]);
    const after = new Map(p.after.map((s) => [`${s.name} ${s.type}`, s]));
    expect(after.has('old.example.com TXT')).to.equal(false);
    expect(after.get('www.example.com A')).to.deep.equal({ name: 'www.example.com', type: 'A', ttl: 60, values: ['192.0.2.2'] });
    expect(after.get('b.example.com A')!.ttl).to.equal(3600);
    expect(p.after).to.have.length(current.length - 1 + 3);
  });

  it('an update without ttl keeps the current TTL', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        changes: [{ action: 'update', name: 'www', type: 'A', values: ['192.0.2.3'], current: { ttl: 300, values: ['192.0.2.1'] } }],
      },
    });
    expect(p.changes[0]!.ttl).to.equal(300);
  });

  it('a stated current that does not match makes the plan invalid (current-mismatch)', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: { changes: [{ action: 'delete', name: 'www', type: 'A', current: { ttl: 300, values: ['192.0.2.9'] } }] },
    });
    expect(p.valid).to.equal(false);
    expect(rules(p.checks)).to.deep.equal(['current-mismatch']);
    expect(p.checks[0]!.message.en).to.contain('192.0.2.1');
  });

  it('create of an existing set is an error; changes to apex SOA/NS are invalid (service-owned)', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        changes: [
          { action: 'create', name: 'www', type: 'A', values: ['192.0.2.7'] },
          { action: 'delete', name: '@', type: 'NS', current: { ttl: 3600, values: ['ns1.domivka.net.', 'ns2.domivka.net.'] } },
        ],
      },
    });
    expect(p.valid).to.equal(false);
    expect(rules(p.checks)).to.include.members(['create-existing', 'apex-soa-ns-service-owned']);
  });

  it('problems already in the zone on untouched sets do not block an unrelated plan; new ones anywhere do', () => {
    // The zone already has a dangling MX and an underscore host; an unrelated change stays clean.
    const messy = zone(
      rs('@', 'MX', ['10 nomail.example.com.']),
      rs('my_host', 'A', ['192.0.2.1']),
      rs('sub', 'NS', ['ns.sub.example.com.', 'ns2.example.net.']),
      rs('ns.sub', 'A', ['192.0.2.53']),
    );
    const unrelated = buildPlan({
      origin: ORIGIN,
      current: messy,
      input: { changes: [{ action: 'create', name: 'api', type: 'A', values: ['192.0.2.5'] }] },
    });
    expect(unrelated.checks).to.deep.equal([]);
    // Deleting the glue of sub. breaks glue-present on a set the plan did not touch: reported.
    const breaking = buildPlan({
      origin: ORIGIN,
      current: messy,
      input: { changes: [{ action: 'delete', name: 'ns.sub', type: 'A', current: { ttl: 300, values: ['192.0.2.53'] } }] },
    });
    expect(breaking.valid).to.equal(false);
    expect(breaking.checks.map((c) => [c.rule, c.name])).to.deep.equal([['glue-present', 'sub.example.com']]);
    // Touching the MX set shows its problem again.
    const touching = buildPlan({
      origin: ORIGIN,
      current: messy,
      input: {
        changes: [
          {
            action: 'update',
            name: '@',
            type: 'MX',
            ttl: 60,
            values: ['10 nomail.example.com.'],
            current: { ttl: 300, values: ['10 nomail.example.com.'] },
          },
        ],
      },
    });
    expect(rules(touching.checks)).to.deep.equal(['dangling-target']);
  });

  it('a CNAME next to an existing A is an error; errors come before warnings', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        changes: [
          { action: 'create', name: 'www', type: 'CNAME', values: ['example.com.'] },
          { action: 'create', name: 'solo', type: 'NS', values: ['ns1.example.net.'] },
        ],
      },
    });
    expect(rules(p.checks)).to.deep.equal(['cname-exclusive', 'ns-count']);
    expect(p.counts.errors).to.equal(1);
    expect(p.counts.warnings).to.equal(1);
  });

  it("re-checking a plan's own changes on the unchanged zone gives the same result (apply re-runs it)", () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        changes: [{ action: 'update', name: 'www', type: 'A', values: ['192.0.2.2'], current: { ttl: 300, values: ['192.0.2.1'] } }],
      },
    });
    const again = buildPlan({ origin: ORIGIN, current, input: { changes: p.changes.map((c) => ({ ...c })) } });
    expect(again.valid).to.equal(true);
    expect(again.changes).to.deep.equal(p.changes);
  });
});

describe('plans from records (the whole desired zone; the plan computes the diff)', () => {
  const current = zone(
    rs('@', 'A', ['192.0.2.1']),
    rs('www', 'A', ['192.0.2.1', '192.0.2.2']),
    rs('gone', 'A', ['192.0.2.3']),
    rs('_acme-challenge', 'TXT', ['token-1']),
    rs('_acme-challenge.www', 'TXT', ['token-2']),
  );

  it('creates, updates and deletes what differs; order of values and value spelling do not count', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        records: [
          { name: '@', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.2', '192.0.2.1'] },
          { name: 'new', type: 'AAAA', ttl: 300, values: ['2001:DB8::5'] },
          { name: 'mail', type: 'MX', ttl: 600, values: ['10 mx.example.net.'] },
        ],
      },
    });
    expect(p.valid, JSON.stringify(p.checks)).to.equal(true);
    expect(p.source).to.equal('records');
    expect(summary(p.changes)).to.deep.equal(['delete gone.example.com A', 'create mail.example.com MX', 'create new.example.com AAAA']);
    expect(p.changes[0]!.current).to.deep.equal({ ttl: 300, values: ['192.0.2.3'] });
  });

  it('leaves apex SOA/NS and _acme-challenge names alone, whatever the records say', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        records: [
          { name: '@', type: 'NS', ttl: 60, values: ['ns.elsewhere.net.'] },
          { name: '@', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.1', '192.0.2.2'] },
          { name: 'gone', type: 'A', ttl: 300, values: ['192.0.2.3'] },
          { name: '_acme-challenge.new', type: 'TXT', ttl: 60, values: ['ignored'] },
        ],
      },
    });
    expect(p.changes).to.deep.equal([]);
    expect(p.valid).to.equal(true);
  });

  it('a TTL change is an update; one set named twice is merged, with differing TTLs an error (rrset-ttl)', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        records: [
          { name: '@', type: 'A', ttl: 60, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.2'] },
          { name: 'gone', type: 'A', ttl: 300, values: ['192.0.2.3'] },
          { name: 'gone', type: 'A', ttl: 900, values: ['192.0.2.4'] },
        ],
      },
    });
    expect(summary(p.changes)).to.deep.equal(['update example.com A', 'update gone.example.com A']);
    expect(rules(p.checks)).to.deep.equal(['rrset-ttl']);
  });
});

describe('plans from a zone file (BIND text imported into a diff)', () => {
  it('imports the file, ignoring apex SOA/NS (service-owned), and diffs it against the zone', () => {
    const current = zone(rs('www', 'A', ['192.0.2.1']), rs('gone', 'TXT', ['x']));
    const text = [
      '$ORIGIN example.com.',
      '$TTL 1h',
      '@ IN SOA ns.other.net. admin.other.net. ( 2024010101 ; serial',
      '        7200 900 1209600 300 )',
      '@ IN NS ns.other.net.',
      'www 300 IN A 192.0.2.1',
      'mail IN A 192.0.2.25',
      '@ IN MX 10 mail',
      '',
    ].join('\n');
    const p = buildPlan({ origin: ORIGIN, current, input: { zone_file: text } });
    expect(p.valid, JSON.stringify(p.checks)).to.equal(true);
    expect(p.source).to.equal('zone_file');
    expect(summary(p.changes)).to.deep.equal(['delete gone.example.com TXT', 'create example.com MX', 'create mail.example.com A']);
    expect(p.changes.find((c) => c.type === 'MX')).to.deep.include({ ttl: 3600, values: ['10 mail.example.com.'] });
  });

  it('a zone exported by formatZoneFile and imported again changes nothing', () => {
    const current = zone(
      rs('@', 'A', ['192.0.2.1']),
      rs('@', 'MX', ['10 mail.example.com.', '20 mx.example.net.']),
      rs('@', 'TXT', ['v=spf1 mx -all', `${'long '.repeat(100)}"quoted" \\ київ`]),
      rs('@', 'CAA', ['0 issue "letsencrypt.org"', '0 issuewild ";"']),
      rs('mail', 'A', ['192.0.2.25']),
      rs('*.dev', 'A', ['192.0.2.80']),
    );
    const text = formatZoneFile({ domain: ORIGIN, serial: 9, recordSets: current });
    const p = buildPlan({ origin: ORIGIN, current, input: { zone_file: text } });
    expect(p.changes).to.deep.equal([]);
    expect(p.checks).to.deep.equal([]);
  });

  it('a malformed input is an error, never an empty zone that deletes everything', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current: zone(rs('www', 'A', ['192.0.2.1'])),
      input: { zone_file: 42 } as unknown as { zone_file: string },
    });
    expect(p.changes).to.deep.equal([]);
    expect(rules(p.checks)).to.deep.equal(['input-syntax']);
  });

  it('parse problems become check results, with the line', () => {
    const p = buildPlan({
      origin: ORIGIN,
      current: zone(),
      input: { zone_file: 'ok 300 IN A 192.0.2.1\nbad 300 IN WKS x\nx 300 CH A 192.0.2.1\n' },
    });
    expect(p.valid).to.equal(false);
    expect(p.checks.map((c) => [c.rule, c.message.en.slice(0, 7)])).to.deep.equal([
      ['record-type', 'Line 2:'],
      ['zone-file-syntax', 'Line 3:'],
    ]);
    expect(summary(p.changes)).to.deep.equal(['create ok.example.com A']);
  });
});

describe('applyChanges and the safety rule (octoDNS: > 30% of a zone of ≥ 10 sets needs force)', () => {
  it('applies deletes, updates and creates to a copy of the zone', () => {
    const current = zone(rs('a', 'A', ['192.0.2.1']), rs('b', 'A', ['192.0.2.2']));
    const after = applyChanges(current, [
      { action: 'delete', name: 'a.example.com', type: 'A', current: { ttl: 300, values: ['192.0.2.1'] } },
      { action: 'update', name: 'b.example.com', type: 'A', ttl: 60, values: ['192.0.2.3'], current: { ttl: 300, values: ['192.0.2.2'] } },
      { action: 'create', name: 'c.example.com', type: 'A', ttl: 60, values: ['192.0.2.4'] },
    ]);
    expect(after.map((s) => `${s.name} ${s.type} ${s.ttl} ${s.values.join(',')}`)).to.deep.equal([
      ...apex().map((s) => `${s.name} ${s.type} ${s.ttl} ${s.values.join(',')}`),
      'b.example.com A 60 192.0.2.3',
      'c.example.com A 60 192.0.2.4',
    ]);
    expect(current).to.have.length(4);
  });

  it('updates and deletes together above 30% of a zone of at least 10 sets are unsafe; creates never count', () => {
    const ch = (action: Change['action'], n: number): Change[] =>
      Array.from({ length: n }, (_, i) => ({ action, name: `n${i}.example.com`, type: 'A' }));
    expect(isSafeChange(9, ch('delete', 9))).to.equal(true);
    expect(isSafeChange(10, ch('update', 3))).to.equal(true);
    expect(isSafeChange(10, ch('update', 4))).to.equal(false);
    expect(isSafeChange(10, [...ch('update', 2), ...ch('delete', 2)])).to.equal(false);
    expect(isSafeChange(10, ch('create', 100))).to.equal(true);
    expect(isSafeChange(100, ch('delete', 30))).to.equal(true);
    expect(isSafeChange(100, ch('delete', 31))).to.equal(false);
  });

  it('checkZone runs every rule over a whole zone', () => {
    expect(checkZone(ORIGIN, zone(rs('www', 'CNAME', ['example.com.']), rs('www', 'A', ['192.0.2.1']))).map((c) => c.rule)).to.deep.equal([
      'cname-exclusive',
    ]);
  });
});
