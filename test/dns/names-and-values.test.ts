import { expect } from 'chai';
import ipaddr from 'ipaddr.js';
import { lastField } from '../../core/dns/checks/target-index.js';
import {
  compareNames,
  isAtOrBelow,
  nameProblems,
  relativeName,
  resolveName,
  toAsciiLabels,
  wireLength,
} from '../../core/dns/zone/names.js';
import type { RecordType } from '../../core/dns/zone/record-set.js';
import { hexGroups } from '../../core/dns/types/address.js';
import { hostCandidate, parseHost } from '../../core/dns/types/host.js';
import { fields } from '../../core/dns/types/value.js';
import { canonicalValue, parseValue, quoteString, splitTxt, unescapeString } from '../../core/dns/zone/values.js';
import { answerSize } from '../../core/dns/zone/wire-size.js';
import { normalizeDomain } from '../../core/kernel/domain-name.js';
import { prng } from '../support/prng.js';

const O = 'example.com';
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const name = (input: string) => {
  const r = resolveName(input, O);
  return r.ok ? r.name : `!${r.problem.rule}`;
};

describe('DNS names (DESIGN "Wire formats": @, absolute, relative)', () => {
  it('@ is the apex; a name ending with the zone, with or without a dot, is absolute; others are relative', () => {
    expect(name('@')).to.equal('example.com');
    expect(name('example.com')).to.equal('example.com');
    expect(name('example.com.')).to.equal('example.com');
    expect(name('www.example.com')).to.equal('www.example.com');
    expect(name('WWW.Example.COM.')).to.equal('www.example.com');
    expect(name('www')).to.equal('www.example.com');
    expect(name('shop.eu')).to.equal('shop.eu.example.com');
    // Label-wise: "notexample.com" does not end with the zone.
    expect(name('notexample.com')).to.equal('notexample.com.example.com');
  });

  it('keeps * and _ labels, and turns Unicode labels into A-labels', () => {
    expect(name('*')).to.equal('*.example.com');
    expect(name('_acme-challenge.www')).to.equal('_acme-challenge.www.example.com');
    expect(name('_sip._tcp')).to.equal('_sip._tcp.example.com');
    expect(name('київ')).to.equal(`${normalizeDomain('київ.com.ua').split('.')[0]}.example.com`);
    expect(name('КИЇВ')).to.equal(name('київ'));
  });

  it('reports bad names as problems instead of throwing', () => {
    expect(name('')).to.equal('!name-syntax');
    expect(resolveName(42, O).ok).to.equal(false);
    expect(name('www.example.net.')).to.equal('!owner-in-zone');
    expect(name('.')).to.equal('!owner-in-zone');
  });

  it('finds every problem of a name', () => {
    const rules = (n: string) => nameProblems(n).map((p) => p.rule);
    expect(rules('www.example.com')).to.deep.equal([]);
    expect(rules('a..b.example.com')).to.deep.equal(['name-syntax']);
    expect(rules(`${'x'.repeat(64)}.example.com`)).to.deep.equal(['label-length']);
    expect(rules(`${'x'.repeat(64)} y..example.com`)).to.have.members(['name-syntax', 'name-syntax', 'label-length']);
    const long = Array.from({ length: 5 }, () => 'x'.repeat(60)).join('.');
    expect(rules(long)).to.deep.equal(['name-length']);
    expect(wireLength('www.example.com')).to.equal(17);
  });

  it('orders names canonically (RFC 4034 §6.1) and writes them relative to the zone', () => {
    const sorted = ['z.example.com', 'example.com', 'a.z.example.com', '*.example.com', 'b.example.com'].sort(compareNames);
    expect(sorted).to.deep.equal(['example.com', '*.example.com', 'b.example.com', 'z.example.com', 'a.z.example.com']);
    expect(relativeName('example.com', O)).to.equal('@');
    expect(relativeName('www.example.com', O)).to.equal('www');
    expect(isAtOrBelow('notexample.com', O)).to.equal(false);
  });
});

