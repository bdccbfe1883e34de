import { expect } from 'chai';
import { Authorizer } from '../../core/access/authorize.js';
import type { ScopedDomain } from '../../core/access/ports/domain-directory.port.js';
import { apiKeyFixture } from '../support/api-key.js';
import { refusal } from '../support/refusal.js';
import { allows, heldRights, labelsGranting, namesDomain, selects, type Policy, type Subject } from '../../core/access/policy.js';

const domain = (name: string, labels: string[] = []): Subject => ({ kind: 'domain', name, labels });
const ACCOUNT: Subject = { kind: 'account' };

describe('policies (seed 2.2, A4): a right paired with a selection of domains', () => {
  describe('named domains', () => {
    const policies: Policy[] = [{ right: 'dns.edit', resources: { domains: ['a.example', 'b.example'] } }];

    it('allow the right on each named domain', () => {
      expect(allows(policies, 'dns.edit', domain('a.example'))).to.equal(true);
      expect(allows(policies, 'dns.edit', domain('b.example'))).to.equal(true);
    });
    it('do not reach an unnamed domain, whatever labels it carries', () => {
      expect(allows(policies, 'dns.edit', domain('c.example', ['prod']))).to.equal(false);
      expect(allows(policies, 'dns.edit', domain('sub.a.example'))).to.equal(false);
      expect(allows(policies, 'dns.edit', domain('example'))).to.equal(false);
    });
    it('do not allow rights the policy does not carry', () => {
      expect(allows(policies, 'domain.read', domain('a.example'))).to.equal(false);
      expect(allows(policies, 'dns.acme_challenge', domain('a.example'))).to.equal(false);
      expect(allows(policies, 'domain.nameservers', domain('a.example'))).to.equal(false);
    });
    it('an empty selection selects nothing', () => {
      expect(allows([{ right: 'domain.read', resources: { domains: [] } }], 'domain.read', domain('a.example'))).to.equal(false);
    });
  });

  describe('a label', () => {
    const policies: Policy[] = [{ right: 'domain.read', resources: { label: 'prod' } }];

    it('selects every domain carrying the label', () => {
      expect(allows(policies, 'domain.read', domain('a.example', ['prod']))).to.equal(true);
      expect(allows(policies, 'domain.read', domain('z.example', ['shop', 'prod']))).to.equal(true);
    });
    it('does not select a domain without it', () => {
      expect(allows(policies, 'domain.read', domain('a.example', ['blog']))).to.equal(false);
      expect(allows(policies, 'domain.read', domain('a.example'))).to.equal(false);
      expect(allows(policies, 'domain.read', domain('prod', []))).to.equal(false);
    });
    it('follows the labels the domain carries now', () => {
      expect(allows(policies, 'domain.read', domain('a.example', []))).to.equal(false);
      expect(allows(policies, 'domain.read', domain('a.example', ['prod']))).to.equal(true);
    });
    it('selects via selects() the same way', () => {
      expect(selects({ label: 'prod' }, 'x.example', ['prod'])).to.equal(true);
      expect(selects({ label: 'prod' }, 'x.example', ['production'])).to.equal(false);
      expect(selects({ domains: ['x.example'] }, 'x.example', [])).to.equal(true);
      expect(selects({ domains: ['x.example'] }, 'y.example', ['x.example'])).to.equal(false);
    });
  });

  describe('implications', () => {
    it('a policy of dns.edit allows dns.read on the same selection, and only there', () => {
      const p: Policy[] = [{ right: 'dns.edit', resources: { domains: ['a.example'] } }];
      expect(allows(p, 'dns.read', domain('a.example'))).to.equal(true);
      expect(allows(p, 'dns.read', domain('b.example'))).to.equal(false);
    });
    it('cert.issue allows cert.read, monitor.edit allows monitor.read', () => {
      const p: Policy[] = [
        { right: 'cert.issue', resources: { label: 'prod' } },
        { right: 'monitor.edit', resources: { domains: ['a.example'] } },
      ];
      expect(allows(p, 'cert.read', domain('x.example', ['prod']))).to.equal(true);
      expect(allows(p, 'monitor.read', domain('a.example'))).to.equal(true);
      expect(allows(p, 'monitor.read', domain('x.example', ['prod']))).to.equal(false);
    });
    it('a lesser right never allows the greater one', () => {
      const p: Policy[] = [{ right: 'dns.read', resources: { domains: ['a.example'] } }];
      expect(allows(p, 'dns.edit', domain('a.example'))).to.equal(false);
    });
  });

  describe('account-scoped rights (billing.*) ignore the selection', () => {
    it('a billing policy with no domains allows the account', () => {
      const p: Policy[] = [{ right: 'billing.read', resources: { domains: [] } }];
      expect(allows(p, 'billing.read', ACCOUNT)).to.equal(true);
    });
    it('a billing policy with named domains or a label still allows it, for any subject', () => {
      const named: Policy[] = [{ right: 'billing.topup', resources: { domains: ['a.example'] } }];
      const labelled: Policy[] = [{ right: 'billing.read', resources: { label: 'prod' } }];
      expect(allows(named, 'billing.topup', ACCOUNT)).to.equal(true);
      expect(allows(named, 'billing.read', ACCOUNT)).to.equal(true); // topup ⊃ read
      expect(allows(named, 'billing.topup', domain('other.example'))).to.equal(true);
      expect(allows(labelled, 'billing.read', domain('z.example', []))).to.equal(true);
      expect(allows(labelled, 'billing.topup', ACCOUNT)).to.equal(false);
    });
    it('a domain right is never allowed against the account as a whole', () => {
      const p: Policy[] = [
        { right: 'domain.read', resources: { label: 'prod' } },
        { right: 'dns.edit', resources: { domains: ['a.example'] } },
      ];
      expect(allows(p, 'domain.read', ACCOUNT)).to.equal(false);
      expect(allows(p, 'dns.edit', ACCOUNT)).to.equal(false);
    });
  });

  describe('no cross-domain leakage', () => {
    const policies: Policy[] = [
      { right: 'dns.edit', resources: { domains: ['a.example'] } },
      { right: 'domain.read', resources: { domains: ['b.example'] } },
      { right: 'domain.renew', resources: { label: 'shop' } },
    ];
    it('each right reaches only its own selection', () => {
      expect(allows(policies, 'dns.edit', domain('a.example'))).to.equal(true);
      expect(allows(policies, 'dns.edit', domain('b.example'))).to.equal(false);
      expect(allows(policies, 'dns.read', domain('b.example'))).to.equal(false);
      expect(allows(policies, 'domain.read', domain('a.example'))).to.equal(false);
      expect(allows(policies, 'domain.read', domain('b.example'))).to.equal(true);
      expect(allows(policies, 'domain.renew', domain('b.example'))).to.equal(false);
      expect(allows(policies, 'domain.renew', domain('a.example', ['shop']))).to.equal(true);
      expect(allows(policies, 'dns.edit', domain('b.example', ['shop']))).to.equal(false);
    });
    it('no policies allow nothing', () => {
      expect(allows([], 'domain.read', domain('a.example'))).to.equal(false);
      expect(allows([], 'billing.read', ACCOUNT)).to.equal(false);
    });
  });

  describe('namesDomain: the key names the domain explicitly for the right', () => {
    const policies: Policy[] = [
      { right: 'dns.edit', resources: { domains: ['a.example'] } },
      { right: 'domain.register', resources: { label: 'new' } },
    ];
    it('true for a named domain, also through an implication', () => {
      expect(namesDomain(policies, 'dns.edit', 'a.example')).to.equal(true);
      expect(namesDomain(policies, 'dns.read', 'a.example')).to.equal(true);
    });
    it('false for another domain, another right, or a label selection', () => {
      expect(namesDomain(policies, 'dns.edit', 'b.example')).to.equal(false);
      expect(namesDomain(policies, 'domain.read', 'a.example')).to.equal(false);
      expect(namesDomain(policies, 'domain.register', 'anything.example')).to.equal(false);
    });
  });

  describe('heldRights', () => {
    it('lists the rights held, implications included', () => {
      const held = heldRights([
        { right: 'dns.edit', resources: { domains: ['a.example'] } },
        { right: 'billing.topup', resources: { domains: [] } },
      ]);
      expect([...held].sort()).to.deep.equal(['billing.read', 'billing.topup', 'dns.edit', 'dns.read']);
    });
  });

  describe('labelsGranting: the labels a domain registered through the key carries (DESIGN)', () => {
    it('the labels of the policies granting the right, each once, implications included', () => {
      const policies: Policy[] = [
        { right: 'domain.register', resources: { label: 'new' } },
        { right: 'domain.register', resources: { label: 'shop' } },
        { right: 'domain.register', resources: { label: 'new' } },
        { right: 'domain.register', resources: { domains: ['named.example'] } },
        { right: 'domain.read', resources: { label: 'other' } },
        { right: 'dns.edit', resources: { label: 'ops' } },
      ];
      expect(labelsGranting(policies, 'domain.register')).to.deep.equal(['new', 'shop']);
      expect(labelsGranting(policies, 'dns.read')).to.deep.equal(['ops']);
      expect(labelsGranting(policies, 'domain.renew')).to.deep.equal([]);
      expect(labelsGranting([], 'domain.register')).to.deep.equal([]);
    });
  });
});

