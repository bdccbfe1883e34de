import { expect } from 'chai';
import { CLASSES, classOf, MIN_CIDR_PREFIX, spendsMoney } from '../../core/access/classes.js';
import { expandRight, grants, isRightName, RIGHT_NAMES, RIGHTS, type RightName } from '../../core/kernel/rights.js';
import { maxClassOf, personKey, personMay } from '../../core/access/person-key.js';
import type { Actor } from '../../core/kernel/person.js';

/** DESIGN "Decisions": the rights catalogue, class in brackets. */
const CATALOGUE: Record<string, number> = {
  'domain.read': 0,
  'dns.read': 0,
  'cert.read': 0,
  'monitor.read': 0,
  'billing.read': 0,
  'dns.edit': 1,
  'dns.acme_challenge': 1,
  'cert.issue': 1,
  'monitor.edit': 1,
  'webhook.manage': 1,
  'domain.host': 1,
  'sandbox.clock': 1,
  'domain.renew': 2,
  'domain.register': 2,
  'billing.topup': 2,
  'domain.nameservers': 3,
  'domain.lock': 3,
  'domain.labels': 3,
  'dns.dnssec': 3,
};

/** What each right grants, itself included (DESIGN: dns.edit ⊃ dns.read, cert.issue ⊃ cert.read, …). */
const EXPANSION: Record<RightName, RightName[]> = {
  'domain.read': ['domain.read'],
  'dns.read': ['dns.read'],
  'cert.read': ['cert.read'],
  'monitor.read': ['monitor.read'],
  'billing.read': ['billing.read'],
  'dns.edit': ['dns.edit', 'dns.read'],
  'dns.acme_challenge': ['dns.acme_challenge'],
  'cert.issue': ['cert.issue', 'cert.read'],
  'monitor.edit': ['monitor.edit', 'monitor.read'],
  'webhook.manage': ['webhook.manage'],
  'domain.host': ['domain.host'],
  'sandbox.clock': ['sandbox.clock'],
  'domain.renew': ['domain.renew'],
  'domain.register': ['domain.register'],
  'billing.topup': ['billing.topup', 'billing.read'],
  'domain.nameservers': ['domain.nameservers'],
  'domain.lock': ['domain.lock'],
  'domain.labels': ['domain.labels'],
  'dns.dnssec': ['dns.dnssec'],
};