describe('DNS values: each type parses, validates (every reason) and canonicalises itself', () => {
  const canon = (type: RecordType, v: string) => canonicalValue(type, v, O);
  const problems = (type: RecordType, v: string) => parseValue(type, v, O).problems.map((p) => p.rule);

  it('A: IPv4 only; AAAA: IPv6 in RFC 5952 form', () => {
    expect(canon('A', ' 192.0.2.1 ')).to.equal('192.0.2.1');
    expect(problems('A', '192.0.2.256')).to.deep.equal(['a-ipv4']);
    expect(canon('AAAA', '2001:0DB8:0000:0000:0000:0000:0000:0001')).to.equal('2001:db8::1');
    expect(canon('AAAA', '::FFFF:192.0.2.1')).to.equal('::ffff:192.0.2.1');
    expect(problems('AAAA', '192.0.2.1')).to.deep.equal(['aaaa-ipv6']);
  });

  it('CNAME/NS/PTR/DNAME: host names, absolute with a trailing dot; relative ones resolve against the zone', () => {
    expect(canon('CNAME', 'Host.Example.NET.')).to.equal('host.example.net.');
    expect(canon('CNAME', 'www')).to.equal('www.example.com.');
    expect(canon('CNAME', '@')).to.equal('example.com.');
    expect(canon('NS', 'ns1.example.com')).to.equal('ns1.example.com.');
    expect(canon('PTR', 'host.example.net.')).to.equal('host.example.net.');
    expect(canon('DNAME', 'new.example.net.')).to.equal('new.example.net.');
    expect(problems('CNAME', '192.0.2.1')).to.deep.equal(['target-not-address']);
    expect(canon('MX', '10 Пошта.example.net.')).to.equal(`10 ${normalizeDomain('пошта.example.net')}.`);
    expect(problems('CNAME', 'a b')).to.deep.equal(['target-syntax']);
  });

  it('MX: "pref host."; null MX "0 ."', () => {
    expect(canon('MX', '10   Mail.Example.net.')).to.equal('10 mail.example.net.');
    expect(canon('MX', '10 mail')).to.equal('10 mail.example.com.');
    expect(canon('MX', '0 .')).to.equal('0 .');
    expect(problems('MX', '99999 192.0.2.1')).to.deep.equal(['mx-value', 'target-not-address']);
  });

  it('SRV: "prio weight port target."', () => {
    expect(canon('SRV', '10 5 5060 SIP.example.net.')).to.equal('10 5 5060 sip.example.net.');
    expect(canon('SRV', '0 0 0 .')).to.equal('0 0 0 .');
    expect(problems('SRV', '10 5 0 sip.example.net.')).to.deep.equal(['srv-value']);
  });

  it('CAA: flags tag "value", tag lower-cased, value quoted', () => {
    expect(canon('CAA', '0 ISSUE letsencrypt.org')).to.equal('0 issue "letsencrypt.org"');
    expect(canon('CAA', '128 issuewild ";"')).to.equal('128 issuewild ";"');
    expect(canon('CAA', '0 iodef "mailto:a@example.com"')).to.equal('0 iodef "mailto:a@example.com"');
    expect(problems('CAA', '3 bogus "x"')).to.deep.equal(['caa-flags', 'caa-tag']);
  });

  it('TXT/SPF: plain text kept as is; split into ≤ 255-octet strings on the wire, never inside a character', () => {
    expect(canon('TXT', ' v=spf1 -all ')).to.equal(' v=spf1 -all ');
    expect(splitTxt('')).to.deep.equal(['']);
    expect(splitTxt('x'.repeat(600)).map((s) => s.length)).to.deep.equal([255, 255, 90]);
    const cyr = 'ї'.repeat(200); // 2 octets each
    const parts = splitTxt(cyr);
    expect(parts.map((s) => Buffer.byteLength(s))).to.deep.equal([254, 146]);
    expect(parts.join('')).to.equal(cyr);
    expect(problems('TXT', 'x'.repeat(70000))).to.deep.equal(['txt-string-length']);
  });

  it('SOA: seven fields', () => {
    expect(canon('SOA', 'NS1.domivka.net. hostmaster.domivka.net. 5 3600 600 1209600 300')).to.equal(
      'ns1.domivka.net. hostmaster.domivka.net. 5 3600 600 1209600 300',
    );
    expect(problems('SOA', 'ns1.domivka.net. hostmaster.domivka.net. 5')).to.deep.equal(['soa-value']);
  });

  it('zone-file strings: quotes, backslashes and non-ASCII octets escape and come back', () => {
    const text = 'say "hi" \\ привіт\ttab';
    const quoted = quoteString(text);
    expect(quoted).to.match(/^"say \\"hi\\" \\\\ (\\\d{3})+\\009tab"$/);
    expect(unescapeString(quoted.slice(1, -1)).text).to.equal(text);
  });

  it('answer size is what dns-packet encodes, owners as pointers to the question, plus OPT', () => {
    // 12 header + 17+4 question + 11 OPT + 2×(2 + 10 + 4)
    expect(answerSize({ name: 'www.example.com', type: 'A', ttl: 300, values: ['192.0.2.1', '192.0.2.2'] }, O)).to.equal(76);
    // TXT: one 255 and one 45-octet string → RDATA 302
    expect(answerSize({ name: 'example.com', type: 'TXT', ttl: 300, values: ['x'.repeat(300)] }, O)).to.equal(12 + 13 + 4 + 11 + 12 + 302);
  });
});

