import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { EventType } from '../../core/kernel/events.js';
import { WebhookIndex, wants, type WebhookTarget } from '../../core/webhooks/webhook.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { emitEvent } from './emit.js';

describe('Webhooks: the publisher’s index of endpoints answers as the rule does', () => {
  it('for every endpoint and event, an endpoint is found exactly when `wants` says it wants the event', () => {
    // A small deterministic generator (no Math.random: the case is the same on every run).
    let s = 42;
    const rnd = (n: number) => {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      return s % n;
    };
    const types = ['domain.renewed', 'monitor.created', 'certificate.issued', 'billing.topped_up'];
    const domains = ['a.dev', 'b.dev', 'c.com.ua', 'd.org.ua'];
    const pick = <T>(xs: readonly T[], min: number) => xs.filter(() => rnd(2) === 0).concat(min > 0 ? [xs[rnd(xs.length)]!] : []);
    const endpoints: WebhookTarget[] = Array.from({ length: 300 }, (_, i) => ({
      id: `w${i}`,
      accountId: `acc${rnd(2)}`,
      environment: rnd(2) === 0 ? ('test' as const) : ('live' as const),
      events: rnd(5) === 0 ? ['*'] : [...new Set(pick(types, 1))],
      domains: rnd(2) === 0 ? null : [...new Set(pick(domains, 1))],
      enabled: rnd(8) !== 0,
    }));
    const batchTypes = types.slice(0, 3); // billing.topped_up is not in the batch: nobody is filed under it
    const index = new WebhookIndex(endpoints, batchTypes);
    let reached = 0;
    for (let i = 0; i < 400; i++) {
      const accountId = `acc${rnd(2)}`;
      const environment = rnd(2) === 0 ? ('test' as const) : ('live' as const);
      const type = batchTypes[rnd(batchTypes.length)]!;
      const eventDomains = rnd(4) === 0 ? [] : [...new Set(pick(domains, 1))];
      const expected = endpoints
        .filter((w) => w.accountId === accountId && w.environment === environment && wants(w, type, eventDomains))
        .map((w) => w.id)
        .sort();
      const found = index
        .wanting(accountId, environment, type, eventDomains)
        .map((w) => w.id)
        .sort();
      expect(found, `${accountId}/${environment} ${type} [${eventDomains.join(', ')}]`).to.deep.equal(expected);
      reached += found.length;
    }
    expect(reached).to.be.greaterThan(100);
  });
});

eachStore('Webhooks: the publisher reads only the endpoints that want an event’s type', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { env: { WEBHOOKS_ALLOW_LOOPBACK: '1' } });
  });
  after(async () => api?.close());

  const emit = (type: EventType, data: Record<string, unknown>, subject: string) => emitEvent(api, type, subject, data);
  const publish = async () => {
    for (;;) if ((await api.system.get(TOKENS.PublishEvents).run()).taken === 0) return;
  };
  /** webhook id → the events it was queued. */
  const queued = async (eventIds: string[]) => {
    const rows: Array<{ webhook_id: string; event_id: string }> = await api.system.store
      .knex('webhook_deliveries')
      .whereIn('event_id', eventIds)
      .select('webhook_id', 'event_id');
    const out: Record<string, string[]> = {};
    for (const r of rows) (out[r.webhook_id] ??= []).push(r.event_id);
    for (const v of Object.values(out)) v.sort();
    return out;
  };

  it('by type, every type, domain; an endpoint whose types change, a deleted one; the same after the index is rebuilt from webhooks.events', async () => {
    const secret = (await api.issueKey({ environment: 'test', rights: ['webhook.manage'] })).secret;
    const key = (await api.system.get(TOKENS.AuthenticateKey).execute(secret, '127.0.0.1'))!;
    const manage = api.system.get(TOKENS.ManageWebhooks);
    const mk = async (events: string[], domains?: string[]) =>
      (await manage.create(key, { url: `http://127.0.0.1:9/${randomUUID()}`, events, ...(domains ? { domains } : {}) })).id;
    const renewed = await mk(['domain.renewed']);
    const all = await mk(['*']);
    const demoOnly = await mk(['domain.renewed', 'monitor.created'], ['domivka-demo.dev']);
    const changed = await mk(['domain.renewed']);
    await manage.update(key, changed, { events: ['monitor.created'] });
    const gone = await mk(['monitor.created']);
    await manage.delete(key, gone);
    await publish();

    const round = async () => {
      // Two batches, one type each: an endpoint is read only for the types it wants now.
      const m = await emit('monitor.created', { domain: 'domivka-blog.kyiv.ua', kind: 'domain_expiry' }, `monitor:${randomUUID()}`);
      const d = await emit('monitor.created', { domain: 'domivka-demo.dev', kind: 'domain_expiry' }, `monitor:${randomUUID()}`);
      await publish();
      const r = await emit('domain.renewed', { domain: 'domivka-demo.dev' }, 'domain:domivka-demo.dev');
      await publish();
      const byHook = await queued([r, m, d]);
      expect(byHook[renewed]).to.deep.equal([r]);
      expect(byHook[all]).to.deep.equal([r, m, d].sort());
      expect(byHook[demoOnly]).to.deep.equal([r, d].sort());
      expect(byHook[changed]).to.deep.equal([m, d].sort());
      expect(byHook[gone]).to.equal(undefined);
    };
    await round();

    // The migration fills the index from the endpoints' stored lists.
    const knex = api.system.store.knex;
    await knex.schema.dropTable('webhook_event_types');
    const { up } = await import('../../adapters/sql/migrations/20261127100000_webhook_event_types.js');
    await up(knex);
    await round();
  });
});
