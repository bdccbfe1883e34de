import type { Knex } from 'knex';
import { hostOfUrl, urlWithoutQuery } from '../../../core/kernel/url-parts.js';

/**
 * Events and notices recorded before webhook events carried only the endpoint's host (and monitor
 * events an HTTP URL without its query string) are rewritten to that shape, so no key reads an old
 * secret path or token from the log either.
 */
const WEBHOOK = ['webhook.created', 'webhook.updated', 'webhook.disabled'];
const MONITOR = ['monitor.created', 'monitor.updated', 'monitor.check_failed', 'monitor.check_recovered'];

const isUrl = (v: unknown): v is string => typeof v === 'string' && /^https?:\/\//i.test(v);

export async function up(knex: Knex): Promise<void> {
  const events = await knex('events')
    .whereIn('type', [...WEBHOOK, ...MONITOR])
    .select('id', 'type', 'data');
  for (const e of events as Array<{ id: string; type: string; data: string }>) {
    const data = JSON.parse(e.data) as Record<string, unknown>;
    const next = { ...data };
    if (WEBHOOK.includes(e.type) && 'url' in next) {
      delete next.url;
      next.host = isUrl(data.url) ? hostOfUrl(data.url) : '';
    }
    if (MONITOR.includes(e.type)) {
      if (isUrl(next.url)) next.url = urlWithoutQuery(next.url);
      if (isUrl(next.target)) next.target = urlWithoutQuery(next.target);
    }
    if (JSON.stringify(next) !== e.data)
      await knex('events')
        .where({ id: e.id })
        .update({ data: JSON.stringify(next) });
  }
  const notices = await knex('notices').where({ kind: 'webhook.disabled' }).select('id', 'data', 'message_uk', 'message_en');
  for (const n of notices as Array<{ id: string; data: string; message_uk: string; message_en: string }>) {
    const data = JSON.parse(n.data) as Record<string, unknown>;
    if (!isUrl(data.url)) continue;
    const url = data.url;
    const host = hostOfUrl(url);
    const { url: _url, ...rest } = data;
    await knex('notices')
      .where({ id: n.id })
      .update({
        data: JSON.stringify({ ...rest, host }),
        message_uk: n.message_uk.split(url).join(host),
        message_en: n.message_en.split(url).join(host),
      });
  }
}

export async function down(): Promise<void> {
  // The paths and query strings are gone on purpose; nothing to restore.
}
