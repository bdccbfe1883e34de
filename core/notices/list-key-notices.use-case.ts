import type { ApiKey } from '../kernel/caller.js';
import type { Authorizer } from '../access/authorize.js';
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
    private readonly authorizer: Pick<Authorizer, 'allows'>,
  ) {}

  async execute(key: ApiKey, opts: { cursor?: string; limit?: number }): Promise<Page<NoticeView>> {
    const limit = clampLimit(opts.limit);
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
        if (await this.visible(key, n)) out.push(n);
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

  /** Access decides: domain.read on the notice's domain, or billing.read for billing notices. */
  private visible(key: ApiKey, n: Notice): Promise<boolean> {
    if (n.domain) return this.authorizer.allows(key, 'domain.read', n.domain);
    return n.kind.startsWith('billing.') ? this.authorizer.allows(key, 'billing.read') : Promise.resolve(false);
  }
}
