import { expect } from 'chai';
import type { RightName } from '../../core/kernel/rights.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { ListKeyNotices } from '../../core/notices/list-key-notices.use-case.js';
import type { Notice } from '../../core/notices/notice.js';
import type { NoticeRepository } from '../../core/notices/ports/notice-repository.port.js';
import { apiKeyFixture } from '../support/api-key.js';

/** 60 notices, newest first by id, about three domains and the account's billing; one copy per group. */
const notices: Notice[] = Array.from({ length: 60 }, (_, i) => {
  const n = 59 - i;
  const domain = n % 4 === 3 ? null : ['a.example', 'b.example', 'c.example'][n % 4]!;
  return {
    id: `n${String(n).padStart(3, '0')}`,
    groupId: `g${String(n).padStart(3, '0')}`,
    accountId: 'acc-1',
    environment: 'test',
    recipientId: 'p-1',
    kind: domain ? 'domain.renewed' : n % 8 === 3 ? 'billing.topped_up' : 'key.issued',
    domain,
    message: { uk: 'повідомлення', en: 'notice' },
    data: { n },
    createdAt: new Date(Date.UTC(2026, 10, 1, 0, n)),
  };
});

const repo = {
  listForAccount: async (_a: string, _e: string, after: string | undefined, limit: number) =>
    notices.filter((x) => after === undefined || x.id < after).slice(0, limit),
} as unknown as NoticeRepository;

/** Allows what the key's policies name, as the access rules would for these plain policies. */
const authorizer = {
  allows: async (key: ApiKey, right: RightName, domain?: string) =>
    key.policies.some(
      (p) => p.right === right && (domain === undefined || ('domains' in p.resources && p.resources.domains.includes(domain))),
    ),
};

async function all(key: ApiKey, limit: number): Promise<{ ids: string[]; calls: number }> {
  const list = new ListKeyNotices(repo, authorizer);
  const ids: string[] = [];
  let cursor: string | undefined;
  let calls = 0;
  do {
    const p = await list.execute(key, { ...(cursor ? { cursor } : {}), limit });
    calls++;
    expect(p.data.length).to.be.at.most(limit);
    ids.push(...p.data.map((n) => n.id));
    cursor = p.next_cursor ?? undefined;
  } while (cursor && calls < 100);
  return { ids, calls };
}

describe('notices: what a key sees (GET /v1/notices)', () => {
  it('a domain.read key for one domain pages through exactly that domain’s notices, by group id, newest first', async () => {
    const { ids } = await all(apiKeyFixture(), 4);
    const want = notices.filter((n) => n.domain === 'a.example').map((n) => n.groupId);
    expect(want).to.have.length(15);
    expect(ids).to.deep.equal(want);
  });

  it('billing notices need billing.read; account notices of other kinds are never a key’s', async () => {
    const key = apiKeyFixture({ policies: [{ right: 'billing.read', resources: { domains: [] } }] });
    const { ids } = await all(key, 50);
    expect(ids).to.deep.equal(notices.filter((n) => n.kind.startsWith('billing.')).map((n) => n.groupId));
    expect(ids.length).to.be.greaterThan(0);
  });

  it('a key that sees nothing gets empty pages and a cursor until the list ends, never a notice', async () => {
    const key = apiKeyFixture({ policies: [{ right: 'domain.read', resources: { domains: ['z.example'] } }] });
    const { ids, calls } = await all(key, 1);
    expect(ids).to.deep.equal([]);
    expect(calls).to.be.greaterThan(1); // 60 notices, 21 looked at per call
  });
});
