import type { ApiKey } from '../kernel/caller.js';
import { allows, heldRights, namesDomain } from '../access/policy.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import type { NoticeView } from './list-notices.use-case.js';
import type { Notice } from './notice.js';
import type { NoticeRepository } from './ports/notice-repository.port.js';

/**
 * GET /v1/notices: what a key may see of the account's notices — those about domains it may read
 * (domain.read), and billing ones with billing.read. Notices about keys and people are the humans'.
 */
export class ListKeyNotices {
  constructor(
    private readonly notices: NoticeRepository,
    private readonly domains: DomainRepository,
  ) {}

  async execute(key: ApiKey, opts: { cursor?: string; limit?: number }): Promise<Page<NoticeView>> {
    const limit = clampLimit(opts.limit);
    const held = heldRights(key.policies);
    const out: Notice[] = [];
    let after = decodeCursor(opts.cursor);
    let more = true;
    let lastScanned: string | undefined;
    // Scan in batches until a page is full: most notices of a busy account may concern other domains.
    for (let rounds = 0; out.length <= limit && more && rounds < 20; rounds++) {
      const batch = await this.notices.listForAccount(key.accountId, key.environment, after, 100);
      more = batch.length === 100;
      for (const n of batch) {
        lastScanned = n.id;
        if (await this.visible(key, held, n)) out.push(n);
        if (out.length > limit) break;
      }
      after = lastScanned;
    }
    const page = out.slice(0, limit);
    return {
      data: page.map((n) => ({
        id: n.groupId,
        environment: n.environment,
        kind: n.kind,
        domain: n.domain,
        message: { ...n.message },
        data: { ...n.data },
        created_at: n.createdAt.toISOString(),
      })),
      next_cursor: out.length > limit ? encodeCursor(page[page.length - 1]!.id) : null,
    };
  }

  private async visible(key: ApiKey, held: Set<string>, n: Notice): Promise<boolean> {
    if (n.domain) {
      const d = await this.domains.find(key.accountId, key.environment, n.domain);
      return d
        ? allows(key.policies, 'domain.read', { kind: 'domain', name: d.name, labels: d.labels })
        : namesDomain(key.policies, 'domain.read', n.domain);
    }
    return n.kind.startsWith('billing.') && held.has('billing.read');
  }
}
