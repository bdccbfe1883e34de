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
