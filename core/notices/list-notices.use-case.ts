import type { Actor } from '../kernel/person.js';
import type { Environment } from '../kernel/environment.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import type { Notice } from './notice.js';
import type { NoticeRepository } from './ports/notice-repository.port.js';

export interface NoticeView {
  id: string;
  environment: Environment;
  kind: string;
  domain: string | null;
  message: { uk: string; en: string };
  data: Record<string, unknown>;
  created_at: string;
}

/** A notice as answered; `id` is the notice's own for a person, its group's (one per event) for a key. */
export const viewNotice = (n: Notice, id: string = n.id): NoticeView => ({
  id,
  environment: n.environment,
  kind: n.kind,
  domain: n.domain,
  message: { ...n.message },
  data: { ...n.data },
  created_at: n.createdAt.toISOString(),
});

/** The signed-in person's notices, newest first. */
export class ListNotices {
  constructor(private readonly notices: NoticeRepository) {}

  async execute(actor: Actor, opts: { environment?: Environment; cursor?: string; limit?: number }): Promise<Page<NoticeView>> {
    const limit = clampLimit(opts.limit);
    const rows = await this.notices.listForPerson(actor.personId, opts.environment, decodeCursor(opts.cursor), limit + 1);
    const page = rows.slice(0, limit);
    return { data: page.map((n) => viewNotice(n)), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null };
  }
}
