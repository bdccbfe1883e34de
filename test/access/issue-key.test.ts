import type { NoticeDelivery, NoticeOutbox } from '../../core/notices/ports/notice-outbox.port.js';
import { expect } from 'chai';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Actor, Person } from '../../core/kernel/person.js';
import type { AccountRepository } from '../../core/accounts/ports/account-repository.port.js';
import { IssueKey, type IssueKeyInput } from '../../core/access/issue-key.use-case.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { checksumOf, parseToken } from '../../core/access/key-token.js';
import type { KeyRepository } from '../../core/access/ports/key-repository.port.js';
import type { SecretHasher } from '../../core/kernel/secret-hasher.port.js';
import { TEMPLATES } from '../../core/access/templates.js';
import type { DomainEvent } from '../../core/kernel/events.js';
import type { EventLog } from '../../core/kernel/event-log.port.js';
import type { Notice } from '../../core/notices/notice.js';
import { NotifyOwners } from '../../core/notices/notify-owners.js';
import { noticesOnEvent } from '../../core/notices/on-event.js';
import { Recorder } from '../../core/kernel/recorder.js';
import type { NoticeRepository } from '../../core/notices/ports/notice-repository.port.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { UnitOfWork } from '../../core/kernel/unit-of-work.port.js';
import { TestClock } from '../support/clock.js';
import { refusal } from '../support/refusal.js';

/* ---------- tiny in-memory fakes for IssueKey's ports ---------- */

/** Records every write and whether it happened inside a transaction. */
class FakeUnitOfWork implements UnitOfWork {
  inside = false;
  committed = 0;
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    this.inside = true;
    try {
      const r = await fn();
      this.committed++;
      return r;
    } finally {
      this.inside = false;
    }
  }
  afterCommit(fn: () => void) {
    fn();
  }
}

class FakeKeys implements KeyRepository {
  readonly rows: Array<{ key: ApiKey; inTransaction: boolean }> = [];
  constructor(private readonly uow: FakeUnitOfWork) {}
  async insert(key: ApiKey) {
    this.rows.push({ key: structuredClone(key), inTransaction: this.uow.inside });
  }
  async findById(id: string) {
    return this.rows.find((r) => r.key.id === id)?.key ?? null;
  }
  async findByTsigName(name: string) {
    return this.rows.find((r) => r.key.tsig?.name === name.toLowerCase())?.key ?? null;
  }
  async list() {
    return this.rows.map((r) => r.key);
  }
  async revoke() {
    return false;
  }
  async touchLastUsed() {}
  async setTsig() {
    return false;
  }
}

class FakeEvents implements EventLog {
  readonly rows: Array<{ event: DomainEvent; inTransaction: boolean }> = [];
  constructor(private readonly uow: FakeUnitOfWork) {}
  async append(event: DomainEvent) {
    this.rows.push({ event, inTransaction: this.uow.inside });
  }
}

class FakeNotices implements NoticeRepository {
  readonly rows: Array<{ notice: Notice; inTransaction: boolean }> = [];
  constructor(private readonly uow: FakeUnitOfWork) {}
  async insert(notices: readonly Notice[]) {
    for (const notice of notices) this.rows.push({ notice, inTransaction: this.uow.inside });
  }
  async listForPerson() {
    return [];
  }
  async listForAccount() {
    return [];
  }
}

/** Test-environment notices are in-app only: nothing is e-mailed (asserted below). */
class FakeOutbox implements NoticeOutbox {
  readonly enqueued: NoticeDelivery[] = [];
  async enqueue(d: readonly NoticeDelivery[]) {
    this.enqueued.push(...d);
  }
  async claimDue() {
    return [];
  }
  async markSent() {}
  async markFailed() {}
  async counts() {
    return { pending: this.enqueued.length, sent: 0, failed: 0 };
  }
}

const person = (id: string, role: 'owner' | 'member'): Person => ({
  id,
  accountId: 'acc-1',
  email: `${id}@example.com`,
  name: id,
  role,
  passwordHash: 'x',
  totpSecret: 'x',
  totpLastStep: null,
  lastSignInAt: null,
  createdAt: new Date(0),
});
const PEOPLE = [person('owner-1', 'owner'), person('owner-2', 'owner'), person('member-1', 'member')];

class FakeAccounts implements AccountRepository {
  async insertAccount() {}
  async findAccount() {
    return null;
  }
  async insertPerson() {}
  async findPersonByEmail() {
    return null;
  }
  async findPerson(id: string) {
    return PEOPLE.find((p) => p.id === id) ?? null;
  }
  async owners(accountId: string) {
    return PEOPLE.filter((p) => p.accountId === accountId && p.role === 'owner');
  }
  async recordSignIn() {
    return true;
  }
}

const PEPPER = Buffer.alloc(32, 7);
/** A real HMAC-SHA-256, as the node adapter does, so "only the HMAC is stored" is checked for real. */
const hasher: SecretHasher = {
  hmac: (s) => createHmac('sha256', PEPPER).update(s).digest('hex'),
  sha256: (s) => createHmac('sha256', Buffer.alloc(0)).update(s).digest('hex'),
  equal: (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b)),
  crc32: (t) => crc32(t),
};

