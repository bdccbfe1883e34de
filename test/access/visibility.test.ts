import { expect } from 'chai';
import { apiKeyFixture } from '../support/api-key.js';
import { KeyVisibility, type DomainLister } from '../../core/access/visibility.js';
import type { ScopedDomain } from '../../core/access/ports/domain-directory.port.js';
import type { ApiKey, Policy } from '../../core/kernel/caller.js';

/**
 * KeyVisibility, the one answer to "which domains can this key see" (issue 20: the access tests did not
 * run it): the store prefilter from the policies granting a right, the read it bounds, and the check of
 * each domain read against the policies.
 */

const key = (policies: Policy[]): ApiKey => apiKeyFixture({ name: 'vis', policies });

/** A lister returning `domains` (whatever the query) and remembering the queries. */
const lister = (domains: ScopedDomain[]) => {
  const queries: Array<Parameters<DomainLister['list']>[0]> = [];
  return {
    queries,
    list: async (q: Parameters<DomainLister['list']>[0]) => {
      queries.push(q);
      return domains;
    },
  };
};

const KEY = key([
  { right: 'dns.edit', resources: { domains: ['a.example', 'b.example'] } },
  { right: 'dns.read', resources: { domains: ['b.example', 'c.example'] } },
  { right: 'domain.read', resources: { label: 'prod' } },
  { right: 'cert.read', resources: { label: 'web' } },
]);

describe('KeyVisibility: which domains a key sees (issue 20)', () => {
  it('scope: the names and labels of the policies granting one of the rights (implied rights too), each once', () => {
    const v = new KeyVisibility(lister([]));
    expect(v.scope(KEY, ['dns.read'])).to.deep.equal({ all: false, names: ['a.example', 'b.example', 'c.example'], labels: [] });
    expect(v.scope(KEY, ['domain.read'])).to.deep.equal({ all: false, names: [], labels: ['prod'] });
    expect(v.scope(KEY, ['domain.read', 'cert.read'])).to.deep.equal({ all: false, names: [], labels: ['prod', 'web'] });
    expect(v.scope(KEY, ['billing.read'])).to.deep.equal({ all: false, names: [], labels: [] });
  });

  it('visibleDomains: reads through the scope, keeps only the domains a policy selects, by name or by a label', async () => {
    const l = lister([
      { name: 'a.example', labels: [] },
      { name: 'x.example', labels: ['prod'] },
      { name: 'y.example', labels: ['web'] },
      { name: 'z.example', labels: [] },
    ]);
    const v = new KeyVisibility(l);
    expect([...(await v.visibleDomains(KEY, ['domain.read', 'dns.read']))]).to.deep.equal(['a.example', 'x.example']);
    expect(l.queries).to.deep.equal([
      {
        accountId: 'acc-1',
        environment: 'test',
        scope: { all: false, names: ['a.example', 'b.example', 'c.example'], labels: ['prod'] },
        limit: 100_001,
      },
    ]);
  });

  it('a key whose policies only name labels still reads, through the labels', async () => {
    const l = lister([{ name: 'x.example', labels: ['prod'] }]);
    const v = new KeyVisibility(l);
    expect([...(await v.visibleDomains(key([{ right: 'domain.read', resources: { label: 'prod' } }]), ['domain.read']))]).to.deep.equal([
      'x.example',
    ]);
    expect(l.queries.map((q) => q.scope)).to.deep.equal([{ all: false, names: [], labels: ['prod'] }]);
  });

  it('visibleDomains with among: reads only those names (each once), and nothing at all for an empty list', async () => {
    const l = lister([{ name: 'c.example', labels: [] }]);
    const v = new KeyVisibility(l);
    expect([...(await v.visibleDomains(KEY, ['dns.read'], { among: ['c.example', 'c.example', 'q.example'] }))]).to.deep.equal([
      'c.example',
    ]);
    expect(l.queries.map((q) => q.scope)).to.deep.equal([{ all: false, names: ['c.example', 'q.example'], labels: [] }]);
    expect([...(await v.visibleDomains(KEY, ['dns.read'], { among: [] }))]).to.deep.equal([]);
    expect(l.queries).to.have.length(1);
  });

  it('a key with no policy for the rights sees nothing, without reading the store', async () => {
    const l = lister([{ name: 'a.example', labels: [] }]);
    const v = new KeyVisibility(l);
    expect([...(await v.visibleDomains(KEY, ['billing.read']))]).to.deep.equal([]);
    expect(await v.visibleDomainsUpTo(KEY, ['monitor.read'], 10)).to.deep.equal(new Set());
    expect(l.queries).to.deep.equal([]);
  });

  it('visibleDomainsUpTo: reads max + 1, null when more than max come back, the set when max do', async () => {
    const two = [
      { name: 'a.example', labels: [] },
      { name: 'b.example', labels: [] },
    ];
    const l = lister(two);
    const v = new KeyVisibility(l);
    expect(await v.visibleDomainsUpTo(KEY, ['dns.read'], 1)).to.equal(null);
    expect(l.queries[0]!.limit).to.equal(2);
    expect([...(await v.visibleDomainsUpTo(KEY, ['dns.read'], 2))!]).to.deep.equal(['a.example', 'b.example']);
  });

  it('sees: a policy granting one of the rights that selects the domain by name or by a label it carries', () => {
    const v = new KeyVisibility(lister([]));
    expect(v.sees(KEY, ['dns.read'], { name: 'a.example', labels: [] })).to.equal(true);
    expect(v.sees(KEY, ['dns.read'], { name: 'x.example', labels: ['prod'] })).to.equal(false);
    expect(v.sees(KEY, ['dns.read', 'domain.read'], { name: 'x.example', labels: ['prod'] })).to.equal(true);
    expect(v.sees(KEY, ['domain.read'], { name: 'a.example', labels: [] })).to.equal(false);
  });

  it('holds: a right some policy grants, implications included', () => {
    const v = new KeyVisibility(lister([]));
    expect(v.holds(KEY, 'dns.read')).to.equal(true);
    expect(v.holds(KEY, 'dns.edit')).to.equal(true);
    expect(v.holds(KEY, 'billing.read')).to.equal(false);
  });
});
