import { expect } from 'chai';
import { compareNames, isAtOrBelow, nameProblems, relativeName, resolveName, wireLength } from '../../core/dns/names.js';
import type { RecordType } from '../../core/dns/record-set.js';
import { canonicalValue, parseValue, quoteString, splitTxt, unescapeString } from '../../core/dns/values.js';
import { answerSize } from '../../core/dns/wire-size.js';
import { normalizeDomain } from '../../core/shared/domain-name.js';

const O = 'example.com';
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
    expect(canon('SOA', 'NS1.domivka.net. hostmaster.domivka.net. 5 3600 600 1209600 300')).to.equal('ns1.domivka.net. hostmaster.domivka.net. 5 3600 600 1209600 300');
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