/** Deterministic randomness: a different base62 string on every call. */
class FakeRandom implements Random {
  private n = 0;
  bytes(length: number) {
    return new Uint8Array(length).fill(++this.n % 256);
  }
  base62(length: number) {
    const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    const seed = ++this.n;
    return Array.from({ length }, (_, i) => B62[(seed * 7 + i * 13) % 62]).join('');
  }
  id() {
    return `id-${String(++this.n).padStart(6, '0')}`;
  }
}

/** Seals by reversing and tagging: enough to tell a sealed secret from the plain one. */
const box = { seal: (p: string) => `sealed:${[...p].reverse().join('')}`, open: (s: string) => [...s.slice(7)].reverse().join('') };

/* ---------- fixture ---------- */

/** 12:00 in Kyiv on Saturday 2026-11-21 (UTC+2). */
const NOW = new Date('2026-11-21T10:00:00Z');
const OWNER: Actor = { personId: 'owner-1', accountId: 'acc-1', role: 'owner' };
const MEMBER: Actor = { personId: 'member-1', accountId: 'acc-1', role: 'member' };

const setup = (now: Date = NOW) => {
  const uow = new FakeUnitOfWork();
  const keys = new FakeKeys(uow);
  const events = new FakeEvents(uow);
  const notices = new FakeNotices(uow);
  const clock = new TestClock(now);
  const random = new FakeRandom();
  const outbox = new FakeOutbox();
  const notify = new NotifyOwners({ accounts: new FakeAccounts(), notices, outbox, clock, random });
  // The owners' notice follows from the key.issued event, as the composition root wires it.
  const useCase = new IssueKey({
    keys,
    events: new Recorder(events, random).subscribe(noticesOnEvent(notify)),
    uow,
    hasher,
    random,
    clock,
    secretBox: box,
  });
  return { useCase, uow, keys, events, notices, clock, outbox };
};

const CLASS2: IssueKeyInput = {
  environment: 'test',
  name: 'Renewals bot',
  template: 'renewals',
  domains: ['domivka-demo.com.ua'],
  conditions: { cidr: '203.0.113.7/24', spend_limit: 50000 },
};

