import { expect } from 'chai';
import { domainCandidates, domainsOfEvent } from '../../core/events/public-event.js';

/** Which account domains an event is about, from only the names it speaks of (the publisher's lookup). */
describe('Events: the domains an event is about', () => {
  const cert = {
    type: 'certificate.issued' as const,
    subject: 'certificate:c1',
    data: { names: ['*.shop.example.com.ua', 'WWW.Other.dev'] },
  };

  it('asks the store only for the names the event speaks of and their parents', () => {
    expect(domainCandidates(cert).sort()).to.deep.equal(
      ['com.ua', 'dev', 'example.com.ua', 'other.dev', 'shop.example.com.ua', 'ua', 'www.other.dev'].sort(),
    );
    expect(domainCandidates({ type: 'domain.renewed', subject: 'domain:a.dev', data: {} })).to.deep.equal([]);
    expect(domainCandidates({ type: 'billing.topup_succeeded', subject: 'topup:t', data: {} })).to.deep.equal([]);
  });

  it('picks, per name, the longest domain the account holds; data.domain when held; the subject when it is a domain', () => {
    expect(domainsOfEvent(cert, new Set(['example.com.ua', 'shop.example.com.ua', 'other.dev']))).to.deep.equal([
      'shop.example.com.ua',
      'other.dev',
    ]);
    expect(domainsOfEvent(cert, new Set(['example.com.ua']))).to.deep.equal(['example.com.ua']);
    expect(domainsOfEvent(cert, new Set())).to.deep.equal([]);
    const monitor = { type: 'monitor.created' as const, subject: 'monitor:m1', data: { domain: 'a.dev' } };
    expect(domainsOfEvent(monitor, new Set(['a.dev']))).to.deep.equal(['a.dev']);
    expect(domainsOfEvent(monitor, new Set())).to.deep.equal([]);
    expect(domainsOfEvent({ type: 'domain.renewed', subject: 'domain:b.dev', data: {} }, new Set())).to.deep.equal(['b.dev']);
  });
});
