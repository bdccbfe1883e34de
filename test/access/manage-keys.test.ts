import { expect } from 'chai';
import { apiKeyFixture } from '../support/api-key.js';
import { DescribeKey } from '../../core/access/describe-key.use-case.js';
import { ListKeys, RevokeKey } from '../../core/access/manage-keys.use-case.js';
import type { KeyListQuery, KeyRepository } from '../../core/access/ports/key-repository.port.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { EventFacts } from '../../core/kernel/event-log.port.js';
import { decodeCursor } from '../../core/kernel/pagination.js';
import type { Actor } from '../../core/kernel/person.js';
import type { Random } from '../../core/kernel/random.port.js';

/**
 * Listing, revoking and describing keys as use cases, on an in-memory repository (issue 20: these rules were
 * reached only by the HTTP suites, with no assertion on them): who sees and revokes which key, the pages,
 * the key.revoked event once, and the month's remaining spend.
 */

const NOW = new Date('2026-11-20T12:00:00Z');
const clock = { now: () => NOW };

const key = (id: string, over: Partial<ApiKey> = {}): ApiKey => apiKeyFixture({ id, name: `key ${id}`, createdBy: 'p-owner', ...over });

class MemoryKeys implements KeyRepository {
  readonly keys = new Map<string, ApiKey>();
  readonly revokes: string[] = [];
  readonly queries: KeyListQuery[] = [];
  constructor(keys: ApiKey[]) {
    for (const k of keys) this.keys.set(k.id, k);
  }
  async insert(k: ApiKey): Promise<void> {
    this.keys.set(k.id, k);
  }
  async findById(id: string): Promise<ApiKey | null> {
    return this.keys.get(id) ?? null;
  }
  async findByTsigName(): Promise<ApiKey | null> {
    return null;
  }
  async list(q: KeyListQuery): Promise<ApiKey[]> {
    this.queries.push(q);
    return [...this.keys.values()]
      .filter((k) => k.accountId === q.accountId && (q.createdBy === undefined || k.createdBy === q.createdBy))
      .filter((k) => q.after === undefined || k.id > q.after)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, q.limit);
  }
  async revoke(id: string, at: Date, by: string): Promise<boolean> {
    const k = this.keys.get(id);
    if (!k || k.revokedAt) return false;
    this.revokes.push(id);
    this.keys.set(id, { ...k, revokedAt: at, revokedBy: by });
    return true;
  }
  async touchLastUsed(): Promise<void> {}
  async setTsig(): Promise<boolean> {
    return false;
  }
}

const owner: Actor = { personId: 'p-owner', accountId: 'acc-1', role: 'owner' };
const member: Actor = { personId: 'p-member', accountId: 'acc-1', role: 'member' };

const KEYS = () => [
  key('k1'),
  key('k2', { createdBy: 'p-member' }),
  key('k3'),
  key('k4', { createdBy: 'p-member' }),
  key('k9', { accountId: 'acc-2', createdBy: 'p-other' }),
];

const revoking = (keys: MemoryKeys) => {
  const events: Array<{ type: string; facts: EventFacts; data: unknown }> = [];
  const use = new RevokeKey({
    keys,
    clock,
    events: {
      record: async (type, facts, data) => {
        events.push({ type, facts, data });
      },
    },
    uow: { transaction: (fn) => fn(), afterCommit: (fn) => fn() },
    random: {} as Random,
  });
  return { use, events };
};

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    return e instanceof DomainError ? `${e.code} ${JSON.stringify(e.params)}` : `other: ${String(e)}`;
  }
  return 'none';
};

