import { expect } from 'chai';
import { isValidDomain, labelsOf, normalizeDomain, toUnicode } from '../../core/kernel/domain-name.js';
import { DomainError } from '../../core/kernel/errors.js';

const invalid = (input: string) => {
  let caught: unknown;
  try {
    normalizeDomain(input);
  } catch (e) {
    caught = e;
  }
  expect(caught, JSON.stringify(input)).to.be.instanceOf(DomainError);
  expect((caught as DomainError).code).to.equal('domain_invalid');
};

describe('domain names (A-labels, lower case, no trailing dot)', () => {
  it('lower-cases and strips the trailing dot and surrounding space', () => {
    expect(normalizeDomain('Example.COM')).to.equal('example.com');
    expect(normalizeDomain('example.com.')).to.equal('example.com');
    expect(normalizeDomain('  Shop.Example.Com.Ua. ')).to.equal('shop.example.com.ua');
    expect(normalizeDomain('domivka-demo.com.ua')).to.equal('domivka-demo.com.ua');
  });

  it('turns IDNs in Unicode into punycode; punycode input stays as it is', () => {
    expect(normalizeDomain('приклад.укр')).to.equal('xn--80aikifvh.xn--j1amh');
    expect(normalizeDomain('ПРИКЛАД.УКР')).to.equal('xn--80aikifvh.xn--j1amh');
    expect(normalizeDomain('XN--80AIKIFVH.xn--j1amh')).to.equal('xn--80aikifvh.xn--j1amh');
    expect(normalizeDomain('київ.com.ua')).to.equal(normalizeDomain('КИЇВ.com.ua'));
    expect(normalizeDomain('münchen.de')).to.equal('xn--mnchen-3ya.de');
    expect(toUnicode('xn--80aikifvh.xn--j1amh')).to.equal('приклад.укр');
  });

  it('accepts labels of 63 octets and names of 253 characters', () => {
    const l63 = 'a'.repeat(63);
    expect(normalizeDomain(`${l63}.com`)).to.equal(`${l63}.com`);
    const long = `${l63}.${l63}.${l63}.${'b'.repeat(57)}.com`;
    expect(long).to.have.length(253);
    expect(normalizeDomain(long)).to.equal(long);
  });

  it('rejects empty labels', () => {
    for (const s of ['', '.', 'a..com', '.example.com', 'example.com..']) invalid(s);
  });

  it('rejects labels over 63 octets and names over 253 characters', () => {
    invalid(`${'a'.repeat(64)}.com`);
    const l63 = 'a'.repeat(63);
    invalid(`${l63}.${l63}.${l63}.${'b'.repeat(58)}.com`);
  });

  it('rejects whitespace inside, underscores and other characters outside LDH', () => {
    for (const s of [
      'exa mple.com',
      'exa\tmple.com',
      'example.com\nx.com',
      '_acme-challenge.example.com',
      'under_score.com',
      'a@b.com',
      'example.com:8080',
      'http://example.com',
    ])
      invalid(s);
  });

  it('rejects hyphens at the start or end of a label', () => {
    invalid('-example.com');
    invalid('example-.com');
  });

  it('rejects single-label names and an all-numeric TLD', () => {
    for (const s of ['localhost', 'com', 'укр', 'example.123', '1.2.3.4']) invalid(s);
    expect(normalizeDomain('123.com')).to.equal('123.com');
  });

  // Regression guard (was a bug in core/kernel/domain-name.ts): normalizeDomain hands the text to WHATWG domainToASCII, which parses
  // it as a URL host: everything from '/', '?', '#' or '\' on is dropped and %-escapes are decoded, so
  // 'example.com/x' and 'example.com?x' become 'example.com' and 'exa%6dple.com' becomes 'example.com'
  // instead of domain_invalid. Lead to decide (check the raw text against [^/?#\\%] before mapping).
  it('rejects URL syntax instead of truncating or decoding it', () => {
    for (const s of ['example.com/x', 'example.com?x', 'example.com#x', 'example.com\\x', 'example.com/', 'exa%6dple.com']) invalid(s);
  });

  it('isValidDomain and labelsOf', () => {
    expect(isValidDomain('shop.example.com')).to.equal(true);
    expect(isValidDomain('nope')).to.equal(false);
    expect(labelsOf('shop.example.com')).to.deep.equal(['shop', 'example', 'com']);
  });
});