describe('IssueKey (seed A8, DESIGN: classes)', () => {
  describe('A8: template → domains → conditions → summary → issue', () => {
    it('a read-only template on named domains is a class 0 key valid 365 days', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, {
        environment: 'test',
        template: 'read_only',
        domains: ['domivka-demo.com.ua', 'domivka-demo.dev'],
      });
      expect(r.key.class).to.equal(0);
      expect(r.key.class_name).to.deep.equal({ uk: 'Читання', en: 'Read' });
      expect(r.key.policies).to.deep.equal(
        ['domain.read', 'dns.read', 'cert.read', 'monitor.read'].map((right) => ({
          right,
          resources: { domains: ['domivka-demo.com.ua', 'domivka-demo.dev'] },
        })),
      );
      expect(r.key.conditions).to.deep.equal({ cidr: null, expires_on: '2027-11-21', spend_limit: null });
      expect(r.key.status).to.equal('active');
      expect(r.key.name).to.equal('Read-only'); // unnamed keys take their template's title
    });

    it('a DNS-editor template on a label is class 1', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, { environment: 'test', template: 'dns_editor', label: 'prod' });
      expect(r.key.class).to.equal(1);
      expect(r.key.policies).to.deep.equal([
        { right: 'domain.read', resources: { label: 'prod' } },
        { right: 'dns.edit', resources: { label: 'prod' } },
      ]);
      expect(r.key.conditions.expires_on).to.equal('2027-05-20');
    });

    it('a renewals template with conditions is class 2; one class 3 right makes the key class 3', async () => {
      const { useCase } = setup();
      expect((await useCase.issue(OWNER, CLASS2)).key.class).to.equal(2);
      const r3 = await useCase.issue(OWNER, {
        environment: 'live',
        template: 'read_only',
        rights: ['domain.lock'],
        domains: ['domivka-demo.com.ua'],
        conditions: { cidr: '10.0.0.0/8' },
      });
      expect(r3.key.class).to.equal(3);
      expect(r3.key.class_name.en).to.equal('Ownership and irreversible');
      expect(r3.key.environment).to.equal('live');
    });

    it('preview shows the same draft and summary that issue then issues, and stores nothing', async () => {
      const { useCase, keys, events, notices } = setup();
      const draft = useCase.preview(OWNER, CLASS2);
      expect(keys.rows).to.have.length(0);
      expect(events.rows).to.have.length(0);
      expect(notices.rows).to.have.length(0);
      const issued = await useCase.issue(OWNER, CLASS2);
      expect(issued.summary).to.deep.equal(draft.summary);
      expect(issued.key.class).to.equal(draft.class);
      expect(issued.key.policies).to.deep.equal(draft.policies);
      expect(issued.key.conditions).to.deep.equal({
        cidr: '203.0.113.0/24',
        expires_on: '2027-02-19',
        spend_limit: { amount: 50000, currency: 'UAH' },
      });
      expect(draft.conditions).to.deep.equal({ cidr: '203.0.113.0/24', expiresOn: '2027-02-19', spendLimit: 50000 });
    });

    it('explicit policies may give each right its own selection', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, {
        environment: 'test',
        policies: [
          { right: 'dns.edit', resources: { domains: ['A.example.com'] } },
          { right: 'domain.read', resources: { label: 'prod' } },
          { right: 'billing.read', resources: {} },
        ],
      });
      expect(r.key.policies).to.deep.equal([
        { right: 'dns.edit', resources: { domains: ['a.example.com'] } },
        { right: 'domain.read', resources: { label: 'prod' } },
        { right: 'billing.read', resources: { domains: [] } },
      ]);
      expect(r.key.class).to.equal(1);
    });

    it('explicit policies exclude template, rights, domains and label', async () => {
      const { useCase } = setup();
      const e = await refusal(() =>
        useCase.preview(OWNER, {
          environment: 'test',
          template: 'read_only',
          policies: [{ right: 'domain.read', resources: { domains: ['a.example.com'] } }],
        }),
      );
      expect(e.code).to.equal('validation_failed');
      expect(e.details).to.deep.equal([{ field: '/policies', rule: 'exclusive' }]);
    });
  });

  describe('lifetime caps (DESIGN: 0 → 365, 1 → 180, 2 → 90, 3 → 30 days)', () => {
    const inputs: Array<[number, IssueKeyInput, string]> = [
      [0, { environment: 'test', rights: ['domain.read'], domains: ['a.example.com'] }, '2027-11-21'],
      [1, { environment: 'test', rights: ['dns.edit'], domains: ['a.example.com'] }, '2027-05-20'],
      [
        2,
        { environment: 'test', rights: ['domain.renew'], domains: ['a.example.com'], conditions: { cidr: '10.0.0.0/8', spend_limit: 100 } },
        '2027-02-19',
      ],
      [
        3,
        { environment: 'test', rights: ['domain.nameservers'], domains: ['a.example.com'], conditions: { cidr: '10.0.0.0/8' } },
        '2026-12-21',
      ],
    ];

    for (const [cls, input, cap] of inputs) {
      it(`class ${cls}: defaults to today + cap (${cap}), accepts the cap, refuses a day more`, () => {
        const { useCase } = setup();
        expect(useCase.preview(OWNER, input).conditions.expiresOn).to.equal(cap);
        const at = (expires_on: string): IssueKeyInput => ({ ...input, conditions: { ...input.conditions, expires_on } });
        expect(useCase.preview(OWNER, at(cap)).conditions.expiresOn).to.equal(cap);
        expect(useCase.preview(OWNER, at('2026-11-21')).conditions.expiresOn).to.equal('2026-11-21');
        const dayAfter = new Date(Date.parse(`${cap}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
        let e: unknown;
        try {
          useCase.preview(OWNER, at(dayAfter));
        } catch (x) {
          e = x;
        }
        expect(e).to.be.instanceOf(DomainError);
        expect((e as DomainError).code).to.equal('key_lifetime_exceeded');
        expect((e as DomainError).params).to.include({ class: cls, max_date: cap, expires_on: dayAfter });
      });
    }

    it('an expiry before today is expiry_in_past', async () => {
      const { useCase } = setup();
      const e = await refusal(() =>
        useCase.preview(OWNER, {
          environment: 'test',
          rights: ['domain.read'],
          domains: ['a.example.com'],
          conditions: { expires_on: '2026-11-20' },
        }),
      );
      expect(e.code).to.equal('expiry_in_past');
      expect(e.params).to.include({ expires_on: '2026-11-20', today: '2026-11-21' });
    });

    it('"today" is the Kyiv date: at 22:30 UTC it is already tomorrow', async () => {
      const { useCase } = setup(new Date('2026-11-21T22:30:00Z'));
      const input: IssueKeyInput = {
        environment: 'test',
        rights: ['domain.lock'],
        domains: ['a.example.com'],
        conditions: { cidr: '10.0.0.0/8' },
      };
      expect(useCase.preview(OWNER, input).conditions.expiresOn).to.equal('2026-12-22');
      const e = await refusal(() => useCase.preview(OWNER, { ...input, conditions: { cidr: '10.0.0.0/8', expires_on: '2026-11-21' } }));
      expect(e.code).to.equal('expiry_in_past');
    });

    it('an impossible date is a validation error', async () => {
      const { useCase } = setup();
      const e = await refusal(() =>
        useCase.preview(OWNER, {
          environment: 'test',
          rights: ['domain.read'],
          domains: ['a.example.com'],
          conditions: { expires_on: '2026-02-30' },
        }),
      );
      expect(e.code).to.equal('validation_failed');
      expect(e.details).to.deep.equal([{ field: '/conditions/expires_on', rule: 'format', value: '2026-02-30' }]);
    });
  });

  describe('IP restriction (DESIGN: classes 2 and 3 need /8 or longer)', () => {
    const lock = (cidr?: string | null): IssueKeyInput => ({
      environment: 'test',
      rights: ['domain.lock'],
      domains: ['a.example.com'],
      ...(cidr === undefined ? {} : { conditions: { cidr } }),
    });

    it('class 2 and 3 without a CIDR are ip_restriction_required', async () => {
      const { useCase } = setup();
      for (const input of [lock(), lock(null), lock(''), { ...CLASS2, conditions: { spend_limit: 100 } }]) {
        const e = await refusal(() => useCase.preview(OWNER, input));
        expect(e.code).to.equal('ip_restriction_required');
        expect(e.fact('min_prefix')).to.equal(8);
      }
    });

    it('/7 is ip_restriction_too_wide, /8 is enough', async () => {
      const { useCase } = setup();
      const e = await refusal(() => useCase.preview(OWNER, lock('10.0.0.0/7')));
      expect(e.code).to.equal('ip_restriction_too_wide');
      expect(e.params).to.include({ class: 3, cidr: '10.0.0.0/7', min_prefix: 8 });
      expect((await refusal(() => useCase.preview(OWNER, lock('0.0.0.0/0')))).code).to.equal('ip_restriction_too_wide');
      expect(useCase.preview(OWNER, lock('10.0.0.0/8')).conditions.cidr).to.equal('10.0.0.0/8');
      expect(useCase.preview(OWNER, lock('198.51.100.7/32')).conditions.cidr).to.equal('198.51.100.7/32');
    });

    it('the CIDR is stored normalised to its network address', () => {
      const { useCase } = setup();
      expect(useCase.preview(OWNER, lock('10.1.2.3/16')).conditions.cidr).to.equal('10.1.0.0/16');
    });

    it('classes 0 and 1 need none, and may have any, even /0', () => {
      const { useCase } = setup();
      expect(useCase.preview(OWNER, { environment: 'test', rights: ['dns.edit'], domains: ['a.example.com'] }).conditions.cidr).to.equal(
        null,
      );
      expect(
        useCase.preview(OWNER, {
          environment: 'test',
          rights: ['domain.read'],
          domains: ['a.example.com'],
          conditions: { cidr: '0.0.0.0/0' },
        }).conditions.cidr,
      ).to.equal('0.0.0.0/0');
    });

    it('an invalid CIDR is a validation error even where none is required', async () => {
      const { useCase } = setup();
      const e = await refusal(() =>
        useCase.preview(OWNER, {
          environment: 'test',
          rights: ['domain.read'],
          domains: ['a.example.com'],
          conditions: { cidr: '::1/128' },
        }),
      );
      expect(e.code).to.equal('validation_failed');
    });
  });

  describe('spend limit (DESIGN: any spending right requires one)', () => {
    for (const right of ['domain.register', 'domain.renew', 'billing.topup']) {
      it(`${right} without a spend limit is spend_limit_required`, async () => {
        const { useCase } = setup();
        const e = await refusal(() =>
          useCase.preview(OWNER, { environment: 'test', rights: [right], domains: ['a.example.com'], conditions: { cidr: '10.0.0.0/8' } }),
        );
        expect(e.code).to.equal('spend_limit_required');
      });
    }

    it('with a limit in kopiykas it is issued', () => {
      const { useCase } = setup();
      expect(useCase.preview(OWNER, CLASS2).conditions.spendLimit).to.equal(50000);
    });

    it('a limit must be a positive integer of kopiykas', async () => {
      const { useCase } = setup();
      for (const spend_limit of [0, -100, 12.5]) {
        const e = await refusal(() => useCase.preview(OWNER, { ...CLASS2, conditions: { cidr: '10.0.0.0/8', spend_limit } }));
        expect(e.code, String(spend_limit)).to.equal('validation_failed');
      }
    });

    it('class 3 rights that spend nothing need no limit', () => {
      const { useCase } = setup();
      expect(
        useCase.preview(OWNER, {
          environment: 'test',
          rights: ['domain.nameservers'],
          domains: ['a.example.com'],
          conditions: { cidr: '10.0.0.0/8' },
        }).conditions.spendLimit,
      ).to.equal(null);
    });
  });

  describe('who may issue (DESIGN: members only keys of class ≤ 1)', () => {
    it('a member issuing class 2 or 3 is role_forbidden, and nothing is stored', async () => {
      const { useCase, keys, events } = setup();
      const e2 = await refusal(useCase.issue(MEMBER, CLASS2));
      expect(e2.code).to.equal('role_forbidden');
      expect(e2.params).to.include({ class: 2, max_class: 1 });
      const e3 = await refusal(
        useCase.issue(MEMBER, {
          environment: 'test',
          rights: ['domain.lock'],
          domains: ['a.example.com'],
          conditions: { cidr: '10.0.0.0/8' },
        }),
      );
      expect(e3.code).to.equal('role_forbidden');
      expect(keys.rows).to.have.length(0);
      expect(events.rows).to.have.length(0);
    });

    it('a member may issue class 0 and 1 keys', async () => {
      const { useCase, keys } = setup();
      const r = await useCase.issue(MEMBER, { environment: 'test', template: 'dns_editor', domains: ['a.example.com'] });
      expect(r.key.class).to.equal(1);
      expect(r.key.created_by).to.equal('member-1');
      expect(keys.rows[0]!.key.createdBy).to.equal('member-1');
    });

    it('an owner may issue class 3', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, {
        environment: 'test',
        rights: ['domain.labels'],
        label: 'prod',
        conditions: { cidr: '10.0.0.0/8' },
      });
      expect(r.key.class).to.equal(3);
    });
  });

  describe('templates and selections', () => {
    for (const t of TEMPLATES) {
      it(`template ${t.id} expands to its rights`, () => {
        const { useCase } = setup();
        const needsCidr = ['billing', 'renewals', 'registrar'].includes(t.id);
        const draft = useCase.preview(OWNER, {
          environment: 'test',
          template: t.id,
          domains: ['a.example.com'],
          conditions: needsCidr ? { cidr: '10.0.0.0/8', spend_limit: 100 } : {},
        });
        expect(draft.policies.map((p) => p.right)).to.deep.equal([...t.rights]);
      });
    }

    it('template plus extra rights is their union, without duplicates', () => {
      const { useCase } = setup();
      const draft = useCase.preview(OWNER, {
        environment: 'test',
        template: 'dns_editor',
        rights: ['dns.edit', 'cert.read'],
        domains: ['a.example.com'],
      });
      expect(draft.policies.map((p) => p.right)).to.deep.equal(['domain.read', 'dns.edit', 'cert.read']);
    });

    it('an unknown template or right is a validation error', async () => {
      const { useCase } = setup();
      const t = await refusal(() => useCase.preview(OWNER, { environment: 'test', template: 'god_mode', domains: ['a.example.com'] }));
      expect(t.code).to.equal('validation_failed');
      expect(t.details).to.deep.equal([{ field: '/template', rule: 'enum', value: 'god_mode' }]);
      const r = await refusal(() =>
        useCase.preview(OWNER, { environment: 'test', rights: ['domain.read', 'dns.write'], domains: ['a.example.com'] }),
      );
      expect(r.details).to.deep.equal([{ field: '/rights/1', rule: 'enum', value: 'dns.write' }]);
      const none = await refusal(() => useCase.preview(OWNER, { environment: 'test', rights: [], domains: ['a.example.com'] }));
      expect(none.details).to.deep.equal([{ field: '/rights', rule: 'required' }]);
    });

    // Regression guard (was a bug in core/access/rights.ts isRightName uses `in`): 'constructor' passes as a right, so preview does not
    // answer validation_failed but crashes in summarise (RIGHTS['constructor'].describe is undefined →
    // TypeError → a 500). Lead to decide.
    it('a right named like an Object.prototype member is a validation error', async () => {
      const { useCase } = setup();
      const e = await refusal(() => useCase.preview(OWNER, { environment: 'test', rights: ['constructor'], domains: ['a.example.com'] }));
      expect(e.code).to.equal('validation_failed');
      expect(e.details).to.deep.equal([{ field: '/rights/0', rule: 'enum', value: 'constructor' }]);
    });

    it('domain-scoped rights without domains or a label are domains_required', async () => {
      const { useCase } = setup();
      for (const input of [
        { environment: 'test', rights: ['dns.edit'] },
        { environment: 'test', rights: ['dns.edit'], domains: [] },
        { environment: 'test', template: 'read_only' },
        { environment: 'test', rights: ['billing.read', 'domain.read'] },
        { environment: 'test', policies: [{ right: 'dns.edit', resources: {} }] },
      ] as IssueKeyInput[]) {
        expect((await refusal(() => useCase.preview(OWNER, input))).code, JSON.stringify(input)).to.equal('domains_required');
      }
    });

    it('a billing-only key needs no domains', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, {
        environment: 'test',
        template: 'billing',
        conditions: { cidr: '10.0.0.0/8', spend_limit: 100000 },
      });
      expect(r.key.class).to.equal(2);
      expect(r.key.policies).to.deep.equal([
        { right: 'billing.read', resources: { domains: [] } },
        { right: 'billing.topup', resources: { domains: [] } },
      ]);
      expect(useCase.preview(OWNER, { environment: 'test', rights: ['billing.read'] }).class).to.equal(0);
    });

    it('domain names are normalised (case, trailing dot, IDN) and deduplicated', () => {
      const { useCase } = setup();
      const draft = useCase.preview(OWNER, {
        environment: 'test',
        rights: ['domain.read'],
        domains: ['Example.COM.', 'example.com', 'приклад.укр'],
      });
      expect(draft.policies[0]!.resources).to.deep.equal({ domains: ['example.com', 'xn--80aikifvh.xn--j1amh'] });
    });

    it('an invalid domain is domain_invalid; a bad label or label plus domains is a validation error', async () => {
      const { useCase } = setup();
      expect(
        (await refusal(() => useCase.preview(OWNER, { environment: 'test', rights: ['domain.read'], domains: ['not a domain'] }))).code,
      ).to.equal('domain_invalid');
      const bad = await refusal(() => useCase.preview(OWNER, { environment: 'test', rights: ['domain.read'], label: 'Prod!' }));
      expect(bad.details).to.deep.equal([{ field: '/label', rule: 'pattern', value: 'Prod!' }]);
      const both = await refusal(() =>
        useCase.preview(OWNER, { environment: 'test', rights: ['domain.read'], label: 'prod', domains: ['a.example.com'] }),
      );
      expect(both.details).to.deep.equal([{ field: '/label', rule: 'exclusive' }]);
    });
  });

  describe('TSIG credential (DNS UPDATE): issued with a key holding a DNS right', () => {
    it('a key with dns.acme_challenge, dns.read or dns.edit gets a lower-case name, hmac-sha256 and a 32-octet secret, stored sealed', async () => {
      const { useCase, keys } = setup();
      const names = new Set<string>();
      for (const right of ['dns.acme_challenge', 'dns.read', 'dns.edit']) {
        const r = await useCase.issue(OWNER, { environment: 'test', rights: [right], domains: ['a.example.com'] });
        expect(r.tsig).to.not.equal(null);
        expect(r.tsig!.name).to.match(/^dmk-test-[0-9a-f]{20}$/);
        expect(r.tsig!.algorithm).to.equal('hmac-sha256');
        expect(Buffer.from(r.tsig!.secret, 'base64')).to.have.length(32);
        const stored = keys.rows.find((x) => x.key.id === r.key.id)!.key;
        expect(stored.tsig).to.deep.equal({ name: r.tsig!.name, algorithm: 'hmac-sha256', sealedSecret: box.seal(r.tsig!.secret) });
        expect(JSON.stringify(stored)).not.to.include(r.tsig!.secret);
        names.add(r.tsig!.name);
      }
      expect(names.size).to.equal(3);
    });

    it('hmac-sha512 on request (64-octet secret); another algorithm is refused; no credential without a DNS right', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, {
        environment: 'live',
        rights: ['dns.edit'],
        domains: ['a.example.com'],
        tsig_algorithm: 'hmac-sha512',
      });
      expect(r.tsig).to.include({ algorithm: 'hmac-sha512' });
      expect(r.tsig!.name).to.match(/^dmk-live-/);
      expect(Buffer.from(r.tsig!.secret, 'base64')).to.have.length(64);
      const md5 = await refusal(
        useCase.issue(OWNER, { environment: 'test', rights: ['dns.edit'], domains: ['a.example.com'], tsig_algorithm: 'hmac-md5' }),
      );
      expect(md5.code).to.equal('validation_failed');
      expect(md5.details).to.deep.equal([{ field: '/tsig_algorithm', rule: 'enum', value: 'hmac-md5' }]);
      const none = await useCase.issue(OWNER, { environment: 'test', rights: ['domain.read'], domains: ['a.example.com'] });
      expect(none.tsig).to.equal(null);
    });
  });

  describe('issuing', () => {
    it('returns a dmk_<env>_ key with a valid checksum whose id is the key id', async () => {
      const { useCase } = setup();
      const r = await useCase.issue(OWNER, { environment: 'test', rights: ['domain.read'], domains: ['a.example.com'] });
      expect(r.secret).to.match(/^dmk_test_[0-9A-Za-z]{50}$/);
      const parsed = parseToken(r.secret)!;
      expect(parsed.id).to.equal(r.key.id);
      expect(checksumOf(parsed.body, (t) => crc32(t))).to.equal(parsed.checksum);
      const live = await useCase.issue(OWNER, { environment: 'live', rights: ['domain.read'], domains: ['a.example.com'] });
      expect(live.secret).to.match(/^dmk_live_/);
      expect(live.key.id).to.not.equal(r.key.id);
    });

    it('stores only the HMAC of the key, never the key or its secret part', async () => {
      const { useCase, keys, events, notices } = setup();
      const r = await useCase.issue(OWNER, CLASS2);
      expect(keys.rows).to.have.length(1);
      const stored = keys.rows[0]!.key;
      expect(stored.secretHash).to.equal(hasher.hmac(r.secret));
      expect(stored.secretHash).to.match(/^[0-9a-f]{64}$/);
      const secretPart = r.secret.slice(21, 53);
      for (const written of [JSON.stringify(stored), JSON.stringify(events.rows), JSON.stringify(notices.rows), JSON.stringify(r.key)]) {
        expect(written).to.not.contain(r.secret);
        expect(written).to.not.contain(secretPart);
      }
    });

    it('stores the key as previewed, with creator, account and creation time', async () => {
      const { useCase, keys } = setup();
      const r = await useCase.issue(OWNER, CLASS2);
      const k = keys.rows[0]!.key;
      expect(k).to.deep.include({
        id: r.key.id,
        accountId: 'acc-1',
        environment: 'test',
        name: 'Renewals bot',
        createdBy: 'owner-1',
        class: 2,
        lastUsedAt: null,
        revokedAt: null,
        revokedBy: null,
      });
      expect(k.createdAt.toISOString()).to.equal(NOW.toISOString());
      expect(k.conditions).to.deep.equal({ cidr: '203.0.113.0/24', expiresOn: '2027-02-19', spendLimit: 50000 });
    });

    it('records a key.issued event inside the same transaction as the key', async () => {
      const { useCase, keys, events, uow } = setup();
      const r = await useCase.issue(OWNER, { environment: 'test', template: 'dns_editor', domains: ['a.example.com'] });
      expect(uow.committed).to.equal(1);
      expect(keys.rows[0]!.inTransaction).to.equal(true);
      expect(events.rows).to.have.length(1);
      expect(events.rows[0]!.inTransaction).to.equal(true);
      expect(events.rows[0]!.event).to.deep.include({
        accountId: 'acc-1',
        environment: 'test',
        type: 'key.issued',
        subject: `key:${r.key.id}`,
        actor: 'person:owner-1',
      });
      expect(events.rows[0]!.event.data).to.deep.equal({
        key_id: r.key.id,
        name: 'DNS editor',
        class: 1,
        rights: ['domain.read', 'dns.edit'],
        expires_on: '2027-05-20',
        cidr: null,
        spend_limit: null,
      });
    });
  });

  describe('owner notices (DESIGN: issuing a key of class ≥ 2 notifies every owner)', () => {
    it('a class 2 key notifies each owner once, in the same transaction, and no member', async () => {
      const { useCase, notices } = setup();
      const r = await useCase.issue(OWNER, CLASS2);
      expect(notices.rows.map((n) => n.notice.recipientId).sort()).to.deep.equal(['owner-1', 'owner-2']);
      for (const { notice, inTransaction } of notices.rows) {
        expect(inTransaction).to.equal(true);
        expect(notice).to.deep.include({ accountId: 'acc-1', environment: 'test', kind: 'key.issued', domain: null });
        expect(notice.data).to.deep.equal({ key_id: r.key.id, class: 2, issued_by: 'owner-1', issued_at: NOW.toISOString() });
        expect(notice.message.en)
          .to.contain(r.key.id)
          .and.contain('class 2')
          .and.contain('203.0.113.0/24')
          .and.contain('2027-02-19')
          .and.contain('500.00 UAH');
        expect(notice.message.uk)
          .to.contain(r.key.id)
          .and.contain('класу 2')
          .and.contain('203.0.113.0/24')
          .and.contain('2027-02-19')
          .and.contain('500.00 грн');
        expect(notice.createdAt.toISOString()).to.equal(NOW.toISOString());
      }
    });

    it('a class 3 key notifies the owners too', async () => {
      const { useCase, notices } = setup();
      await useCase.issue(OWNER, {
        environment: 'live',
        rights: ['domain.lock'],
        domains: ['a.example.com'],
        conditions: { cidr: '10.0.0.0/8' },
      });
      expect(notices.rows).to.have.length(2);
      expect(notices.rows[0]!.notice.environment).to.equal('live');
    });

    it('class 0 and class 1 keys notify nobody', async () => {
      const { useCase, notices } = setup();
      await useCase.issue(OWNER, { environment: 'test', template: 'read_only', domains: ['a.example.com'] });
      await useCase.issue(MEMBER, { environment: 'test', template: 'dns_editor', label: 'prod' });
      expect(notices.rows).to.deep.equal([]);
    });
  });

  describe('plain-language summary (seed A8)', () => {
    it('class 2 on named domains: domains, expiry, CIDR, spend limit and class name in uk and en', () => {
      const { useCase } = setup();
      const { summary } = useCase.preview(OWNER, { ...CLASS2, domains: ['domivka-demo.com.ua', 'domivka-demo.dev'] });
      expect(summary.en)
        .to.contain('domivka-demo.com.ua, domivka-demo.dev')
        .and.contain('2027-02-19')
        .and.contain('203.0.113.0/24')
        .and.contain('500.00 UAH')
        .and.contain('"Money"')
        .and.contain('All owners of the account will be notified');
      expect(summary.uk)
        .to.contain('domivka-demo.com.ua, domivka-demo.dev')
        .and.contain('2027-02-19')
        .and.contain('203.0.113.0/24')
        .and.contain('500.00 грн')
        .and.contain('«Гроші»')
        .and.contain('сповіщення всі власники');
      expect(summary.en).to.contain('test environment');
      expect(summary.uk).to.contain('тестовому середовищі');
      expect(summary.lines.en.join('\n')).to.equal(summary.en);
      expect(summary.lines.uk.join('\n')).to.equal(summary.uk);
      expect(summary.lines.uk).to.have.length(summary.lines.en.length);
    });

    it('class 1 on a label: the label, no CIDR, no spend limit, no owner notice', () => {
      const { useCase } = setup();
      const { summary } = useCase.preview(OWNER, { environment: 'live', template: 'dns_editor', label: 'prod' });
      expect(summary.en)
        .to.contain('on domains labelled "prod"')
        .and.contain('2027-05-20')
        .and.contain('Works from any IP address')
        .and.contain('"Reversible change"')
        .and.contain('live environment');
      expect(summary.uk)
        .to.contain('на доменах з міткою «prod»')
        .and.contain('2027-05-20')
        .and.contain('з будь-якої IP-адреси')
        .and.contain('«Зворотна зміна»')
        .and.contain('робочому середовищі');
      expect(summary.en).to.not.contain('UAH');
      expect(summary.en).to.not.contain('notified');
      expect(summary.uk).to.not.contain('грн');
    });

    it('names every right, and says account-wide for billing rights', () => {
      const { useCase } = setup();
      const { summary } = useCase.preview(OWNER, { environment: 'test', rights: ['dns.edit', 'billing.read'], domains: ['a.example.com'] });
      expect(summary.en).to.contain('(dns.edit)').and.contain('(billing.read)').and.contain('for the whole account');
      expect(summary.uk).to.contain('(dns.edit)').and.contain('(billing.read)').and.contain('для всього рахунку');
      expect(summary.en).to.contain('on domains a.example.com');
    });
  });
});

describe('IssueKey: names, test-only rights, explicit policies and their refusals', () => {
  it('a test-only right is right_test_only on a live key, naming it; a test key may hold it', async () => {
    const { useCase, keys } = setup();
    const e = await refusal(() =>
      useCase.preview(OWNER, { environment: 'live', rights: ['domain.read', 'sandbox.clock'], domains: ['a.example'] }),
    );
    expect(e.code).to.equal('right_test_only');
    expect(e.params).to.deep.equal({ right: 'sandbox.clock' });
    expect(await refusal(useCase.issue(OWNER, { environment: 'live', rights: ['sandbox.clock'] }))).to.have.property(
      'code',
      'right_test_only',
    );
    expect(keys.rows).to.have.length(0);
    expect(useCase.preview(OWNER, { environment: 'test', rights: ['sandbox.clock'] }).policies).to.deep.equal([
      { right: 'sandbox.clock', resources: { domains: [] } },
    ]);
  });

  it("a key's name: trimmed and cut to 100 characters; blank, the template's title; with neither, its rights once each", () => {
    const { useCase } = setup();
    const base: IssueKeyInput = { environment: 'test', rights: ['domain.read', 'dns.read', 'domain.read'], domains: ['a.example'] };
    expect(useCase.preview(OWNER, { ...base, name: '  CI deploy  ' }).name).to.equal('CI deploy');
    expect(useCase.preview(OWNER, { ...base, name: ` ${'n'.repeat(150)}` }).name).to.equal('n'.repeat(100));
    expect(useCase.preview(OWNER, { ...base, name: '   ', template: 'read_only' }).name).to.equal('Read-only');
    expect(useCase.preview(OWNER, { ...base, name: '   ' }).name).to.equal('domain.read, dns.read');
    expect(useCase.preview(OWNER, base).name).to.equal('domain.read, dns.read');
  });

  it('a key holding a DNS right beside others gets a TSIG credential', async () => {
    const { useCase, keys } = setup();
    const issued = await useCase.issue(OWNER, { environment: 'test', rights: ['domain.read', 'dns.edit'], domains: ['a.example'] });
    expect(issued.tsig?.algorithm).to.equal('hmac-sha256');
    expect(keys.rows[0]!.key.tsig?.name).to.equal(issued.tsig?.name);
  });

  it('an empty list of policies is no list: the rights and domains given are used', () => {
    const { useCase } = setup();
    const draft = useCase.preview(OWNER, { environment: 'test', policies: [], rights: ['domain.read'], domains: ['a.example'] });
    expect(draft.policies).to.deep.equal([{ right: 'domain.read', resources: { domains: ['a.example'] } }]);
  });

  it("an explicit policy's unknown right, or bad selection, is a validation error pointing into that policy", async () => {
    const { useCase } = setup();
    const policies = [
      { right: 'domain.read', resources: { domains: ['a.example'] } },
      { right: 'dns.write', resources: { domains: ['a.example'] } },
    ];
    const unknown = await refusal(() => useCase.preview(OWNER, { environment: 'test', policies }));
    expect(unknown.code).to.equal('validation_failed');
    expect(unknown.details).to.deep.equal([{ field: '/policies/1/right', rule: 'enum', value: 'dns.write' }]);
    const badLabel = await refusal(() =>
      useCase.preview(OWNER, { environment: 'test', policies: [{ right: 'dns.read', resources: { label: 'Not A Label!' } }] }),
    );
    expect(badLabel.details).to.deep.equal([{ field: '/policies/0/resources/label', rule: 'pattern', value: 'Not A Label!' }]);
  });

  it('a spend limit that is not a positive integer points at /conditions/spend_limit with the rule minimum', async () => {
    const { useCase } = setup();
    const e = await refusal(() => useCase.preview(OWNER, { ...CLASS2, conditions: { cidr: '10.0.0.0/8', spend_limit: 0 } }));
    expect(e.details).to.deep.equal([{ field: '/conditions/spend_limit', rule: 'minimum', value: 0 }]);
  });

  it('the summary, line by line: environment, "the key may", each right, expiry, address, limit, class, and for class ≥ 2 the owner notice last', () => {
    const { useCase } = setup();
    const two = useCase.preview(OWNER, CLASS2).summary.lines;
    expect(two.en[1]).to.equal('The key may:');
    expect(two.uk[1]).to.equal('Ключ може:');
    expect(two.en.at(-1)).to.equal('All owners of the account will be notified that this key was issued.');
    expect(two.uk.at(-1)).to.equal('Про випуск цього ключа отримають сповіщення всі власники рахунку.');
    const one = useCase.preview(OWNER, { environment: 'test', template: 'dns_editor', label: 'prod' }).summary.lines;
    expect(one.en[1]).to.equal('The key may:');
    expect(one.uk[1]).to.equal('Ключ може:');
    expect(one.en.at(-1)).to.match(/^Danger class 1 — /);
    expect(one.uk.at(-1)).to.match(/^Клас небезпеки 1 — /);
  });
});
