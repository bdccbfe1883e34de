import { expect } from 'chai';
import { nameTail, normaliseName } from '../../../adapters/dns/embedded/rdata.js';
import { encodeTail } from '../../../adapters/dns/embedded/wire.js';

/**
 * NS, CNAME, DNAME and PTR records are encoded by hand (rdata.ts nameTail: a catalog of 10,000 zones is 10,000
 * PTRs, compiled in every DNS worker): the octets must be those dns-packet's encoder writes, for any name the
 * server accepts — the root, one label, 63-octet labels, 255-octet names, non-ASCII labels, any TTL.
 */
describe('DNS: record tails of one name, encoded by hand, are dns-packet’s octets', () => {
  const names = [
    '.',
    'com.',
    'ns1.Example.NET.',
    'a.b.c.d.e.f.example',
    `${'x'.repeat(63)}.${'y'.repeat(63)}.example.`,
    Array.from({ length: 4 }, () => 'z'.repeat(61)).join('.') + '.ab.',
    'ünïcode.пример.укр.',
    '_sip._tcp.example.',
    '0123456789abcdef0123456789abcdef.zones.catalog.domivka.invalid.',
  ];
  for (const type of ['NS', 'CNAME', 'DNAME', 'PTR'] as const)
    it(`${type}`, () => {
      for (const raw of names)
        for (const ttl of [0, 1, 300, 86400, 2147483647]) {
          const target = normaliseName(raw);
          expect(nameTail(type, ttl, target).toString('hex'), `${raw} ${ttl}`).to.equal(
            encodeTail({ name: '.', ttl, class: 'IN', type, data: target || '.' }).toString('hex'),
          );
        }
    });
});

/**
 * normaliseName returns a name already in its form (lower case, plain labels, no trailing dot) as it is, seen
 * in one pass (rdata.ts isPlainName: 10,000 zones held at start are 10,000 such names); the same name with a
 * trailing dot takes the full path, so both must agree — on every name, and on every refusal at the limits.
 */
describe('DNS: a name already normal is taken as it is, as the full path would take it', () => {
  const outcome = (raw: string): string => {
    try {
      return `ok ${normaliseName(raw)}`;
    } catch (err) {
      return `refused ${(err as Error).name}`;
    }
  };
  it('plain names, and names at and past the label and length limits', () => {
    const label = (n: number) => 'a'.repeat(n);
    const names = [
      'com',
      'example.com.ua',
      'xn--80ak6aa92e.com',
      '_acme-challenge.www.example.org',
      'a-b_c.0-9.example',
      `${label(63)}.example`,
      `${label(64)}.example`,
      // 253 characters (255 octets on the wire) is the longest name; 254 is one too long.
      [label(63), label(63), label(63), label(61)].join('.'),
      [label(63), label(63), label(63), label(62)].join('.'),
      'a..b',
      'Upper.example',
      'white space.example',
      'ünïcode.example',
    ];
    for (const n of names) {
      const plain = outcome(n);
      const full = outcome(`${n}.`);
      expect(plain, n).to.equal(full);
    }
    expect(outcome(`${label(64)}.example`)).to.match(/^refused/);
    expect(outcome([label(63), label(63), label(63), label(62)].join('.'))).to.match(/^refused/);
    expect(outcome([label(63), label(63), label(63), label(61)].join('.'))).to.match(/^ok/);
    const s = 'example.com.ua';
    expect(normaliseName(s)).to.equal(s);
  });
});
