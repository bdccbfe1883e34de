import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';
import { formatUah, parseUah, uah } from '../../core/kernel/money.js';

describe('money: integer kopiykas (DESIGN: Money)', () => {
  describe('parseUah', () => {
    it('parses whole and fractional hryvnias into kopiykas', () => {
      expect(parseUah('500')).to.equal(50000);
      expect(parseUah('0.5')).to.equal(50);
      expect(parseUah('12.34')).to.equal(1234);
      expect(parseUah('12.3')).to.equal(1230);
      expect(parseUah('0.05')).to.equal(5);
      expect(parseUah('0.01')).to.equal(1);
      expect(parseUah('10000.00')).to.equal(1_000_000);
    });
    it('needs no floating point: 0.1 + 0.2 style values are exact', () => {
      expect(parseUah('0.29')).to.equal(29);
      expect(parseUah('1.15')).to.equal(115);
      expect(parseUah('999999999999.99')).to.equal(99_999_999_999_999);
    });
    it('refuses more than two decimals, signs, letters, exponents and empty text', () => {
      for (const bad of ['1.234', '-1', '+1', 'abc', '1e3', '', '.5', '5.', '1,50', '1 000', 'NaN', 'Infinity', '0x10']) {
        expect(() => parseUah(bad), bad)
          .to.throw(DomainError)
          .with.property('code', 'validation_failed');
      }
    });
  });

  describe('formatUah', () => {
    it('writes kopiykas as hryvnias with two decimals', () => {
      expect(formatUah(1234)).to.equal('12.34');
      expect(formatUah(50000)).to.equal('500.00');
      expect(formatUah(5)).to.equal('0.05');
      expect(formatUah(0)).to.equal('0.00');
      expect(formatUah(-150)).to.equal('-1.50');
      expect(formatUah(1_000_000)).to.equal('10000.00');
    });
    it('round-trips with parseUah', () => {
      for (const k of [0, 1, 10, 99, 100, 1234, 50000, 123456789]) expect(parseUah(formatUah(k))).to.equal(k);
    });
  });

  describe('uah', () => {
    it('wraps integer kopiykas with the currency and refuses fractions', () => {
      expect(uah(1234)).to.deep.equal({ amount: 1234, currency: 'UAH' });
      expect(() => uah(12.5)).to.throw(Error);
      expect(() => uah(Number.NaN)).to.throw(Error);
    });
  });
});
