import { expect } from 'chai';
import { RULES, runRules } from '../../core/dns/checks/index.js';
import { answerSizeOver } from '../../core/dns/zone/wire-size.js';
import { ancestorWhere } from '../../core/dns/checks/delegations.js';
import { makePlanDelta, zoneRuleResults } from '../../core/dns/checks/plan-delta.js';
import { makeView, result, type PlanDelta, type Rule } from '../../core/dns/checks/rule.js';
import { lastField, TargetIndex } from '../../core/dns/checks/target-index.js';
import { isSpf, spfValues } from '../../core/dns/checks/spf.js';
import { buildPlan } from '../../core/dns/plans/plan-builder.js';
import type { Change, CheckResult } from '../../core/dns/plans/plan.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import { apex, ORIGIN, rs } from './zone-fixtures.js';

/**
 * The exact results of the zone rules: name, type, severity and both messages, and the boundaries of each
 * condition (issue 20: the survivors of the mutation run over core/dns/checks). checks.test.ts asks only
 * whether a rule reports; here each report is pinned, so a rule that reports the wrong thing fails.
 */

const zoneRule = (id: string) => {
  const rule = RULES.find((r) => r.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
};

/** One rule over the given sets (all changed), with the service's apex unless `withApex` is false. */
const check = (id: string, sets: RecordSet[], withApex = true): CheckResult[] =>
  zoneRule(id).check(makeView(ORIGIN, withApex ? [...apex(), ...sets] : sets));

const res = (id: string, name: string, type: string | null, en: string, uk: string): CheckResult => ({
  severity: zoneRule(id).severity,
  rule: id,
  name,
  type,
  message: { uk, en },
});

const A = (name: string) => rs(name, 'A', ['192.0.2.1']);
const [SOA, NS] = apex() as [RecordSet, RecordSet];
/** An apex SOA with these timers (refresh retry expire minimum). */
const soa = (timers: string, values = 1): RecordSet => ({
  ...SOA,
  values: Array.from({ length: values }, (_, i) => `ns1.domivka.net. hostmaster.domivka.net. ${i + 1} ${timers}`),
});

describe('DNS checks: the exact result of each zone rule (issue 20)', () => {
  describe('names', () => {
    it('wildcard-position: a label that starts with "*" but is not "*" is refused; "*" alone is kept', () => {
      expect(check('wildcard-position', [A('*x')])).to.deep.equal([
        res(
          'wildcard-position',
          '*x.example.com',
          null,
          '"*" is allowed only as the whole leftmost label (e.g. *.example.com): "*x.example.com".',
          '«*» допускається лише як уся крайня ліва мітка (наприклад, *.example.com): «*x.example.com».',
        ),
      ]);
      expect(check('wildcard-position', [A('*'), A('*.dev')])).to.deep.equal([]);
    });

    it('wildcard-soa-ns: SOA and NS at a wildcard name, also the bare "*" (the root zone\'s wildcard)', () => {
      const wildSoa: RecordSet = { ...SOA, name: '*.example.com' };
      const bareNs: RecordSet = { ...NS, name: '*' };
      expect(check('wildcard-soa-ns', [wildSoa, bareNs, rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.net.'])])).to.deep.equal([
        res(
          'wildcard-soa-ns',
          '*.example.com',
          'SOA',
          'A wildcard name cannot have SOA records; name the delegation explicitly.',
          'Ім’я з символом підстановки не може мати записів SOA; вкажіть ім’я явно.',
        ),
        res(
          'wildcard-soa-ns',
          '*',
          'NS',
          'A wildcard name cannot have NS records; name the delegation explicitly.',
          'Ім’я з символом підстановки не може мати записів NS; вкажіть ім’я явно.',
        ),
      ]);
    });
  });

  describe('TTLs and sets', () => {
    it('rrset-ttl: one set given two TTLs names them in the message', () => {
      const checks = buildPlan({
        origin: ORIGIN,
        current: apex(),
        input: {
          records: [
            { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.1'] },
            { name: 'www', type: 'A', ttl: 600, values: ['192.0.2.2'] },
          ],
        },
      }).checks.filter((r) => r.rule === 'rrset-ttl');
      expect(checks).to.deep.equal([
        res(
          'rrset-ttl',
          'www.example.com',
          'A',
          'The A records at www.example.com have different TTLs (300, 600); a record set has one TTL.',
          'Записи A на www.example.com мають різні TTL (300, 600); набір записів має один TTL.',
        ),
      ]);
    });
  });

  describe('CNAME', () => {
    it('cname-exclusive: the message lists the other types at the name, not the CNAME', () => {
      const sets = [rs('www', 'CNAME', ['example.net.']), A('www'), rs('www', 'TXT', ['x'])];
      expect(check('cname-exclusive', sets)).to.deep.equal([
        res(
          'cname-exclusive',
          'www.example.com',
          'CNAME',
          'A CNAME must be alone at its name, but www.example.com also has A, TXT; remove one or the other.',
          'CNAME має бути єдиним записом на своєму імені, але www.example.com має також A, TXT; приберіть одне чи інше.',
        ),
      ]);
    });

    it('cname-single: two CNAME values at one name', () => {
      expect(check('cname-single', [rs('www', 'CNAME', ['a.example.net.', 'b.example.net.'])])).to.deep.equal([
        res(
          'cname-single',
          'www.example.com',
          'CNAME',
          'A name has at most one CNAME, but www.example.com has 2.',
          'Ім’я може мати лише один CNAME, а www.example.com має 2.',
        ),
      ]);
    });

    it('cname-at-apex: a CNAME at the apex', () => {
      expect(check('cname-at-apex', [rs('@', 'CNAME', ['example.net.'])])).to.deep.equal([
        res(
          'cname-at-apex',
          'example.com',
          'CNAME',
          'The zone apex cannot have a CNAME: it holds the SOA and NS records. Use A/AAAA records there instead.',
          'Вершина зони не може мати CNAME: там містяться записи SOA і NS. Використовуйте натомість записи A/AAAA.',
        ),
      ]);
    });
  });

  describe('apex', () => {
    const noSoa = makeView(ORIGIN, [NS]);
    const twoSoa = makeView(ORIGIN, [soa('3600 600 1209600 300', 2), NS]);
    const apexSoa = (n: number) =>
      res(
        'soa-apex',
        'example.com',
        'SOA',
        `The zone apex must have exactly one SOA record; it has ${n}.`,
        `Вершина зони повинна мати рівно один запис SOA; зараз їх ${n}.`,
      );

    it('soa-apex: no SOA at the apex says 0, two say 2; an SOA below the apex is named', () => {
      expect(zoneRule('soa-apex').check(noSoa)).to.deep.equal([apexSoa(0)]);
      expect(zoneRule('soa-apex').check(twoSoa)).to.deep.equal([apexSoa(2)]);
      expect(check('soa-apex', [{ ...SOA, name: 'sub.example.com' }])).to.deep.equal([
        res(
          'soa-apex',
          'sub.example.com',
          'SOA',
          'An SOA record belongs only at the zone apex (example.com), not at sub.example.com.',
          'Запис SOA може бути лише на вершині зони (example.com), а не на sub.example.com.',
        ),
      ]);
    });

    it('soa-apex: checkNames judges the apex only when it is among the names, and owners of an SOA among them', () => {
      const rule = zoneRule('soa-apex');
      expect(rule.checkNames!(noSoa, new Set([ORIGIN]))).to.deep.equal([apexSoa(0)]);
      expect(rule.checkNames!(noSoa, new Set(['www.example.com']))).to.deep.equal([]);
      const below = makeView(ORIGIN, [...apex(), { ...SOA, name: 'sub.example.com' }]);
      expect(rule.checkNames!(below, new Set(['sub.example.com', 'www.example.com']))).to.deep.equal(rule.check(below));
      // Each result depends on its own name only: no other name is affected.
      expect([...(rule.affected!({} as PlanDelta) as Iterable<string>)]).to.deep.equal([]);
    });

    const nsResult = res(
      'ns-apex',
      'example.com',
      'NS',
      'The zone apex must have a non-empty NS set.',
      'Вершина зони повинна мати непорожній набір записів NS.',
    );

    it('ns-apex: no NS set at the apex, and an empty one', () => {
      expect(zoneRule('ns-apex').check(makeView(ORIGIN, [SOA]))).to.deep.equal([nsResult]);
      expect(zoneRule('ns-apex').check(makeView(ORIGIN, [SOA, { ...NS, values: [] }]))).to.deep.equal([nsResult]);
    });

    it('ns-apex: checkNames answers for the apex only, and no other name is affected', () => {
      const rule = zoneRule('ns-apex');
      const view = makeView(ORIGIN, [SOA]);
      expect(rule.checkNames!(view, new Set([ORIGIN, 'www.example.com']))).to.deep.equal([nsResult]);
      expect(rule.checkNames!(view, new Set(['www.example.com']))).to.deep.equal([]);
      expect([...(rule.affected!({} as PlanDelta) as Iterable<string>)]).to.deep.equal([]);
    });
  });

  describe('warnings', () => {
    it('ns-count: a single nameserver', () => {
      expect(check('ns-count', [rs('sub', 'NS', ['ns1.example.net.'])])).to.deep.equal([
        res(
          'ns-count',
          'sub.example.com',
          'NS',
          'sub.example.com has only 1 nameserver; use at least two, on different networks.',
          'sub.example.com має лише 1 сервер імен; використовуйте щонайменше два, у різних мережах.',
        ),
      ]);
    });

    const timers = (t: string): CheckResult[] => zoneRule('soa-timers').check(makeView(ORIGIN, [soa(t), NS]));
    const odd = (en: string[], uk: string[]) => [
      res('soa-timers', 'example.com', 'SOA', `Unusual SOA timers: ${en.join('; ')}.`, `Незвичні таймери SOA: ${uk.join('; ')}.`),
    ];

    it('soa-timers: every timer out of practice at once, each named in both languages', () => {
      expect(timers('60 120 100 999999')).to.deep.equal(
        odd(
          [
            'refresh 60 is outside 1200–43200 s',
            'retry 120 is not below refresh 60',
            'expire 100 is outside 2–4 weeks (1209600–2419200 s)',
            'expire 100 is not above refresh + retry',
            'minimum (negative-caching TTL) 999999 is over a day',
          ],
          [
            'refresh 60 поза межами 1200–43200 с',
            'retry 120 не менший за refresh 60',
            'expire 100 поза межами 2–4 тижнів (1209600–2419200 с)',
            'expire 100 не більший за refresh + retry',
            'minimum (TTL негативного кешування) 999999 перевищує добу',
          ],
        ),
      );
    });

    it('soa-timers: the bounds themselves are usual, one past each is not', () => {
      expect(timers('1200 1199 1209600 86400')).to.deep.equal([]);
      expect(timers('43200 600 2419200 300')).to.deep.equal([]);
      expect(timers('1199 600 1209600 300')).to.deep.equal(
        odd(['refresh 1199 is outside 1200–43200 s'], ['refresh 1199 поза межами 1200–43200 с']),
      );
      expect(timers('43201 600 1209600 300')).to.deep.equal(
        odd(['refresh 43201 is outside 1200–43200 s'], ['refresh 43201 поза межами 1200–43200 с']),
      );
      expect(timers('3600 3600 1209600 300')).to.deep.equal(
        odd(['retry 3600 is not below refresh 3600'], ['retry 3600 не менший за refresh 3600']),
      );
      expect(timers('3600 600 1209599 300')).to.deep.equal(
        odd(['expire 1209599 is outside 2–4 weeks (1209600–2419200 s)'], ['expire 1209599 поза межами 2–4 тижнів (1209600–2419200 с)']),
      );
      expect(timers('3600 600 2419201 300')).to.deep.equal(
        odd(['expire 2419201 is outside 2–4 weeks (1209600–2419200 s)'], ['expire 2419201 поза межами 2–4 тижнів (1209600–2419200 с)']),
      );
      expect(timers('3600 600 1209600 86401')).to.deep.equal(
        odd(['minimum (negative-caching TTL) 86401 is over a day'], ['minimum (TTL негативного кешування) 86401 перевищує добу']),
      );
    });

    it('soa-timers: expire must be above refresh + retry (4200 is not, 4201 is)', () => {
      const outside = (e: number) => [
        `expire ${e} is outside 2–4 weeks (1209600–2419200 s)`,
        `expire ${e} поза межами 2–4 тижнів (1209600–2419200 с)`,
      ];
      expect(timers('3600 600 4200 300')).to.deep.equal(
        odd(
          [outside(4200)[0]!, 'expire 4200 is not above refresh + retry'],
          [outside(4200)[1]!, 'expire 4200 не більший за refresh + retry'],
        ),
      );
      expect(timers('3600 600 4201 300')).to.deep.equal(odd([outside(4201)[0]!], [outside(4201)[1]!]));
    });

    it('soa-timers: an SOA value that does not parse is left to soa-value', () => {
      expect(zoneRule('soa-timers').check(makeView(ORIGIN, [{ ...SOA, values: ['garbage'] }, NS]))).to.deep.equal([]);
    });
  });

  describe('values and sets', () => {
    it('duplicate-records: names the value and its count; a value over 80 characters is cut to 80 and "…"', () => {
      expect(check('duplicate-records', [rs('a', 'A', ['192.0.2.1', '192.0.2.2', '192.0.2.1', '192.0.2.1'])])).to.deep.equal([
        res(
          'duplicate-records',
          'a.example.com',
          'A',
          'The value "192.0.2.1" appears 3 times in the A set at a.example.com; keep it once.',
          'Значення «192.0.2.1» трапляється в наборі A на a.example.com 3 рази; залиште одне.',
        ),
      ]);
      const target = (n: number) => `${'x'.repeat(n - 13)}.example.net.`;
      const cut = check('duplicate-records', [rs('b', 'NS', [target(81), target(81), target(80), target(80)])]);
      expect(cut.map((r) => r.message.en)).to.deep.equal([
        `The value "${target(81).slice(0, 80)}…" appears 2 times in the NS set at b.example.com; keep it once.`,
        `The value "${target(80)}" appears 2 times in the NS set at b.example.com; keep it once.`,
      ]);
    });

    it('rrset-size-over-1232: an answer of exactly 65535 octets (the most a message holds) is warned of', () => {
      const values = Array.from({ length: 250 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(240)}`);
      const sizeOf = (): number => {
        const set = rs('big', 'TXT', values);
        return answerSizeOver(set, makeView(ORIGIN, [set]).parsed, 0)!;
      };
      // Grow the set, then size one last value, until the answer is exactly 65535 octets.
      while (sizeOf() < 65535 - 300) values.push(`${values.length} ${'x'.repeat(240)}`);
      values.push('z');
      for (let i = 0; i < 5 && sizeOf() !== 65535; i++) values[values.length - 1] = 'z'.repeat(values.at(-1)!.length + 65535 - sizeOf());
      expect(sizeOf()).to.equal(65535);
      expect(check('rrset-size', [rs('big', 'TXT', values)])).to.deep.equal([]);
      expect(check('rrset-size-over-1232', [rs('big', 'TXT', values)])).to.have.length(1);
    });
  });

  describe('per type', () => {
    it('mx-null: a null MX beside another MX, and a null MX with a preference; other MX problems are not its own', () => {
      const beside = (name: string) =>
        res(
          'mx-null',
          name,
          'MX',
          `A null MX ("0 .") must be the only MX at ${name}: it says the domain accepts no mail, so other MX records contradict it.`,
          `Нульовий MX («0 .») має бути єдиним MX на ${name}: він означає, що домен не приймає пошти, тож інші записи MX йому суперечать.`,
        );
      expect(check('mx-null', [rs('@', 'MX', ['0 .', '10 mail.example.net.'])])).to.deep.equal([beside('example.com')]);
      const [pref] = check('mx-null', [rs('@', 'MX', ['10 .'])]);
      expect(pref).to.include({ rule: 'mx-null', name: 'example.com', type: 'MX' });
      expect(check('mx-null', [rs('@', 'MX', ['10 a.example.net.', '20 b.example.net.'])])).to.deep.equal([]);
      expect(check('mx-null', [rs('@', 'MX', ['70000 192.0.2.1.'])])).to.deep.equal([]);
    });

    it('srv-owner-format: both leading labels must be whole underscore labels', () => {
      const bad = (rel: string) =>
        res(
          'srv-owner-format',
          `${rel}.example.com`,
          'SRV',
          `An SRV name starts with _service._protocol, e.g. _sip._tcp.example.com; "${rel}.example.com" does not.`,
          `Ім’я запису SRV починається з _служба._протокол, наприклад _sip._tcp.example.com; «${rel}.example.com» так не починається.`,
        );
      for (const rel of ['x._tcp', 'x_sip._tcp', '_sip_x._tcp', '_sip.x_tcp', '_sip._tcp_x']) {
        expect(check('srv-owner-format', [rs(rel, 'SRV', ['10 5 5060 sip.example.net.'])]), rel).to.deep.equal([bad(rel)]);
      }
    });

    it('caa-issuewild: issue without issuewild, also beside a value that does not parse', () => {
      expect(check('caa-issuewild', [rs('@', 'CAA', ['garbage', '0 issue "letsencrypt.org"'])])).to.deep.equal([
        res(
          'caa-issuewild',
          'example.com',
          'CAA',
          'CAA issue is set without issuewild, so the same CAs may also issue wildcard certificates; add issuewild to say who may (";" for nobody).',
          'Задано CAA issue без issuewild, тож ті самі центри сертифікації можуть видавати й wildcard-сертифікати; додайте issuewild, щоб указати, хто може (";" — ніхто).',
        ),
      ]);
      expect(check('caa-issuewild', [rs('@', 'CAA', ['garbage'])])).to.deep.equal([]);
    });

    it('spf-single: two v=spf1 TXT values at a name; the obsolete SPF type is spf-type’s, not its', () => {
      const spf = ['v=spf1 mx -all', 'v=spf1 a -all'];
      expect(check('spf-single', [rs('@', 'TXT', spf)])).to.deep.equal([
        res(
          'spf-single',
          'example.com',
          'TXT',
          'example.com has 2 TXT records starting with v=spf1; receivers then fail SPF outright (permerror). Merge them into one.',
          'example.com має 2 записи TXT, що починаються з v=spf1; тоді одержувачі відхиляють перевірку SPF (permerror). Об’єднайте їх в один.',
        ),
      ]);
      expect(check('spf-single', [rs('@', 'SPF', spf)])).to.deep.equal([]);
      expect(check('spf-type', [rs('@', 'SPF', ['v=spf1 -all'])])).to.deep.equal([
        res(
          'spf-type',
          'example.com',
          'SPF',
          'The SPF record type (99) is obsolete and ignored by receivers; publish the policy as a TXT record.',
          'Тип запису SPF (99) застарів, і одержувачі його ігнорують; опублікуйте політику як запис TXT.',
        ),
      ]);
    });

    it('isSpf: "v=spf1" at the start, followed by a space or the end; spfValues of no set is empty', () => {
      expect(isSpf('v=spf1')).to.equal(true);
      expect(isSpf('V=SPF1 -all')).to.equal(true);
      expect(isSpf('x v=spf1 -all')).to.equal(false);
      expect(isSpf('v=spf10 -all')).to.equal(false);
      expect(spfValues(undefined)).to.deep.equal([]);
    });
  });

  describe('names', () => {
    it('a name rule reports only its own problems of a name (a 64-octet label is label-length’s)', () => {
      const name = `${'x'.repeat(64)}`;
      expect(check('name-syntax', [A(name)])).to.deep.equal([]);
      expect(check('label-length', [A(name)])).to.have.length(1);
    });

    it('host-label-underscore: AAAA owners and NS targets too; a CNAME target is not a host name here', () => {
      expect(
        check('host-label-underscore', [
          rs('my_host', 'AAAA', ['2001:db8::1']),
          rs('sub', 'NS', ['ns_1.example.net.', 'ns2.example.net.']),
          rs('www', 'CNAME', ['web_1.example.net.']),
        ]),
      ).to.deep.equal([
        res(
          'host-label-underscore',
          'my_host.example.com',
          'AAAA',
          'my_host.example.com has an underscore, but it names a host (it has AAAA); host names use letters, digits and hyphens.',
          'my_host.example.com містить підкреслення, хоча це ім’я вузла (має AAAA); імена вузлів складаються з літер, цифр і дефісів.',
        ),
        res(
          'host-label-underscore',
          'sub.example.com',
          'NS',
          'The NS target ns_1.example.net has an underscore; host names use letters, digits and hyphens.',
          'Ціль NS ns_1.example.net містить підкреслення; імена вузлів складаються з літер, цифр і дефісів.',
        ),
      ]);
    });

    it('ancestorWhere: strictly between the name and the apex, never the apex; null for a name with no parent', () => {
      expect(ancestorWhere('a.b.example.com', ORIGIN, () => true)).to.equal('b.example.com');
      expect(ancestorWhere('www.example.com', ORIGIN, () => true)).to.equal(null);
      expect(ancestorWhere('localhost', ORIGIN, () => true)).to.equal(null);
      expect(ancestorWhere('www.example.net', ORIGIN, () => true)).to.equal(null);
    });
  });

  describe('apex changes', () => {
    const apexChange = (action: 'create' | 'update' | 'delete', type: 'NS' | 'SOA' | 'A') =>
      buildPlan({
        origin: ORIGIN,
        current: [...apex(), rs('@', 'A', ['192.0.2.1'])],
        input: {
          changes: [
            action === 'create'
              ? { action, name: '@', type, values: type === 'A' ? ['192.0.2.9'] : ['ns.example.net.'] }
              : action === 'update'
                ? {
                    action,
                    name: '@',
                    type,
                    ttl: 3600,
                    values: type === 'A' ? ['192.0.2.9'] : ['ns.example.net.'],
                    current: type === 'A' ? { ttl: 300, values: ['192.0.2.1'] } : { ttl: 3600, values: NS.values },
                  }
                : { action, name: '@', type, current: { ttl: 3600, values: type === 'SOA' ? SOA.values : NS.values } },
          ],
        },
      }).checks.filter((r) => r.rule === 'apex-soa-ns-service-owned');

    it('apex-soa-ns-service-owned: names the action in both languages; other apex types are free', () => {
      const words = { create: 'створювати', update: 'змінювати', delete: 'видаляти' } as const;
      for (const action of ['create', 'update', 'delete'] as const) {
        const type = action === 'delete' ? 'SOA' : 'NS';
        expect(apexChange(action, type), action).to.deep.equal([
          res(
            'apex-soa-ns-service-owned',
            'example.com',
            type,
            `The apex ${type} records belong to the service and follow the domain's nameservers; a plan cannot ${action} them.`,
            `Записи ${type} на вершині зони належать сервісу й відповідають серверам імен домену; план не може їх ${words[action]}.`,
          ),
        ]);
      }
      expect(apexChange('update', 'A')).to.deep.equal([]);
    });
  });

  describe('zone rules on a few names', () => {
    /** A zone where every rule with checkNames has results. */
    const messy = makeView(ORIGIN, [
      rs('a', 'CNAME', ['b.example.com.']),
      rs('b', 'CNAME', ['c.example.net.']),
      rs('self', 'CNAME', ['self.example.com.']),
      rs('@', 'MX', ['10 a.example.com.']),
      rs('_sip._tcp', 'SRV', ['10 5 5060 a.example.com.']),
      rs('sub', 'NS', ['ns1.sub.example.com.', 'a.example.com.']),
      rs('x.sub', 'A', ['192.0.2.1']),
      { ...SOA, name: 'deep.example.com' },
      rs('dn', 'DNAME', ['example.net.']),
      rs('y.dn', 'A', ['192.0.2.1']),
      rs('mail', 'MX', ['10 nowhere.example.com.']),
    ]);

    it('checkNames on every name gives the results check gives, for each rule that has it', () => {
      const key = (r: CheckResult) => JSON.stringify(r);
      for (const rule of RULES.filter((r) => r.checkNames)) {
        const whole = rule.check(messy);
        const some = rule.checkNames!(messy, new Set(messy.names.keys()));
        // Null: the rule needs the whole zone for these names (cname-loop, on a zone with a loop).
        if (some === null) continue;
        expect(some!.map(key).sort(), rule.id).to.deep.equal(whole.map(key).sort());
      }
      for (const id of [
        'cname-chain',
        'glue-present',
        'mx-target-not-cname',
        'srv-target-not-cname',
        'ns-target-not-cname',
        'soa-apex',
        'ns-apex',
      ]) {
        expect(zoneRule(id).check(messy), id).to.not.be.empty;
      }
    });

    it('cname-chain: a CNAME at a CNAME is named, a CNAME at itself is cname-loop’s', () => {
      expect(zoneRule('cname-chain').check(messy)).to.deep.equal([
        res(
          'cname-chain',
          'a.example.com',
          'CNAME',
          'The CNAME points at b.example.com, which is itself a CNAME; point it at the final name to save resolvers a lookup.',
          'CNAME вказує на b.example.com, який сам є CNAME; вкажіть кінцеве ім’я, щоб резолверам не довелося робити зайвий запит.',
        ),
      ]);
    });

    it('glue-present: an NS target in the zone without an address; its affected names are those pointing at names left without A and AAAA', () => {
      expect(zoneRule('glue-present').check(messy)).to.deep.equal([
        res(
          'glue-present',
          'sub.example.com',
          'NS',
          'The nameserver ns1.sub.example.com of sub.example.com is inside this zone but has no A or AAAA record (glue); add its address.',
          'Сервер імен ns1.sub.example.com для sub.example.com лежить у цій зоні, але не має запису A чи AAAA (glue); додайте його адресу.',
        ),
        res(
          'glue-present',
          'sub.example.com',
          'NS',
          'The nameserver a.example.com of sub.example.com is inside this zone but has no A or AAAA record (glue); add its address.',
          'Сервер імен a.example.com для sub.example.com лежить у цій зоні, але не має запису A чи AAAA (glue); додайте його адресу.',
        ),
      ]);
      const asked: string[][] = [];
      const delta = {
        changedWithout: (...types: string[]) => {
          asked.push(types);
          return ['n.example.com'];
        },
        referrers: (targets: Iterable<string>) => new Set([...targets].map((t) => `to-${t}`)),
      } as unknown as PlanDelta;
      expect([...(zoneRule('glue-present').affected!(delta) as Iterable<string>)]).to.deep.equal(['to-n.example.com']);
      expect(asked).to.deep.equal([['A', 'AAAA']]);
    });
  });

  describe('CNAME loops', () => {
    it('cname-loop: only the names on the loop are reported, each with the loop spelled out', () => {
      const sets = [rs('x', 'CNAME', ['a.example.com.']), rs('a', 'CNAME', ['b.example.com.']), rs('b', 'CNAME', ['a.example.com.'])];
      const loop = (name: string) =>
        res(
          'cname-loop',
          name,
          'CNAME',
          'CNAME loop: a.example.com → b.example.com → a.example.com. Point one of them at a real host.',
          'Цикл CNAME: a.example.com → b.example.com → a.example.com. Спрямуйте один із них на справжній вузол.',
        );
      expect(check('cname-loop', sets)).to.deep.equal([loop('a.example.com'), loop('b.example.com')]);
    });

    it('cname-loop: checkNames is [] when no chain from the names reaches a loop, null when one does', () => {
      const rule = zoneRule('cname-loop');
      const view = makeView(ORIGIN, [
        ...apex(),
        rs('x', 'CNAME', ['y.example.com.']),
        rs('y', 'CNAME', ['z.example.com.']),
        A('z'),
        rs('l', 'CNAME', ['m.example.com.']),
        rs('m', 'CNAME', ['l.example.com.']),
      ]);
      expect(rule.checkNames!(view, new Set(['x.example.com', 'y.example.com', 'z.example.com']))).to.deep.equal([]);
      expect(rule.checkNames!(view, new Set(['x.example.com', 'l.example.com']))).to.equal(null);
      // Both views are judged on every changed name: no other name is affected.
      expect([...(rule.affected!({} as PlanDelta) as Iterable<string>)]).to.deep.equal([]);
    });
  });

  describe('DNAME', () => {
    it('below-dname: a DNAME at the apex puts every other name below it, not the apex itself', () => {
      const view = makeView(ORIGIN, [...apex(), rs('@', 'DNAME', ['example.net.']), A('www')]);
      const below = res(
        'below-dname',
        'www.example.com',
        'A',
        'www.example.com is below the DNAME at example.com; nothing may exist below a DNAME.',
        'www.example.com лежить під DNAME на example.com; під DNAME не може бути жодних записів.',
      );
      expect(zoneRule('below-dname').check(view)).to.deep.equal([below]);
      expect(zoneRule('below-dname').checkNames!(view, new Set([ORIGIN, 'www.example.com']))).to.deep.equal([below]);
    });

    it('below-dname: affected is every name at or below a changed DNAME, all of them for the apex', () => {
      const delta = (dnames: string[]) =>
        ({
          origin: ORIGIN,
          namesChanging: (...types: string[]) => (types.join() === 'DNAME' ? dnames : []),
          namesAtOrBelow: (name: string) => [name, `x.${name}`],
        }) as unknown as PlanDelta;
      const rule = zoneRule('below-dname');
      expect(rule.affected!(delta([]))).to.deep.equal([]);
      expect(rule.affected!(delta(['dn.example.com']))).to.deep.equal(['dn.example.com', 'x.dn.example.com']);
      expect(rule.affected!(delta(['dn.example.com', ORIGIN]))).to.equal('all');
    });
  });

  describe('delegations', () => {
    it('delegation-only-glue: a change of the apex NS affects no name below it, a delegation’s NS its subtree and targets', () => {
      const views = (targets: Record<string, string[]>) =>
        ({
          get: (name: string, type: string) => (type === 'NS' && targets[name] ? { name } : undefined),
          targets: (set: { name: string }) => targets[set.name] ?? [],
        }) as unknown as PlanDelta['before'];
      const delta = (names: string[]) =>
        ({
          origin: ORIGIN,
          before: views({ 'sub.example.com': ['ns1.sub.example.com'] }),
          after: views({ 'sub.example.com': ['ns2.sub.example.com'] }),
          namesChanging: (...types: string[]) => (types.join() === 'NS' ? names : []),
          namesAtOrBelow: (name: string) => [`below-${name}`],
        }) as unknown as PlanDelta;
      const rule = zoneRule('delegation-only-glue');
      expect([...(rule.affected!(delta([ORIGIN])) as Iterable<string>)]).to.deep.equal([]);
      expect([...(rule.affected!(delta(['sub.example.com'])) as Iterable<string>)]).to.deep.equal([
        'below-sub.example.com',
        'ns1.sub.example.com',
        'ns2.sub.example.com',
      ]);
    });
  });

  describe('dangling targets', () => {
    const dangling = (sets: RecordSet[]) => check('dangling-target', sets);

    it('a CNAME target needs some record, an MX or SRV target an address', () => {
      expect(dangling([rs('www', 'CNAME', ['t.example.com.']), rs('t', 'TXT', ['x'])])).to.deep.equal([]);
      expect(dangling([rs('@', 'MX', ['10 t.example.com.']), rs('t', 'TXT', ['x'])])).to.deep.equal([
        res(
          'dangling-target',
          'example.com',
          'MX',
          'The MX target t.example.com is inside the zone but has no A or AAAA record.',
          'Ціль MX t.example.com лежить у зоні, але не має запису A чи AAAA.',
        ),
      ]);
      expect(dangling([rs('www', 'CNAME', ['none.example.com.'])])).to.deep.equal([
        res(
          'dangling-target',
          'www.example.com',
          'CNAME',
          'The CNAME target none.example.com is inside the zone but has no records.',
          'Ціль CNAME none.example.com лежить у зоні, але не має жодних записів.',
        ),
      ]);
    });

    it('a wildcard covers a target below it, at any depth: for a CNAME with any records, for MX only with an address', () => {
      const wildTxt = rs('*', 'TXT', ['x']);
      expect(dangling([rs('www', 'CNAME', ['p.q.example.com.']), wildTxt])).to.deep.equal([]);
      expect(dangling([rs('@', 'MX', ['10 p.q.example.com.']), rs('*', 'A', ['192.0.2.1'])])).to.deep.equal([]);
      expect(dangling([rs('@', 'MX', ['10 p.example.com.']), wildTxt]).map((r) => r.type)).to.deep.equal(['MX']);
    });

    it('affected: what points at names left without A, AAAA and CNAME, and below a changed delegation, DNAME or wildcard', () => {
      const asked: string[][] = [];
      const below: string[] = [];
      const delta = (types: Record<string, string[]>) =>
        ({
          origin: ORIGIN,
          changedNames: new Set(Object.keys(types)),
          changedTypes: (name: string) => new Set(types[name]),
          changedWithout: (...t: string[]) => {
            asked.push(t);
            return [];
          },
          referrers: () => new Set<string>(),
          referrersAtOrBelow: (name: string) => {
            below.push(name);
            return [`to-${name}`];
          },
        }) as unknown as PlanDelta;
      const rule = zoneRule('dangling-target');
      expect([...(rule.affected!(delta({ [ORIGIN]: ['NS'], 'www.example.com': ['A'] })) as Iterable<string>)]).to.deep.equal([]);
      expect(below).to.deep.equal([]);
      expect(asked).to.deep.equal([['A', 'AAAA', 'CNAME']]);
      expect([
        ...(rule.affected!(
          delta({ 'sub.example.com': ['NS'], 'dn.example.com': ['DNAME'], '*.w.example.com': ['TXT'] }),
        ) as Iterable<string>),
      ]).to.deep.equal(['to-sub.example.com', 'to-dn.example.com', 'to-w.example.com']);
    });
  });

  describe('SPF lookups', () => {
    const spf = (sets: RecordSet[]) => check('spf-lookup-count', sets);
    const over = (name: string) =>
      res(
        'spf-lookup-count',
        name,
        'TXT',
        'This SPF policy needs more than 10 DNS lookups (include, a, mx, ptr, exists, redirect); receivers stop at 10 and fail it.',
        'Ця політика SPF потребує понад 10 DNS-запитів (include, a, mx, ptr, exists, redirect); одержувачі зупиняються на 10 і вважають її помилковою.',
      );
    const terms = (n: number, term: (i: number) => string) => Array.from({ length: n }, (_, i) => term(i)).join(' ');

    it('counts include, a, mx, ptr, exists and redirect, with or without a qualifier: 11 are over, 10 are not', () => {
      expect(
        spf([
          rs('@', 'TXT', [`v=spf1 ${terms(11, (i) => ['+a', '~mx', '-ptr', '?exists:x.example.net', 'a:b.example.net'][i % 5]!)} -all`]),
        ]),
      ).to.deep.equal([over('example.com')]);
      expect(spf([rs('@', 'TXT', [`v=spf1 ${terms(10, () => '+a')} -all`])])).to.deep.equal([]);
    });

    it('other terms cost nothing (ip4, ip6 ending in a letter, unknown modifiers that contain "redirect=")', () => {
      for (const term of ['ip4:192.0.2.1', 'ip6:2001:db8::a', 'x-redirect=a.example.net', 'exp=a']) {
        expect(spf([rs('@', 'TXT', [`v=spf1 ${terms(11, () => term)} -all`])]), term).to.deep.equal([]);
      }
    });

    it('follows includes into the zone, also through hyphenated names, and adds up: 10 + 1 is over', () => {
      const sets = [
        rs('@', 'TXT', [`v=spf1 ${terms(9, () => 'a')} include:_spf-a.example.com -all`]),
        rs('_spf-a', 'TXT', ['v=spf1 mx -all']),
      ];
      expect(spf(sets)).to.deep.equal([over('example.com')]);
    });

    it('only an include: or redirect= term names a policy to follow, not a domain that merely contains "include:"', () => {
      const sets = [rs('@', 'TXT', ['v=spf1 a:include:_big.example.com -all']), rs('_big', 'TXT', [`v=spf1 ${terms(11, () => 'a')} -all`])];
      expect(spf(sets)).to.deep.equal([over('_big.example.com')]);
    });

    it('checkNames counts the named policies as check does, include loops too', () => {
      const rule = zoneRule('spf-lookup-count');
      const view = makeView(ORIGIN, [
        ...apex(),
        rs('@', 'TXT', [`v=spf1 ${terms(11, () => 'a')} -all`]),
        rs('ok', 'TXT', ['v=spf1 a -all']),
      ]);
      expect(rule.checkNames!(view, new Set([ORIGIN, 'ok.example.com', 'none.example.com']))).to.deep.equal([over('example.com')]);
      const loop = makeView(ORIGIN, [
        ...apex(),
        rs('l', 'TXT', ['v=spf1 include:m.example.com -all']),
        rs('m', 'TXT', ['v=spf1 include:l.example.com -all']),
      ]);
      expect(rule.checkNames!(loop, new Set(['m.example.com']))).to.deep.equal([over('m.example.com')]);
      expect(rule.checkNames!(loop, new Set(['m.example.com', 'l.example.com']))).to.deep.equal([
        over('m.example.com'),
        over('l.example.com'),
      ]);
    });

    it('an include loop is over the limit whatever the order of the records: every policy on it and every one that reaches it (RFC 7208 §4.6.4)', () => {
      // A receiver goes round the loop, one lookup per include, until it passes 10 and fails with permerror.
      const sets = [
        rs('l', 'TXT', ['v=spf1 include:m.example.com -all']),
        rs('m', 'TXT', ['v=spf1 redirect=l.example.com']),
        rs('r', 'TXT', ['v=spf1 a include:l.example.com -all']),
        rs('self', 'TXT', ['v=spf1 include:self.example.com -all']),
        rs('ok', 'TXT', ['v=spf1 a include:leaf.example.com -all']),
        rs('leaf', 'TXT', ['v=spf1 mx -all']),
      ];
      const names = (results: CheckResult[]) => results.map((r) => r.name).sort();
      const expected = ['l.example.com', 'm.example.com', 'r.example.com', 'self.example.com'];
      expect(names(spf(sets))).to.deep.equal(expected);
      expect(names(spf([...sets].reverse()))).to.deep.equal(expected);
      for (const r of spf(sets)) expect(r).to.deep.equal(over(r.name));
    });

    it('two policies of 5 lookups that include each other: both are over, whichever comes first in the zone', () => {
      const a = rs('a', 'TXT', [`v=spf1 ${terms(5, () => 'mx')} include:b.example.com -all`]);
      const b = rs('b', 'TXT', [`v=spf1 ${terms(5, () => 'mx')} include:a.example.com -all`]);
      expect(spf([a, b])).to.deep.equal([over('a.example.com'), over('b.example.com')]);
      expect(spf([b, a])).to.deep.equal([over('b.example.com'), over('a.example.com')]);
    });

    it('a policy over the limit that also includes a loop after it: one result, more than 10', () => {
      const view = makeView(ORIGIN, [
        ...apex(),
        rs('@', 'TXT', [`v=spf1 ${terms(11, () => 'a')} include:l.example.com -all`]),
        rs('l', 'TXT', ['v=spf1 include:m.example.com -all']),
        rs('m', 'TXT', ['v=spf1 include:l.example.com -all']),
      ]);
      expect(zoneRule('spf-lookup-count').checkNames!(view, new Set([ORIGIN]))).to.deep.equal([over('example.com')]);
    });

    it('affected: the names whose policies reach a changed TXT set, through includes; none without a TXT change', () => {
      const delta = (changing: string[]) =>
        ({
          origin: ORIGIN,
          namesChanging: (...types: string[]) => (types.join() === 'TXT' ? changing : []),
          setsOfType: () => [
            rs('@', 'TXT', ['v=spf1 include:_a.example.com -all']),
            rs('_a', 'TXT', ['v=spf1 include:_b.example.com -all']),
            rs('other', 'TXT', ['v=spf1 include:_c.example.com -all']),
          ],
        }) as unknown as PlanDelta;
      const rule = zoneRule('spf-lookup-count');
      expect([...(rule.affected!(delta([])) as Iterable<string>)]).to.deep.equal([]);
      expect([...(rule.affected!(delta(['_b.example.com'])) as Iterable<string>)].sort()).to.deep.equal([
        '_a.example.com',
        '_b.example.com',
        'example.com',
      ]);
    });
  });

  describe('the zone view rules read (makeView)', () => {
    const www = A('www');
    const mail = A('mail');
    const alias = rs('alias', 'CNAME', ['www.example.com.']);
    const sets = [...apex(), www, mail, alias];

    it('a whole-zone view: every set changed, every owner and name', () => {
      const view = makeView(ORIGIN, sets);
      expect(view.isChanged('nowhere.example.com', 'TXT')).to.equal(true);
      expect(view.changedOwners).to.deep.equal(['example.com', 'www.example.com', 'mail.example.com', 'alias.example.com']);
      expect([...view.changedNames]).to.deep.equal(view.changedOwners);
      expect(view.changes).to.deep.equal([]);
    });

    it('a plan’s view: only its sets are changed, its owners once each, and the names it was given (none by default)', () => {
      const view = makeView(ORIGIN, sets, { changedSets: [{ ...www }] });
      expect(view.isChanged('www.example.com', 'A')).to.equal(false);
      const own = makeView(ORIGIN, sets, { changedSets: [www, alias, www] });
      expect(own.isChanged('www.example.com', 'A')).to.equal(true);
      expect(own.isChanged('mail.example.com', 'A')).to.equal(false);
      expect(own.isChanged('www.example.com', 'TXT')).to.equal(false);
      expect(own.isChanged('nowhere.example.com', 'A')).to.equal(false);
      expect(own.changedOwners).to.deep.equal(['www.example.com', 'alias.example.com']);
      expect([...own.changedNames]).to.deep.equal([]);
      const named = makeView(ORIGIN, sets, { changedSets: [www], changedNames: new Set(['gone.example.com']) });
      expect([...named.changedNames]).to.deep.equal(['gone.example.com']);
    });

    it('pointingAt: the sets of the type whose targets include the name, on a view with its own index', () => {
      const view = makeView(ORIGIN, sets);
      expect(view.pointingAt('www.example.com', 'CNAME')).to.deep.equal([alias]);
      expect(view.pointingAt('www.example.com', 'MX')).to.deep.equal([]);
      expect(view.pointingAt('mail.example.com', 'CNAME')).to.deep.equal([]);
    });
  });

  describe('what a plan changes (makePlanDelta)', () => {
    const www = A('www');
    const old = rs('old.sub', 'TXT', ['x']);
    const before = [...apex(), www, old, rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.net.'])];
    const added = rs('new.sub', 'MX', ['10 www.example.com.']);
    const wwwTxt = rs('www', 'TXT', ['v=spf1 -all']);
    const after = [...before.filter((x) => x !== old), added, wwwTxt];
    const changes: Change[] = [
      { action: 'create', name: 'new.sub.example.com', type: 'MX', ttl: 300, values: added.values },
      { action: 'delete', name: 'old.sub.example.com', type: 'TXT', current: { ttl: 300, values: ['x'] } },
      { action: 'create', name: 'www.example.com', type: 'TXT', ttl: 300, values: wwwTxt.values },
    ];
    const changedNames = new Set(['new.sub.example.com', 'old.sub.example.com', 'www.example.com']);
    // Built in each test: a mutant is active only while a test runs.
    const plan = () =>
      makePlanDelta({
        origin: ORIGIN,
        before: makeView(ORIGIN, before),
        after: makeView(ORIGIN, after, { changedSets: [added, wwwTxt], changedNames }),
        changes,
        changedNames,
        changedSets: [added, wwwTxt],
        targetIndex: new TargetIndex(ORIGIN, (visit) => [...before, ...after].forEach(visit)),
      });

    it('namesChanging, changedTypes: the names where the plan touches one of the types', () => {
      const delta = plan();
      expect(delta.namesChanging('MX', 'TXT')).to.deep.equal(['new.sub.example.com', 'old.sub.example.com', 'www.example.com']);
      expect(delta.namesChanging('TXT')).to.deep.equal(['old.sub.example.com', 'www.example.com']);
      expect(delta.namesChanging('A')).to.deep.equal([]);
      expect([...delta.changedTypes('www.example.com')]).to.deep.equal(['TXT']);
      expect([...delta.changedTypes('mail.example.com')]).to.deep.equal([]);
    });

    it('changedWith, changedWithout: the changed names that, after the plan, have (or lack) one of the types', () => {
      const delta = plan();
      expect(delta.changedWith('A', 'MX')).to.deep.equal(['new.sub.example.com', 'www.example.com']);
      expect(delta.changedWith('CNAME')).to.deep.equal([]);
      expect(delta.changedWithout('A', 'CNAME')).to.deep.equal(['new.sub.example.com', 'old.sub.example.com']);
      expect(delta.changedWithout('A', 'MX')).to.deep.equal(['old.sub.example.com']);
    });

    it('namesAtOrBelow: before the plan and the names it adds; setsOfType: before, and its new sets', () => {
      const delta = plan();
      expect(delta.namesAtOrBelow('sub.example.com')).to.deep.equal(['old.sub.example.com', 'sub.example.com', 'new.sub.example.com']);
      expect(delta.namesAtOrBelow('www.example.com')).to.deep.equal(['www.example.com']);
      expect(delta.setsOfType('TXT')).to.deep.equal([old, wwwTxt]);
      expect(delta.setsOfType('MX')).to.deep.equal([added]);
    });

    it('referrers, referrersAtOrBelow: the owners that may point at the names', () => {
      const delta = plan();
      expect([...delta.referrers(['www.example.com'])]).to.deep.equal(['new.sub.example.com']);
      expect([...delta.referrersAtOrBelow('example.com')]).to.deep.equal(['new.sub.example.com']);
      expect([...delta.referrersAtOrBelow('sub.example.com')]).to.deep.equal([]);
    });
  });

  describe('which zone results a plan reports (zoneRuleResults)', () => {
    // A rule whose message does not name the type, like below-dname's: one result at www per type that the
    // TXT set at _types lists, and one with no type when it lists "none". Today's rules never vary the
    // types of such results at a name the plan does not touch; the identity of a result must not rely on it.
    const perType: Rule = {
      id: 'per-type',
      severity: 'error',
      rfc: 'test',
      scope: 'zone',
      check: (zone) =>
        (zone.get('_types.example.com', 'TXT')?.values[0] ?? '')
          .split(' ')
          .map((t) =>
            result({ id: 'per-type', severity: 'error' }, 'www.example.com', t === 'none' ? null : t, 'one problem', 'одна проблема'),
          ),
    };
    const zone = (types: string) => makeView(ORIGIN, [...apex(), A('www'), rs('_types', 'TXT', [types])]);
    const reported = (before: string, after: string) =>
      zoneRuleResults([perType], zone(before), zone(after), new Set(['_types.example.com']), null).map((r) => r.type);

    it('a result at an untouched name is new when its type is, even with the same message; the same one again is not', () => {
      expect(reported('A', 'A AAAA')).to.deep.equal(['AAAA']);
      expect(reported('AAAA', 'A AAAA')).to.deep.equal(['A']);
      expect(reported('A', 'A none')).to.deep.equal([null]);
      expect(reported('none', 'none A')).to.deep.equal(['A']);
      expect(reported('A AAAA', 'AAAA')).to.deep.equal([]);
    });
  });

  describe('who points where (TargetIndex)', () => {
    it('lastField: control characters below tab are not white space', () => {
      expect(lastField('10 a\u0001b')).to.equal('a\u0001b');
      expect(lastField(' \t ')).to.equal(null);
    });

    it('a set is listed once under a target however many of its values name it; an empty value names none', () => {
      const one = rs('@', 'MX', ['10 mail.example.com.', '20 mail.example.com.']);
      const two = rs('sub', 'MX', ['10 mail.example.com.', '20 mail.example.com.', '30 mail.example.com.']);
      const empty = rs('e', 'CNAME', ['']);
      const view = makeView(ORIGIN, [...apex(), one, two, empty, A('mail')]);
      expect(view.pointingAt('mail.example.com', 'MX')).to.deep.equal([one, two]);
      expect(makeView(ORIGIN, [...apex(), one]).pointingAt('mail.example.com', 'MX')).to.deep.equal([one]);
    });
  });

  it('runRules: the results of each rule in turn', () => {
    const view = makeView(ORIGIN, [SOA, rs('www', 'CNAME', ['a.example.net.', 'b.example.net.'])]);
    const rules = [zoneRule('ns-apex'), zoneRule('cname-single')];
    expect(runRules(view, rules)).to.deep.equal([...rules[0]!.check(view), ...rules[1]!.check(view)]);
    expect(runRules(view, rules)).to.have.length(2);
  });
});