describe('rights catalogue (seed 2.4, DESIGN "Decisions")', () => {
  it('holds exactly the rights of DESIGN, each with its class', () => {
    expect([...RIGHT_NAMES].sort()).to.deep.equal(Object.keys(CATALOGUE).sort());
    expect(Object.keys(RIGHTS).sort()).to.deep.equal(Object.keys(CATALOGUE).sort());
    const classes = Object.fromEntries(RIGHT_NAMES.map((r) => [r, RIGHTS[r].class]));
    expect(classes).to.deep.equal(CATALOGUE);
    for (const r of RIGHT_NAMES) expect(RIGHTS[r].name).to.equal(r);
  });

  it('keeps the classes the seed states (2.4 table)', () => {
    expect(RIGHTS['domain.read'].class).to.equal(0);
    expect(RIGHTS['domain.renew'].class).to.equal(2);
    expect(RIGHTS['domain.nameservers'].class).to.equal(3);
    expect(RIGHTS['dns.edit'].class).to.equal(1);
    expect(RIGHTS['dns.acme_challenge'].class).to.equal(1);
    expect(RIGHTS['cert.issue'].class).to.equal(1);
    expect(RIGHTS['monitor.read'].class).to.equal(0);
    expect(RIGHTS['billing.topup'].class).to.equal(2);
  });

  it('implications: dns.edit ⊃ dns.read, cert.issue ⊃ cert.read, monitor.edit ⊃ monitor.read, billing.topup ⊃ billing.read, nothing else', () => {
    for (const r of RIGHT_NAMES) expect([...expandRight(r)].sort(), r).to.deep.equal([...EXPANSION[r]].sort());
    expect(grants('dns.edit', 'dns.read')).to.equal(true);
    expect(grants('cert.issue', 'cert.read')).to.equal(true);
    expect(grants('monitor.edit', 'monitor.read')).to.equal(true);
    expect(grants('billing.topup', 'billing.read')).to.equal(true);
  });

  it('implication goes one way only', () => {
    expect(grants('dns.read', 'dns.edit')).to.equal(false);
    expect(grants('cert.read', 'cert.issue')).to.equal(false);
    expect(grants('monitor.read', 'monitor.edit')).to.equal(false);
    expect(grants('billing.read', 'billing.topup')).to.equal(false);
  });

  it('dns.acme_challenge is narrow (seed 2.4): it grants neither dns.edit nor dns.read, and dns.edit does not grant it', () => {
    expect(grants('dns.acme_challenge', 'dns.edit')).to.equal(false);
    expect(grants('dns.acme_challenge', 'dns.read')).to.equal(false);
    expect(grants('dns.edit', 'dns.acme_challenge')).to.equal(false);
  });

  it('domain.lock never grants anything else (seed A7)', () => {
    expect([...expandRight('domain.lock')]).to.deep.equal(['domain.lock']);
  });

  it('the spending rights are exactly domain.register, domain.renew and billing.topup', () => {
    expect(RIGHT_NAMES.filter((r) => RIGHTS[r].spends).sort()).to.deep.equal(['billing.topup', 'domain.register', 'domain.renew']);
    expect(spendsMoney(['domain.read', 'billing.read'])).to.equal(false);
    expect(spendsMoney(['domain.read', 'domain.register'])).to.equal(true);
    expect(spendsMoney([])).to.equal(false);
  });

  it('billing rights concern the account, domain/dns/cert/monitor rights concern domains', () => {
    const account = RIGHT_NAMES.filter((r) => RIGHTS[r].scope === 'account').sort();
    expect(account).to.deep.equal(['billing.read', 'billing.topup', 'sandbox.clock', 'webhook.manage']);
    for (const r of RIGHT_NAMES.filter((x) => /^(domain|dns|cert|monitor)\./.test(x))) expect(RIGHTS[r].scope, r).to.equal('domain');
  });

  it('every right describes itself in Ukrainian and English', () => {
    for (const r of RIGHT_NAMES) {
      expect(RIGHTS[r].describe.uk, r).to.match(/[а-яіїєґ]/i);
      expect(RIGHTS[r].describe.en, r).to.match(/^[\x20-\x7e’<>]+$/);
      expect(RIGHTS[r].describe.uk).to.not.equal(RIGHTS[r].describe.en);
    }
  });

  it('isRightName accepts catalogue names and refuses others', () => {
    for (const r of RIGHT_NAMES) expect(isRightName(r), r).to.equal(true);
    expect(isRightName('dns.write')).to.equal(false);
    expect(isRightName('DNS.EDIT')).to.equal(false);
    expect(isRightName('')).to.equal(false);
    expect(isRightName(undefined)).to.equal(false);
    expect(isRightName(3)).to.equal(false);
  });

  // Regression guard (was a bug in core/access/rights.ts isRightName): `v in RIGHTS` also finds Object.prototype members, so
  // 'toString', 'constructor', 'hasOwnProperty' and '__proto__' pass as right names; IssueKey then
  // accepts e.g. rights: ['constructor'] (see test/unit/issue-key.test.ts). Fix: Object.hasOwn(RIGHTS, v).
  it('isRightName refuses Object.prototype member names', () => {
    for (const x of ['toString', 'constructor', 'hasOwnProperty', '__proto__', 'valueOf']) expect(isRightName(x), x).to.equal(false);
  });
});