describe('keys as use cases: list, revoke, describe (issue 20)', () => {
  describe('ListKeys', () => {
    it('an owner lists every key of the account, a member only the keys they issued', async () => {
      const keys = new MemoryKeys(KEYS());
      const list = new ListKeys(keys, clock);
      expect((await list.execute(owner, {})).data.map((k) => k.id)).to.deep.equal(['k1', 'k2', 'k3', 'k4']);
      expect((await list.execute(member, {})).data.map((k) => k.id)).to.deep.equal(['k2', 'k4']);
      // The query names the issuer for a member only, and a position only with a cursor.
      expect(keys.queries).to.deep.equal([
        { accountId: 'acc-1', limit: 51 },
        { accountId: 'acc-1', createdBy: 'p-member', limit: 51 },
      ]);
    });

    it('pages: a cursor naming the last key of a full page, none when the rest fits', async () => {
      const list = new ListKeys(new MemoryKeys(KEYS()), clock);
      const first = await list.execute(owner, { limit: 3 });
      expect(first.data.map((k) => k.id)).to.deep.equal(['k1', 'k2', 'k3']);
      expect(decodeCursor(first.next_cursor!)).to.equal('k3');
      const second = await list.execute(owner, { limit: 3, cursor: first.next_cursor! });
      expect(second.data.map((k) => k.id)).to.deep.equal(['k4']);
      expect(second.next_cursor).to.equal(null);
      // Exactly a page's worth: no next page.
      expect((await list.execute(owner, { limit: 4 })).next_cursor).to.equal(null);
    });
  });

  describe('RevokeKey', () => {
    it("another account's key, an unknown key and, for a member, someone else's key are not found", async () => {
      const { use, events } = revoking(new MemoryKeys(KEYS()));
      expect(await codeOf(use.execute(owner, 'k9'))).to.equal('key_not_found {"key_id":"k9"}');
      expect(await codeOf(use.execute(owner, 'nope'))).to.equal('key_not_found {"key_id":"nope"}');
      expect(await codeOf(use.execute(member, 'k1'))).to.equal('key_not_found {"key_id":"k1"}');
      expect(events).to.deep.equal([]);
    });

    it('a member revokes their own key, an owner any key of the account', async () => {
      const keys = new MemoryKeys(KEYS());
      const { use } = revoking(keys);
      expect((await use.execute(member, 'k2')).status).to.equal('revoked');
      expect((await use.execute(owner, 'k4')).status).to.equal('revoked');
      expect(keys.keys.get('k4')!.revokedBy).to.equal('p-owner');
    });

    it('records key.revoked once, with its subject and actor; revoking again changes nothing', async () => {
      const keys = new MemoryKeys(KEYS());
      const { use, events } = revoking(keys);
      const first = await use.execute(owner, 'k2');
      const again = await use.execute(owner, 'k2');
      expect(again).to.deep.equal(first);
      expect(keys.revokes).to.deep.equal(['k2']);
      expect(events).to.deep.equal([
        {
          type: 'key.revoked',
          facts: { accountId: 'acc-1', environment: 'test', subject: 'key:k2', actor: 'person:p-owner', occurredAt: NOW },
          data: { key_id: 'k2' },
        },
      ]);
    });
  });

  describe('DescribeKey', () => {
    const describeWith = (spent: number, spendLimit: number | null) =>
      new DescribeKey({ spent: async () => spent, reserve: async () => false, release: async () => {} }, clock).execute(
        key('k1', { conditions: { cidr: null, expiresOn: '2026-12-31', spendLimit } }),
      );

    it('the month’s spend: remaining is the limit less what was spent, never below zero, null without a limit', async () => {
      expect((await describeWith(2500, 10000)).spend).to.deep.equal({
        month: '2026-11',
        used: { amount: 2500, currency: 'UAH' },
        limit: { amount: 10000, currency: 'UAH' },
        remaining: { amount: 7500, currency: 'UAH' },
      });
      expect((await describeWith(12000, 10000)).spend.remaining).to.deep.equal({ amount: 0, currency: 'UAH' });
      expect((await describeWith(2500, null)).spend).to.deep.equal({
        month: '2026-11',
        used: { amount: 2500, currency: 'UAH' },
        limit: null,
        remaining: null,
      });
    });
  });
});
