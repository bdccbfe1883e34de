import { expect } from 'chai';
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