describe('danger classes (seed A5, DESIGN)', () => {
  it("a key's class is its highest right's class", () => {
    expect(classOf([])).to.equal(0);
    expect(classOf(['domain.read', 'dns.read'])).to.equal(0);
    expect(classOf(['domain.read', 'dns.edit'])).to.equal(1);
    expect(classOf(['dns.edit', 'billing.topup', 'cert.read'])).to.equal(2);
    expect(classOf(['domain.lock', 'domain.read'])).to.equal(3);
    expect(classOf(['domain.read', 'domain.renew', 'domain.labels', 'dns.edit'])).to.equal(3);
    for (const r of RIGHT_NAMES) expect(classOf([r]), r).to.equal(CATALOGUE[r]);
  });

  it('caps lifetimes at 365, 180, 90 and 30 days', () => {
    expect([0, 1, 2, 3].map((c) => CLASSES[c as 0 | 1 | 2 | 3].maxLifetimeDays)).to.deep.equal([365, 180, 90, 30]);
  });

  it('requires an IP restriction of /8 or longer for classes 2 and 3 only', () => {
    expect([0, 1, 2, 3].map((c) => CLASSES[c as 0 | 1 | 2 | 3].ipRestrictionRequired)).to.deep.equal([false, false, true, true]);
    expect(MIN_CIDR_PREFIX).to.equal(8);
  });

  it('names the classes as the seed does, in both languages', () => {
    expect([0, 1, 2, 3].map((c) => CLASSES[c as 0 | 1 | 2 | 3].name.en)).to.deep.equal([
      'Read',
      'Reversible change',
      'Money',
      'Ownership and irreversible',
    ]);
    for (const c of [0, 1, 2, 3] as const) {
      expect(CLASSES[c].class).to.equal(c);
      expect(CLASSES[c].name.uk).to.match(/[а-яіїєґ]/i);
      expect(CLASSES[c].meaning.uk).to.match(/[а-яіїєґ]/i);
    }
  });
});

describe('the person key (console): members up to class 1, owners up to class 3', () => {
  const OWNER: Actor = { personId: 'person-0123456789abcdef', accountId: 'acc-1', role: 'owner' };
  const MEMBER: Actor = { personId: 'person-fedcba9876543210', accountId: 'acc-1', role: 'member' };
  const NOW = new Date('2026-11-21T10:00:00Z');
  const byClass = (max: number) => RIGHT_NAMES.filter((r) => CATALOGUE[r]! <= max);

  it('a member may use the rights of class 0 and 1 (class 1 included), an owner every right', () => {
    expect(maxClassOf(MEMBER)).to.equal(1);
    expect(maxClassOf(OWNER)).to.equal(3);
    expect(RIGHT_NAMES.filter((r) => personMay(MEMBER, r))).to.deep.equal(byClass(1));
    expect(RIGHT_NAMES.filter((r) => personMay(OWNER, r))).to.deep.equal([...RIGHT_NAMES]);
    expect(personMay(MEMBER, 'dns.edit'), "class 1 is the member's own maximum").to.equal(true);
    expect(personMay(MEMBER, 'domain.renew')).to.equal(false);
  });

  it("a member's live key: every class 0–1 right but the test-only one, over the domains named once, no condition, marked as the person", () => {
    const key = personKey({
      actor: MEMBER,
      environment: 'live',
      domains: ['a.example', 'b.example', 'a.example'],
      registerLabels: ['shop'],
      today: '2026-11-21',
      now: NOW,
    });
    const rights = byClass(1).filter((r) => r !== 'sandbox.clock');
    expect(key).to.deep.equal({
      id: 'ba9876543210', // the person id's last 12 characters
      accountId: 'acc-1',
      environment: 'live',
      name: 'console',
      createdBy: MEMBER.personId,
      // A member cannot register, so the labels to register with give no policy.
      policies: rights.map((right) => ({ right, resources: { domains: ['a.example', 'b.example'] } })),
      conditions: { cidr: null, expiresOn: '2026-11-21', spendLimit: null },
      class: 1,
      secretHash: '',
      createdAt: NOW,
      lastUsedAt: null,
      revokedAt: null,
      revokedBy: null,
      person: true,
    });
  });

  it("an owner's test key: every right, the test-only one too, and domain.register by each label to register with", () => {
    const key = personKey({
      actor: OWNER,
      environment: 'test',
      domains: ['a.example'],
      registerLabels: ['shop', 'blog'],
      today: '2026-11-22',
      now: NOW,
    });
    expect(key.id).to.equal('456789abcdef');
    expect(key.class).to.equal(3);
    expect(key.conditions.expiresOn).to.equal('2026-11-22');
    expect(key.policies).to.deep.equal([
      ...RIGHT_NAMES.map((right) => ({ right, resources: { domains: ['a.example'] } })),
      { right: 'domain.register', resources: { label: 'shop' } },
      { right: 'domain.register', resources: { label: 'blog' } },
    ]);
    const without = personKey({ actor: OWNER, environment: 'test', domains: [], today: '2026-11-22', now: NOW });
    expect(without.policies).to.deep.equal(RIGHT_NAMES.map((right) => ({ right, resources: { domains: [] } })));
  });
});
