import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';
import { entryOf } from '../../adapters/http/error-table.js';
import { errorText } from '../../adapters/http/console/error-text.js';

/**
 * The console says errors from the same table as the API, except where the API's text tells a client what to
 * do with its Idempotency-Key: a person has no such key, so the page says what they can do instead.
 */
describe('console error text', () => {
  it('payment_failed and zone_busy say to try again, never "the same Idempotency-Key", in both languages', () => {
    const cases = [new DomainError('payment_failed'), new DomainError('zone_busy', { domain: 'x.com.ua', retry_after: 2 })];
    for (const e of cases) {
      for (const lang of ['uk', 'en'] as const) {
        const text = errorText(lang, e);
        expect(text, `${e.code} ${lang}`).to.not.contain('Idempotency-Key');
        expect(text.length).to.be.greaterThan(20);
      }
      expect(errorText('en', e)).to.match(/Try again/);
      expect(errorText('uk', e)).to.match(/Спробуйте ще раз/);
    }
    expect(errorText('en', cases[1]!)).to.contain('x.com.ua').and.contain('in 2 s');
    // The API still answers its own text.
    expect(entryOf('payment_failed').en({})).to.contain('Idempotency-Key');
  });

  it('other errors keep the table text', () => {
    const e = new DomainError('domain_not_found', { domain: 'x.com.ua' });
    expect(errorText('en', e)).to.equal(entryOf('domain_not_found').en({ domain: 'x.com.ua' }));
    expect(errorText('uk', e)).to.equal(entryOf('domain_not_found').uk({ domain: 'x.com.ua' }));
  });
});
