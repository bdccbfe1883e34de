import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';

describe('domain errors carry the facts of their code (typed per code)', () => {
  it('a throw names its facts; the compiler refuses a misspelt or missing one (npm test typechecks this file)', () => {
    const err = new DomainError('domain_taken', { domain: 'x.com.ua', registered_until: '2030-01-01', label: 'x' });
    expect(err.fact('domain')).to.equal('x.com.ua');
    // @ts-expect-error a misspelt fact does not compile
    const misspelt = new DomainError('domain_not_found', { domian: 'x.com.ua' });
    // @ts-expect-error a fact the message needs cannot be left out
    const missing = new DomainError('ip_not_allowed', { cidr: '10.0.0.0/8' });
    // @ts-expect-error a code that carries no facts takes none
    const extra = new DomainError('csrf_failed', { domain: 'x.com.ua' });
    expect([misspelt.code, missing.code, extra.code]).to.deep.equal(['domain_not_found', 'ip_not_allowed', 'csrf_failed']);
  });
});
