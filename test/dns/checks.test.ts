import { expect } from 'chai';
import { INPUT_RULES, RULES } from '../../core/dns/checks/index.js';
import { makeView } from '../../core/dns/checks/rule.js';
import { buildPlan } from '../../core/dns/plans/plan-builder.js';
import type { Change, CheckResult } from '../../core/dns/plans/plan.js';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import { apex, ORIGIN, rs } from './zone-fixtures.js';

/**
 * "The checks": every rule has an id, a severity, its RFC, and at least one zone that breaks it
 * (negative) and one that keeps it (positive). Zone rules are run on a whole zone (every set "changed");
 * input rules through buildPlan.
 */

type Case = { bad: Array<() => CheckResult[]>; good: Array<() => CheckResult[]> };

const zoneRule = (id: string) => {
  const rule = RULES.find((r) => r.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
};

/** Results of one rule over apex + the given sets (all treated as changed). */
const run =
  (id: string, sets: RecordSet[], opts: { withApex?: boolean; changes?: Change[] } = {}) =>
  (): CheckResult[] => {
    const all = opts.withApex === false ? sets : [...apex(), ...sets];
    return zoneRule(id)
      .check(makeView(ORIGIN, all, opts.changes ? { changes: opts.changes } : {}))
      .filter((r) => r.rule === id);
  };

/** Results of one rule from a plan over apex + `current`. */
const plan =
  (id: string, input: Parameters<typeof buildPlan>[0]['input'], current: RecordSet[] = []) =>
  (): CheckResult[] =>
    buildPlan({ origin: ORIGIN, current: [...apex(), ...current], input }).checks.filter((r) => r.rule === id);

const long = (n: number, c = 'x') => c.repeat(n);

const CASES: Record<string, Case> = {
  'name-syntax': {
    bad: [
      run('name-syntax', [rs('a..b', 'A', ['192.0.2.1'])]),
      run('name-syntax', [rs('a b', 'A', ['192.0.2.1'])]),
      run('name-syntax', [rs('a!b', 'A', ['192.0.2.1'])]),
    ],
    good: [run('name-syntax', [rs('www', 'A', ['192.0.2.1']), rs('_dmarc', 'TXT', ['v=DMARC1; p=none']), rs('*', 'A', ['192.0.2.1'])])],
  },
  'label-length': {
    bad: [run('label-length', [rs(long(64), 'A', ['192.0.2.1'])])],
    good: [run('label-length', [rs(long(63), 'A', ['192.0.2.1'])])],
  },
  'name-length': {
    bad: [run('name-length', [rs([long(60), long(60), long(60), long(60), long(10)].join('.'), 'A', ['192.0.2.1'])])],
    good: [run('name-length', [rs([long(60), long(60), long(60), long(40)].join('.'), 'A', ['192.0.2.1'])])],
  },
  'owner-in-zone': {
    bad: [
      run('owner-in-zone', [{ name: 'www.example.net', type: 'A', ttl: 300, values: ['192.0.2.1'] }]),
      plan('owner-in-zone', { changes: [{ action: 'create', name: 'www.example.net.', type: 'A', values: ['192.0.2.1'] }] }),
    ],
    good: [
      run('owner-in-zone', [rs('www', 'A', ['192.0.2.1'])]),
      plan('owner-in-zone', { changes: [{ action: 'create', name: 'www.example.net', type: 'A', values: ['192.0.2.1'] }] }),
    ],
  },
  'wildcard-position': {
    bad: [run('wildcard-position', [rs('a.*', 'A', ['192.0.2.1'])]), run('wildcard-position', [rs('a*', 'A', ['192.0.2.1'])])],
    good: [run('wildcard-position', [rs('*', 'A', ['192.0.2.1']), rs('*.dev', 'A', ['192.0.2.1'])])],
  },
  'wildcard-soa-ns': {
    bad: [run('wildcard-soa-ns', [rs('*', 'NS', ['ns1.example.net.', 'ns2.example.net.'])])],
    good: [run('wildcard-soa-ns', [rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.net.']), rs('*', 'A', ['192.0.2.1'])])],
  },
  'ttl-range': {
    bad: [
      run('ttl-range', [rs('a', 'A', ['192.0.2.1'], -1)]),
      run('ttl-range', [rs('a', 'A', ['192.0.2.1'], 2147483648)]),
      run('ttl-range', [rs('a', 'A', ['192.0.2.1'], 1.5)]),
    ],
    good: [run('ttl-range', [rs('a', 'A', ['192.0.2.1'], 0), rs('b', 'A', ['192.0.2.1'], 2147483647)])],
  },
  'rrset-ttl': {
    bad: [
      plan('rrset-ttl', {
        records: [
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 600, values: ['192.0.2.2'] },
        ],
      }),
      plan('rrset-ttl', { zone_file: 'www 300 IN A 192.0.2.1\nwww 600 IN A 192.0.2.2\n' }),
    ],
    good: [
      plan('rrset-ttl', {
        records: [
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.1'] },
          { name: 'www', type: 'A', ttl: 300, values: ['192.0.2.2'] },
        ],
      }),
    ],
  },
  'duplicate-records': {
    bad: [
      run('duplicate-records', [rs('a', 'A', ['192.0.2.1', '192.0.2.1'])]),
      run('duplicate-records', [rs('a', 'AAAA', ['2001:db8::1', '2001:DB8:0:0::1'])]),
    ],
    good: [run('duplicate-records', [rs('a', 'A', ['192.0.2.1', '192.0.2.2'])])],
  },
  'rrset-size': {
    bad: [
      run('rrset-size', [
        rs(
          'big',
          'TXT',
          Array.from({ length: 300 }, (_, i) => `${i} ${long(250)}`),
        ),
      ]),
    ],
    good: [
      run('rrset-size', [
        rs(
          'big',
          'TXT',
          Array.from({ length: 200 }, (_, i) => `${i} ${long(250)}`),
        ),
      ]),
    ],
  },
  'cname-exclusive': {
    bad: [run('cname-exclusive', [rs('www', 'CNAME', ['example.net.']), rs('www', 'A', ['192.0.2.1'])])],
    good: [run('cname-exclusive', [rs('www', 'CNAME', ['example.net.']), rs('web', 'A', ['192.0.2.1'])])],
  },
  'cname-single': {
    bad: [run('cname-single', [rs('www', 'CNAME', ['a.example.net.', 'b.example.net.'])])],
    good: [run('cname-single', [rs('www', 'CNAME', ['a.example.net.'])])],
  },
  'cname-at-apex': {
    bad: [run('cname-at-apex', [rs('@', 'CNAME', ['example.net.'])])],
    good: [run('cname-at-apex', [rs('www', 'CNAME', ['example.net.'])])],
  },
  'cname-loop': {
    bad: [
      run('cname-loop', [rs('a', 'CNAME', ['b.example.com.']), rs('b', 'CNAME', ['a.example.com.'])]),
      run('cname-loop', [rs('self', 'CNAME', ['self.example.com.'])]),
    ],
    good: [run('cname-loop', [rs('a', 'CNAME', ['b.example.com.']), rs('b', 'CNAME', ['c.example.com.']), rs('c', 'A', ['192.0.2.1'])])],
  },
  'soa-apex': {
    bad: [run('soa-apex', [apex()[1]!], { withApex: false }), run('soa-apex', [rs('sub', 'SOA', [apex()[0]!.values[0]!])])],
    good: [run('soa-apex', [])],
  },
  'ns-apex': {
    bad: [run('ns-apex', [apex()[0]!], { withApex: false })],
    good: [run('ns-apex', [])],
  },
  'apex-soa-ns-service-owned': {
    bad: [
      plan('apex-soa-ns-service-owned', {
        changes: [
          {
            action: 'update',
            name: '@',
            type: 'NS',
            ttl: 3600,
            values: ['ns.example.net.'],
            current: { ttl: 3600, values: ['ns1.domivka.net.', 'ns2.domivka.net.'] },
          },
        ],
      }),
      plan('apex-soa-ns-service-owned', {
        changes: [{ action: 'delete', name: 'example.com.', type: 'SOA', current: { ttl: 3600, values: [apex()[0]!.values[0]!] } }],
      }),
    ],
    good: [
      plan('apex-soa-ns-service-owned', {
        changes: [{ action: 'create', name: 'sub', type: 'NS', values: ['ns1.example.net.', 'ns2.example.net.'] }],
      }),
    ],
  },
  'target-syntax': {
    bad: [
      run('target-syntax', [rs('www', 'CNAME', ['a..example.net.'])]),
      run('target-syntax', [rs('@', 'MX', [`10 ${long(64)}.example.net.`])]),
      run('target-syntax', [rs('www', 'CNAME', ['.'])]),
    ],
    good: [run('target-syntax', [rs('www', 'CNAME', ['host.example.net.']), rs('@', 'MX', ['0 .'])])],
  },
  'target-not-address': {
    bad: [
      run('target-not-address', [rs('@', 'MX', ['10 192.0.2.1.'])]),
      run('target-not-address', [rs('www', 'CNAME', ['192.0.2.1'])]),
      run('target-not-address', [rs('sub', 'NS', ['2001:db8::1'])]),
    ],
    good: [run('target-not-address', [rs('@', 'MX', ['10 mx1.example.net.'])])],
  },
  'ns-target-not-cname': {
    bad: [run('ns-target-not-cname', [rs('sub', 'NS', ['ns.example.com.', 'ns2.example.net.']), rs('ns', 'CNAME', ['host.example.net.'])])],
    good: [run('ns-target-not-cname', [rs('sub', 'NS', ['ns.example.com.', 'ns2.example.net.']), rs('ns', 'A', ['192.0.2.53'])])],
  },
  'mx-target-not-cname': {
    bad: [run('mx-target-not-cname', [rs('@', 'MX', ['10 mail.example.com.']), rs('mail', 'CNAME', ['mx.example.net.'])])],
    good: [run('mx-target-not-cname', [rs('@', 'MX', ['10 mail.example.com.']), rs('mail', 'A', ['192.0.2.25'])])],
  },
  'srv-target-not-cname': {
    bad: [run('srv-target-not-cname', [rs('_sip._tcp', 'SRV', ['10 5 5060 sip.example.com.']), rs('sip', 'CNAME', ['pbx.example.net.'])])],
    good: [run('srv-target-not-cname', [rs('_sip._tcp', 'SRV', ['10 5 5060 sip.example.com.']), rs('sip', 'A', ['192.0.2.60'])])],
  },
  'a-ipv4': {
    bad: [
      run('a-ipv4', [rs('a', 'A', ['256.1.1.1'])]),
      run('a-ipv4', [rs('a', 'A', ['2001:db8::1'])]),
      run('a-ipv4', [rs('a', 'A', ['01.2.3.4'])]),
    ],
    good: [run('a-ipv4', [rs('a', 'A', ['192.0.2.1', '0.0.0.0', '255.255.255.255'])])],
  },
  'aaaa-ipv6': {
    bad: [
      run('aaaa-ipv6', [rs('a', 'AAAA', ['192.0.2.1'])]),
      run('aaaa-ipv6', [rs('a', 'AAAA', ['fe80::1%eth0'])]),
      run('aaaa-ipv6', [rs('a', 'AAAA', ['2001:db8::g'])]),
    ],
    good: [run('aaaa-ipv6', [rs('a', 'AAAA', ['2001:db8::1', '::ffff:192.0.2.1'])])],
  },
  'mx-value': {
    bad: [
      run('mx-value', [rs('@', 'MX', ['70000 mail.example.net.'])]),
      run('mx-value', [rs('@', 'MX', ['mail.example.net.'])]),
      run('mx-value', [rs('@', 'MX', ['-1 mail.example.net.'])]),
    ],
    good: [run('mx-value', [rs('@', 'MX', ['0 mail.example.net.', '65535 backup.example.net.'])])],
  },
  'mx-null': {
    bad: [run('mx-null', [rs('@', 'MX', ['10 .'])]), run('mx-null', [rs('@', 'MX', ['0 .', '10 mail.example.net.'])])],
    good: [run('mx-null', [rs('@', 'MX', ['0 .'])])],
  },
  'srv-owner-format': {
    bad: [
      run('srv-owner-format', [rs('sip', 'SRV', ['10 5 5060 sip.example.net.'])]),
      run('srv-owner-format', [rs('_sip.tcp', 'SRV', ['10 5 5060 sip.example.net.'])]),
    ],
    good: [
      run('srv-owner-format', [
        rs('_sip._tcp', 'SRV', ['10 5 5060 sip.example.net.']),
        rs('_xmpp-server._tcp.chat', 'SRV', ['5 0 5269 xmpp.example.net.']),
      ]),
    ],
  },
  'srv-value': {
    bad: [
      run('srv-value', [rs('_sip._tcp', 'SRV', ['10 5 70000 sip.example.net.'])]),
      run('srv-value', [rs('_sip._tcp', 'SRV', ['10 5 0 sip.example.net.'])]),
      run('srv-value', [rs('_sip._tcp', 'SRV', ['10 5 5060'])]),
    ],
    good: [run('srv-value', [rs('_sip._tcp', 'SRV', ['10 5 5060 sip.example.net.']), rs('_sip._udp', 'SRV', ['0 0 0 .'])])],
  },
  'caa-flags': {
    bad: [
      run('caa-flags', [rs('@', 'CAA', ['1 issue "letsencrypt.org"'])]),
      run('caa-flags', [rs('@', 'CAA', ['x issue "letsencrypt.org"'])]),
    ],
    good: [run('caa-flags', [rs('@', 'CAA', ['0 issue "letsencrypt.org"', '128 issuewild ";"'])])],
  },
  'caa-tag': {
    bad: [
      run('caa-tag', [rs('@', 'CAA', ['0 issuer "letsencrypt.org"'])]),
      run('caa-tag', [rs('@', 'CAA', ['0 is-sue "letsencrypt.org"'])]),
    ],
    good: [run('caa-tag', [rs('@', 'CAA', ['0 issue "letsencrypt.org"', '0 iodef "mailto:security@example.com"', '0 ISSUEWILD ";"'])])],
  },
  'caa-value': {
    bad: [
      run('caa-value', [rs('@', 'CAA', ['0 issue'])]),
      run('caa-value', [rs('@', 'CAA', ['0 iodef "ftp://example.com/report"'])]),
      run('caa-value', [rs('@', 'CAA', ['0 issue "not a domain!"'])]),
      run('caa-value', [rs('@', 'CAA', ['0 issue two words'])]),
    ],
    good: [
      run('caa-value', [
        rs('@', 'CAA', [
          '0 issue "letsencrypt.org; validationmethods=dns-01"',
          '0 issuewild ";"',
          '0 iodef "https://example.com/caa"',
          '0 issue letsencrypt.org',
        ]),
      ]),
    ],
  },
  'txt-string-length': {
    bad: [run('txt-string-length', [rs('@', 'TXT', [long(70000)])])],
    good: [run('txt-string-length', [rs('@', 'TXT', [long(1000), ''])])],
  },
  'soa-value': {
    bad: [run('soa-value', [apex()[1]!, rs('@', 'SOA', ['ns1.domivka.net. hostmaster.domivka.net. 1 2 3'])], { withApex: false })],
    good: [run('soa-value', [])],
  },
  'spf-single': {
    bad: [run('spf-single', [rs('@', 'TXT', ['v=spf1 -all', 'v=spf1 mx -all'])])],
    good: [run('spf-single', [rs('@', 'TXT', ['v=spf1 mx -all', 'google-site-verification=abc', 'v=spf10 is not spf'])])],
  },
  'delegation-only-glue': {
    bad: [
      run('delegation-only-glue', [
        rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.']),
        rs('ns1.sub', 'A', ['192.0.2.53']),
        rs('www.sub', 'A', ['192.0.2.80']),
      ]),
      run('delegation-only-glue', [rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.net.']), rs('sub', 'TXT', ['hidden'])]),
      run('delegation-only-glue', [
        rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.']),
        rs('ns1.sub', 'A', ['192.0.2.53']),
        rs('ns1.sub', 'TXT', ['not glue']),
      ]),
    ],
    good: [
      run('delegation-only-glue', [
        rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.']),
        rs('ns1.sub', 'A', ['192.0.2.53']),
        rs('ns1.sub', 'AAAA', ['2001:db8::53']),
      ]),
    ],
  },
  'below-dname': {
    bad: [run('below-dname', [rs('old', 'DNAME', ['new.example.net.']), rs('www.old', 'A', ['192.0.2.1'])])],
    good: [run('below-dname', [rs('old', 'DNAME', ['new.example.net.']), rs('old', 'A', ['192.0.2.1']), rs('www', 'A', ['192.0.2.1'])])],
  },
  'glue-present': {
    bad: [
      run('glue-present', [rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.'])]),
      // A sibling target elsewhere in the zone needs its address here too.
      run('glue-present', [rs('sub', 'NS', ['ns.example.com.', 'ns2.example.net.'])]),
    ],
    good: [run('glue-present', [rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.']), rs('ns1.sub', 'AAAA', ['2001:db8::53'])])],
  },
  // warnings
  'spf-type': {
    bad: [run('spf-type', [rs('@', 'SPF', ['v=spf1 -all'])])],
    good: [run('spf-type', [rs('@', 'TXT', ['v=spf1 -all'])])],
  },
  'txt-octets': {
    bad: [run('txt-octets', [rs('t', 'TXT', ['lone \ud800 surrogate'])]), run('txt-octets', [rs('t', 'TXT', ['\udc10'])])],
    good: [run('txt-octets', [rs('t', 'TXT', ['octet \udcff kept', 'emoji 😀 ok'])])],
  },
  'value-length': {
    bad: [
      run('value-length', [rs('@', 'CAA', [`0 issue "${' '.repeat(5000)}"`])]),
      run('value-length', [rs('m', 'MX', [`10 ${'a.'.repeat(2100)}`])]),
    ],
    good: [run('value-length', [rs('@', 'CAA', ['0 issue "letsencrypt.org"'])])],
  },
  'spf-lookup-count': {
    bad: [
      run('spf-lookup-count', [
        rs('@', 'TXT', [`v=spf1 ${Array.from({ length: 11 }, (_, i) => `include:s${i}.example.net`).join(' ')} -all`]),
      ]),
      run('spf-lookup-count', [
        rs('@', 'TXT', ['v=spf1 a mx include:_spf.example.com -all']),
        rs('_spf', 'TXT', [`v=spf1 ${Array.from({ length: 9 }, (_, i) => `include:s${i}.example.net`).join(' ')} ~all`]),
      ]),
    ],
    good: [run('spf-lookup-count', [rs('@', 'TXT', ['v=spf1 a mx ip4:192.0.2.0/24 include:_spf.google.com redirect=_spf.example.net'])])],
  },
  'ns-count': {
    bad: [run('ns-count', [rs('sub', 'NS', ['ns1.example.net.'])])],
    good: [run('ns-count', [rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.org.'])])],
  },
  'dangling-target': {
    bad: [
      run('dangling-target', [rs('@', 'MX', ['10 mail.example.com.'])]),
      run('dangling-target', [rs('www', 'CNAME', ['nothing.example.com.'])]),
    ],
    good: [
      run('dangling-target', [
        rs('@', 'MX', ['10 mail.example.com.']),
        rs('mail', 'A', ['192.0.2.25']),
        rs('www', 'CNAME', ['mail.example.com.']),
      ]),
      run('dangling-target', [rs('@', 'MX', ['10 mail.example.com.']), rs('*', 'A', ['192.0.2.25'])]),
      run('dangling-target', [rs('www', 'CNAME', ['host.sub.example.com.']), rs('sub', 'NS', ['ns1.example.net.', 'ns2.example.net.'])]),
    ],
  },
  'cname-chain': {
    bad: [run('cname-chain', [rs('a', 'CNAME', ['b.example.com.']), rs('b', 'CNAME', ['c.example.com.']), rs('c', 'A', ['192.0.2.1'])])],
    good: [run('cname-chain', [rs('a', 'CNAME', ['c.example.com.']), rs('c', 'A', ['192.0.2.1'])])],
  },
  'host-label-underscore': {
    bad: [
      run('host-label-underscore', [rs('my_host', 'A', ['192.0.2.1'])]),
      run('host-label-underscore', [rs('@', 'MX', ['10 mail_1.example.net.'])]),
    ],
    good: [
      run('host-label-underscore', [
        rs('my-host', 'A', ['192.0.2.1']),
        rs('_dmarc', 'TXT', ['v=DMARC1; p=none']),
        rs('_sip._tcp', 'SRV', ['1 1 5060 sip.example.net.']),
      ]),
    ],
  },
  'caa-issuewild': {
    bad: [run('caa-issuewild', [rs('@', 'CAA', ['0 issue "letsencrypt.org"'])])],
    good: [run('caa-issuewild', [rs('@', 'CAA', ['0 issue "letsencrypt.org"', '0 issuewild ";"'])])],
  },
  'rrset-size-over-1232': {
    bad: [
      run('rrset-size-over-1232', [
        rs(
          'big',
          'TXT',
          Array.from({ length: 5 }, (_, i) => `${i} ${long(250)}`),
        ),
      ]),
    ],
    good: [
      run('rrset-size-over-1232', [
        rs(
          'small',
          'TXT',
          Array.from({ length: 4 }, (_, i) => `${i} ${long(250)}`),
        ),
      ]),
      // Over 65535 it is rrset-size's error, not this warning.
      run('rrset-size-over-1232', [
        rs(
          'huge',
          'TXT',
          Array.from({ length: 300 }, (_, i) => `${i} ${long(250)}`),
        ),
      ]),
    ],
  },
  'soa-timers': {
    bad: [
      run('soa-timers', [apex()[1]!, rs('@', 'SOA', ['ns1.domivka.net. hostmaster.domivka.net. 1 60 120 100 999999'], 3600)], {
        withApex: false,
      }),
    ],
    good: [run('soa-timers', [])],
  },
  // input rules
  'current-mismatch': {
    bad: [
      plan(
        'current-mismatch',
        { changes: [{ action: 'update', name: 'www', type: 'A', values: ['192.0.2.2'], current: { ttl: 300, values: ['192.0.2.9'] } }] },
        [rs('www', 'A', ['192.0.2.1'])],
      ),
      plan('current-mismatch', { changes: [{ action: 'delete', name: 'www', type: 'A', current: { ttl: 60, values: ['192.0.2.1'] } }] }, [
        rs('www', 'A', ['192.0.2.1']),
      ]),
      plan('current-mismatch', { changes: [{ action: 'delete', name: 'www', type: 'A' }] }, [rs('www', 'A', ['192.0.2.1'])]),
      plan('current-mismatch', { changes: [{ action: 'delete', name: 'gone', type: 'A', current: { ttl: 300, values: ['192.0.2.1'] } }] }),
    ],
    good: [
      plan(
        'current-mismatch',
        {
          changes: [
            { action: 'update', name: 'www', type: 'A', values: ['192.0.2.2'], current: { ttl: 300, values: ['192.0.2.1', '192.0.2.3'] } },
          ],
        },
        [rs('www', 'A', ['192.0.2.3', '192.0.2.1'])],
      ),
      plan(
        'current-mismatch',
        { changes: [{ action: 'delete', name: 'v6', type: 'AAAA', current: { ttl: 300, values: ['2001:DB8::1'] } }] },
        [rs('v6', 'AAAA', ['2001:db8::1'])],
      ),
    ],
  },
  'create-existing': {
    bad: [
      plan('create-existing', { changes: [{ action: 'create', name: 'www', type: 'A', values: ['192.0.2.2'] }] }, [
        rs('www', 'A', ['192.0.2.1']),
      ]),
    ],
    good: [
      plan('create-existing', { changes: [{ action: 'create', name: 'www', type: 'AAAA', values: ['2001:db8::2'] }] }, [
        rs('www', 'A', ['192.0.2.1']),
      ]),
    ],
  },
  'change-duplicate': {
    bad: [
      plan('change-duplicate', {
        changes: [
          { action: 'create', name: 'www', type: 'A', values: ['192.0.2.1'] },
          { action: 'create', name: 'www.example.com', type: 'A', values: ['192.0.2.2'] },
        ],
      }),
    ],
    good: [
      plan('change-duplicate', {
        changes: [
          { action: 'create', name: 'www', type: 'A', values: ['192.0.2.1'] },
          { action: 'create', name: 'www', type: 'AAAA', values: ['2001:db8::1'] },
        ],
      }),
    ],
  },
  'input-syntax': {
    bad: [
      plan('input-syntax', { changes: [{ action: 'upsert', name: 'www', type: 'A', values: ['192.0.2.1'] }] }),
      plan('input-syntax', { changes: [{ action: 'create', name: 'www', type: 'A', values: [] }] }),
      plan('input-syntax', { records: [{ name: 'www', type: 'A', ttl: 300, values: [1 as unknown as string] }] }),
    ],
    good: [plan('input-syntax', { changes: [{ action: 'create', name: 'www', type: 'A', values: ['192.0.2.1'] }] })],
  },
  'record-type': {
    bad: [
      plan('record-type', { changes: [{ action: 'create', name: 'www', type: 'HINFO', values: ['"PC" "Linux"'] }] }),
      plan('record-type', { zone_file: 'www 300 IN HINFO "PC" "Linux"\n' }),
    ],
    good: [plan('record-type', { changes: [{ action: 'create', name: 'www', type: 'A', values: ['192.0.2.1'] }] })],
  },
  'zone-file-syntax': {
    bad: [
      plan('zone-file-syntax', { zone_file: 'www 300 IN TXT "unterminated\n' }),
      plan('zone-file-syntax', { zone_file: '$INCLUDE other.zone\n' }),
      plan('zone-file-syntax', { zone_file: 'www 300 IN A (192.0.2.1\n' }),
    ],
    good: [plan('zone-file-syntax', { zone_file: 'www 300 IN TXT "fine" ; comment\n' })],
  },
};

describe('DNS checks (issue 4): each rule with an id, a severity, an RFC and a test', () => {
  const all = [...RULES, ...INPUT_RULES];

  it('every rule id is kebab-case, unique, cites its source, and has positive and negative cases here', () => {
    const ids = all.map((r) => r.id);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const r of all) {
      expect(r.id, r.id).to.match(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(r.rfc, r.id).to.match(/RFC \d+|DESIGN|issue 4/);
      expect(['error', 'warning']).to.include(r.severity);
      expect(CASES, `cases for ${r.id}`).to.have.property(r.id);
      expect(CASES[r.id]!.bad.length, r.id).to.be.greaterThan(0);
      expect(CASES[r.id]!.good.length, r.id).to.be.greaterThan(0);
    }
    expect(Object.keys(CASES).sort()).to.deep.equal([...ids].sort());
  });

  for (const r of [...RULES, ...INPUT_RULES]) {
    describe(`${r.id} (${r.severity}; ${r.rfc})`, () => {
      (CASES[r.id]?.bad ?? []).forEach((bad, i) => {
        it(`reports a breaking zone (${i + 1})`, () => {
          const results = bad();
          expect(results, JSON.stringify(results)).to.not.be.empty;
          for (const res of results) {
            expect(res.severity).to.equal(r.severity);
            expect(res.message.en).to.be.a('string').and.not.empty;
            // Real Ukrainian: Cyrillic letters in every uk message.
            expect(res.message.uk).to.match(/[а-яіїєґ]/i);
            expect(res.message.uk).to.not.equal(res.message.en);
          }
        });
      });
      (CASES[r.id]?.good ?? []).forEach((good, i) => {
        it(`accepts a zone that keeps it (${i + 1})`, () => {
          const results = good();
          expect(results, JSON.stringify(results)).to.deep.equal([]);
        });
      });
    });
  }

  it('returns every problem of a value, not just the first (STYLE 9)', () => {
    const results = run('caa-flags', [rs('@', 'CAA', ['7 bogus "x"'])])();
    const tags = run('caa-tag', [rs('@', 'CAA', ['7 bogus "x"'])])();
    expect(results).to.have.length(1);
    expect(tags).to.have.length(1);
    const mx = [rs('@', 'MX', ['70000 192.0.2.1.'])];
    expect(run('mx-value', mx)()).to.have.length(1);
    expect(run('target-not-address', mx)()).to.have.length(1);
  });

  it('a zone of good records has no result at all', () => {
    const sets = [
      rs('@', 'A', ['192.0.2.1']),
      rs('@', 'AAAA', ['2001:db8::1']),
      rs('@', 'MX', ['10 mail.example.com.']),
      rs('@', 'TXT', ['v=spf1 mx -all']),
      rs('@', 'CAA', ['0 issue "letsencrypt.org"', '0 issuewild ";"']),
      rs('mail', 'A', ['192.0.2.25']),
      rs('www', 'CNAME', ['example.com.']),
      rs('_sip._tcp', 'SRV', ['10 5 5060 mail.example.com.']),
      rs('sub', 'NS', ['ns1.sub.example.com.', 'ns2.example.net.']),
      rs('ns1.sub', 'A', ['192.0.2.53']),
      rs('*.dev', 'A', ['192.0.2.80']),
      rs('_acme-challenge', 'TXT', ['abc']),
    ];
    const view = makeView(ORIGIN, [...apex(), ...sets]);
    expect(RULES.flatMap((r) => r.check(view))).to.deep.equal([]);
  });
});
