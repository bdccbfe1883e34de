import type { ApiKey } from '../kernel/caller.js';
import type { Authorizer } from '../access/authorize.js';
import { filteredPage, memoized, type Page } from '../kernel/pagination.js';
import { viewNotice, type NoticeView } from './list-notices.use-case.js';
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
    // Most notices of a busy account may concern other domains: read on until a page is full.
    const readable = memoized((domain) => this.authorizer.allows(key, 'domain.read', domain));
    return filteredPage({
      cursor: opts.cursor,
      limit: opts.limit,
      fetch: (after, limit) => this.notices.listForAccount(key.accountId, key.environment, after, limit),
      sortKey: (n) => n.id,
      keep: (n) => (n.domain ? readable(n.domain) : this.billingVisible(key, n)),
      view: (n) => viewNotice(n, n.groupId),
    });
  }

  /** Access decides: domain.read on the notice's domain, or billing.read for billing notices. */
  private billingVisible(key: ApiKey, n: Notice): Promise<boolean> {
    return n.kind.startsWith('billing.') ? this.authorizer.allows(key, 'billing.read') : Promise.resolve(false);
  }
}