describe('Authorizer: a right on a domain of the account, looked up in the store', () => {
  const stored: Record<string, ScopedDomain> = {
    'a.example': { name: 'a.example', labels: ['shop'] },
    'b.example': { name: 'b.example', labels: [] },
  };
  const lookups: string[] = [];
  const authorizer = new Authorizer<ScopedDomain>({
    find: async (_account, _env, name) => {
      lookups.push(name);
      return stored[name] ?? null;
    },
  });
  const key = (policies: Policy[], environment: 'test' | 'live' = 'test') => apiKeyFixture({ policies, environment });
  const missing = async (p: Promise<unknown>) => {
    const e = await refusal(p);
    expect(e.code).to.equal('right_missing');
    return e.params;
  };

  it('answers the domain it found, its name normalised; a refusal names the right and the domain', async () => {
    const k = key([{ right: 'dns.edit', resources: { domains: ['a.example'] } }]);
    expect(await authorizer.check(k, 'dns.edit', 'A.Example.')).to.equal(stored['a.example']);
    expect(await authorizer.allows(k, 'dns.edit', 'a.example')).to.equal(true);
    expect(await authorizer.allows(k, 'dns.edit', 'b.example')).to.equal(false);
    expect(await missing(authorizer.check(k, 'dns.edit', 'b.example'))).to.deep.equal({ right: 'dns.edit', domain: 'b.example' });
  });

  it('several rights: any one will do; the refusal names the last', async () => {
    const k = key([{ right: 'dns.acme_challenge', resources: { domains: ['a.example'] } }]);
    expect(await authorizer.check(k, ['dns.edit', 'dns.acme_challenge'], 'a.example')).to.equal(stored['a.example']);
    expect(await missing(authorizer.check(k, ['dns.acme_challenge', 'dns.edit'], 'b.example'))).to.deep.equal({
      right: 'dns.edit',
      domain: 'b.example',
    });
  });

  it('an account right ignores the domain asked with it: no lookup, no domain answered; its refusal names only the right', async () => {
    const billing = key([{ right: 'billing.read', resources: { domains: [] } }]);
    lookups.length = 0;
    expect(await authorizer.check(billing, 'billing.read', 'a.example')).to.equal(null);
    expect(await authorizer.check(billing, 'billing.read', 'unknown.example')).to.equal(null);
    expect(lookups).to.deep.equal([]);
    expect(await missing(authorizer.check(billing, 'billing.topup'))).to.deep.equal({ right: 'billing.topup' });
    expect(await missing(authorizer.check(billing, 'billing.topup', 'a.example'))).to.deep.equal({ right: 'billing.topup' });
  });

  it('a domain right asked without a domain (a list) needs only to be held somewhere', async () => {
    const k = key([{ right: 'dns.read', resources: { domains: ['a.example'] } }]);
    expect(await authorizer.check(k, 'dns.read')).to.equal(null);
    expect(await missing(authorizer.check(k, 'dns.edit'))).to.deep.equal({ right: 'dns.edit' });
  });

  it('a test-only right grants nothing to a live key, even when its row holds it', async () => {
    const policies: Policy[] = [{ right: 'sandbox.clock', resources: { domains: [] } }];
    expect(await authorizer.allows(key(policies, 'test'), 'sandbox.clock')).to.equal(true);
    expect(await authorizer.allows(key(policies, 'live'), 'sandbox.clock')).to.equal(false);
    expect(await missing(authorizer.check(key(policies, 'live'), 'sandbox.clock'))).to.deep.equal({ right: 'sandbox.clock' });
  });

  it('a domain not in the account: allowed only when the key names it, or (register, host) selects a label', async () => {
    const named = key([{ right: 'dns.edit', resources: { domains: ['new.example'] } }]);
    expect(await authorizer.check(named, 'dns.edit', 'new.example')).to.equal(null);
    expect(await missing(authorizer.check(named, 'dns.edit', 'other.example'))).to.deep.equal({
      right: 'dns.edit',
      domain: 'other.example',
    });
    for (const right of ['domain.register', 'domain.host'] as const) {
      expect(await authorizer.allows(key([{ right, resources: { label: 'shop' } }]), right, 'any.example'), right).to.equal(true);
      // A selection of named domains registers (hosts) only those.
      expect(await authorizer.allows(key([{ right, resources: { domains: ['x.example'] } }]), right, 'any.example'), right).to.equal(false);
      // A label selected for another right does not do.
      const mixed = key([
        { right: 'domain.read', resources: { label: 'shop' } },
        { right, resources: { domains: ['x.example'] } },
      ]);
      expect(await authorizer.allows(mixed, right, 'any.example'), right).to.equal(false);
      // One policy by label among others of the same right is enough.
      const both = key([
        { right, resources: { domains: ['x.example'] } },
        { right, resources: { label: 'shop' } },
      ]);
      expect(await authorizer.allows(both, right, 'any.example'), right).to.equal(true);
    }
    // Another domain right by label probes unknown names in vain.
    expect(
      await missing(authorizer.check(key([{ right: 'dns.edit', resources: { label: 'shop' } }]), 'dns.edit', 'any.example')),
    ).to.deep.equal({
      right: 'dns.edit',
      domain: 'any.example',
    });
    // register by label does not let host, and the other way round.
    expect(
      await authorizer.allows(key([{ right: 'domain.register', resources: { label: 'shop' } }]), 'domain.host', 'any.example'),
    ).to.equal(false);
    expect(
      await authorizer.allows(key([{ right: 'domain.host', resources: { label: 'shop' } }]), 'domain.register', 'any.example'),
    ).to.equal(false);
  });
});

