import { expect } from 'chai';
import { cidrContains, parseCidr } from '../../core/access/cidr.js';
import { DomainError } from '../../core/kernel/errors.js';

describe('CIDR (seed 2.3: an IPv4 network in CIDR notation)', () => {
  describe('parseCidr', () => {
    it('normalises host bits to the network address', () => {
      expect(parseCidr('203.0.113.7/24')).to.deep.equal({ text: '203.0.113.0/24', prefix: 24 });
      expect(parseCidr('10.1.2.3/8')).to.deep.equal({ text: '10.0.0.0/8', prefix: 8 });
      expect(parseCidr('192.168.17.200/20')).to.deep.equal({ text: '192.168.16.0/20', prefix: 20 });
      expect(parseCidr('198.51.100.9/32')).to.deep.equal({ text: '198.51.100.9/32', prefix: 32 });
      expect(parseCidr('1.2.3.4/0')).to.deep.equal({ text: '0.0.0.0/0', prefix: 0 });
    });
    it('keeps the prefix length', () => {
      for (const p of [0, 7, 8, 16, 31, 32]) expect(parseCidr(`10.0.0.0/${p}`).prefix).to.equal(p);
    });
    it('refuses IPv6, missing prefixes, out-of-range values and garbage', () => {
      for (const bad of [
        '::1/128',
        '2001:db8::/32',
        '::ffff:10.0.0.0/104',
        '10.0.0.0',
        '10.0.0.0/33',
        '10.0.0.0/-1',
        '256.0.0.0/8',
        '10.0.0/8',
        '10.0.0.0.0/8',
        'abc',
        '',
        ' 10.0.0.0/8',
        '10.0.0.0/8 ',
        '0x0a.0.0.0/8',
        '10.0.0.0/8/8',
      ]) {
        let caught: unknown;
        try {
          parseCidr(bad);
        } catch (e) {
          caught = e;
        }
        expect(caught, bad).to.be.instanceOf(DomainError);
        expect((caught as DomainError).code).to.equal('validation_failed');
        expect((caught as DomainError).details).to.deep.equal([{ field: '/conditions/cidr', rule: 'cidr', value: bad }]);
      }
    });

    // Regression guard (was a bug in core/access/cidr.ts parseCidr): the shape regex allows leading zeros and ipaddr.js reads them
    // as octal, so '010.0.0.0/8' is silently stored as '8.0.0.0/8' — a key meant for 10/8 works from
    // 8/8. Go and Python refuse leading zeros for this reason (CVE-2021-29921). Lead to decide.
    it('refuses leading zeros instead of reading them as octal', () => {
      expect(() => parseCidr('010.0.0.0/8')).to.throw(DomainError);
      expect(() => parseCidr('192.168.001.0/24')).to.throw(DomainError);
      // The prefix too: ipaddr.js reads '/08' as 8, but the text is not the canonical notation a key stores.
      expect(() => parseCidr('10.0.0.0/08')).to.throw(DomainError);
      expect(() => parseCidr('10.0.0.0/008')).to.throw(DomainError);
    });
  });

  describe("cidrContains (DESIGN: the client address is the socket's)", () => {
    it('tells inside from outside for IPv4', () => {
      expect(cidrContains('203.0.113.0/24', '203.0.113.9')).to.equal(true);
      expect(cidrContains('203.0.113.0/24', '203.0.113.255')).to.equal(true);
      expect(cidrContains('203.0.113.0/24', '203.0.114.1')).to.equal(false);
      expect(cidrContains('10.0.0.0/8', '10.255.255.255')).to.equal(true);
      expect(cidrContains('10.0.0.0/8', '11.0.0.0')).to.equal(false);
      expect(cidrContains('198.51.100.9/32', '198.51.100.9')).to.equal(true);
      expect(cidrContains('198.51.100.9/32', '198.51.100.10')).to.equal(false);
      expect(cidrContains('0.0.0.0/0', '8.8.8.8')).to.equal(true);
    });
    it('treats an IPv4-mapped IPv6 address as its IPv4 address', () => {
      expect(cidrContains('127.0.0.0/8', '::ffff:127.0.0.1')).to.equal(true);
      expect(cidrContains('203.0.113.0/24', '::ffff:203.0.113.9')).to.equal(true);
      expect(cidrContains('10.0.0.0/8', '::ffff:127.0.0.1')).to.equal(false);
    });
    it('a plain IPv6 address is never inside an IPv4 network', () => {
      expect(cidrContains('127.0.0.0/8', '::1')).to.equal(false);
      expect(cidrContains('0.0.0.0/0', '2001:db8::1')).to.equal(false);
    });
    it('garbage is not inside', () => {
      expect(cidrContains('0.0.0.0/0', 'garbage')).to.equal(false);
      expect(cidrContains('0.0.0.0/0', '')).to.equal(false);
    });
  });
});