describe('fast paths are exact (names, targets, IPv6), checked against the general code', () => {
  it('AAAA: the hex-group parser agrees with ipaddr.js on every address it accepts, and accepts the usual ones', () => {
    const r = prng(6);
    const hex = () => {
      const k = r();
      const n = k < 0.4 ? 0 : k < 0.55 ? 1 + Math.floor(r() * 0xf) : Math.floor(r() * 0x10000);
      const s = n.toString(16);
      const padded = r() < 0.15 ? s.padStart(4, '0') : s;
      return r() < 0.2 ? padded.toUpperCase() : padded;
    };
    const texts: string[] = [
      '::',
      '::1',
      '1::',
      '1:2:3:4:5:6:7::',
      '::2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8',
      '::ffff:c000:201',
      '::FFFF:1:2',
      '0:0:0:0:0:ffff:0:0',
      '1:0:0:2:0:0:0:3',
      '1:0:0:2:0:0:3:4',
    ];
    const bad = [
      ':',
      ':::',
      '1:',
      ':1',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      'g::1',
      '1:2:3:4:5:6:7',
      '1::2:3:4:5:6:7:8',
      '::1.2.3.4',
      '1::%eth0',
      ' ::1',
      '1:::2',
    ];
    for (let i = 0; i < 20000; i++) {
      const groups = Array.from({ length: 8 }, hex);
      const at = Math.floor(r() * 8);
      const len = Math.floor(r() * (9 - at));
      texts.push(r() < 0.7 && len > 0 ? `${groups.slice(0, at).join(':')}::${groups.slice(at + len).join(':')}` : groups.join(':'));
      // Broken variants: a group too long, a bad character, a group lost or doubled.
      if (r() < 0.2) bad.push(`${groups.join(':')}${pick(r, ['00000', ':1', 'g', ':'])}`);
    }
    for (const t of [...texts, ...bad]) {
      const fast = hexGroups(t);
      const valid = ipaddr.IPv6.isValid(t) && !t.includes('%');
      if (fast) {
        expect(valid, t).to.equal(true);
        const addr = ipaddr.IPv6.parse(t);
        expect(fast, t).to.deep.equal(addr.parts);
        const reference = addr.isIPv4MappedAddress() ? `::ffff:${addr.toIPv4Address().toString()}` : addr.toRFC5952String();
        expect(parseValue('AAAA', t, O).canonical, t).to.equal(reference);
      }
    }
    for (const t of texts) expect(hexGroups(t), t).to.not.equal(null);
    for (const t of bad) expect(hexGroups(t), t).to.equal(null);
  });

  it('targets: hostCandidate gives the name parseHost gives, whenever parseHost gives one', () => {
    const r = prng(7);
    const labels = ['www', 'Mail', 'a-b', '_sip', '*', 'xn--e1aybc', 'тест', 'ÄÖ', 'x'.repeat(64), '192', '0', 'example', 'com', 'COM', ''];
    for (let i = 0; i < 20000; i++) {
      const n = 1 + Math.floor(r() * 4);
      let t = Array.from({ length: n }, () => pick(r, labels)).join('.');
      if (r() < 0.3) t += `.${O}`;
      if (r() < 0.5) t += '.';
      if (r() < 0.03) t = pick(r, ['@', '.', '192.0.2.1', '2001:db8::1', '..']);
      const real = parseHost(t, O, 'CNAME', true).name;
      if (real !== null && real !== '') expect(hostCandidate(t, O), t).to.equal(real);
      // And the fast path of toAsciiLabels agrees with lower-casing plus UTS #46.
      const lower = t.toLowerCase();
      // eslint-disable-next-line no-control-regex
      if (/^[\x00-\x7f]*$/.test(lower)) expect(toAsciiLabels(t), t).to.equal(lower);
    }
  });

  it('lastField is the last of fields(), for every kind of white space', () => {
    const r = prng(8);
    const spaces = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2003', '\u3000', '\ufeff', '  '];
    const words = ['10', 'mail.example.com.', 'a', 'тест.', '\u0085x', '"q"'];
    for (let i = 0; i < 20000; i++) {
      const n = Math.floor(r() * 5);
      let v = pick(r, ['', ...spaces]);
      for (let k = 0; k < n; k++) v += pick(r, words) + pick(r, spaces);
      if (r() < 0.5) v = v.trimEnd() + pick(r, ['', ...spaces]);
      const f = fields(v);
      expect(lastField(v), JSON.stringify(v)).to.equal(f.length === 0 ? null : f[f.length - 1]);
    }
  });
});