describe('Authorizer.checkKnown: the same decision without a promise, when the domain is in memory', () => {
  const stored: Record<string, ScopedDomain> = { 'a.example': { name: 'a.example', labels: ['shop'] } };
  /** What the directory's cache holds: a domain, null (known absent), or nothing (undefined: ask find). */
  const memory = new Map<string, ScopedDomain | null>();
  const lookups: string[] = [];
  const authorizer = new Authorizer<ScopedDomain>({
    find: async (_account, _env, name) => {
      lookups.push(name);
      return stored[name] ?? null;
    },
    cached: (_account, _env, name) => memory.get(name),
  });
  const key = (policies: Policy[]) => apiKeyFixture({ policies, environment: 'test' });
  const refusedSync = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return e as { code: string; params: unknown };
    }
    throw new Error('not refused');
  };

  it('answers from memory what check answers from the store, refusals alike, and asks the store for nothing', async () => {
    const k = key([{ right: 'dns.edit', resources: { label: 'shop' } }]);
    memory.set('a.example', stored['a.example']!);
    memory.set('gone.example', null);
    lookups.length = 0;
    expect(authorizer.checkKnown(k, 'dns.edit', 'A.Example.')).to.equal(stored['a.example']);
    const sync = refusedSync(() => authorizer.checkKnown(k, 'dns.edit', 'gone.example'));
    const async = await refusal(authorizer.check(k, 'dns.edit', 'gone.example'));
    expect(sync.code).to.equal('right_missing');
    expect(sync.params).to.deep.equal(async.params);
    expect(lookups, 'only check asked the store').to.deep.equal(['gone.example']);
    // Rights that need no domain are decided at once, whatever the memory holds.
    expect(authorizer.checkKnown(key([{ right: 'billing.read', resources: { domains: [] } }]), 'billing.read', 'x.example')).to.equal(null);
  });

  it('undefined when the domain is not in memory (then check decides), and never a guess', () => {
    const k = key([{ right: 'dns.edit', resources: { domains: ['b.example'] } }]);
    memory.clear();
    expect(authorizer.checkKnown(k, 'dns.edit', 'b.example')).to.equal(undefined);
    expect(authorizer.checkKnown(k, ['billing.read', 'dns.edit'], 'b.example')).to.equal(undefined);
    expect(new Authorizer<ScopedDomain>({ find: async () => null }).checkKnown(k, 'dns.edit', 'b.example')).to.equal(undefined);
  });
});
