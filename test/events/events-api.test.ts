import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { EventType } from '../../core/kernel/events.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/** GET /v1/events — the replayable log, cursor-ordered, filtered to what the key may see. */
eachStore('Event log API', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  const emit = async (type: EventType, subject: string, data: Record<string, unknown> = {}, environment: 'test' | 'live' = 'test') => {
    const s = api.system.store;
    const id = randomUUID();
    await s.uow.transaction(() =>
      s.events.append({ id, accountId: api.demo.accountId, environment, type, subject, actor: 'test', occurredAt: api.clock.now(), data }),
    );
    return id;
  };
  const publish = () => api.system.get(TOKENS.PublishEvents).run();
  const list = async (secret: string, q = '') => {
    const r = await api.call(`/v1/events${q}`, { headers: bearer(secret) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body as { data: any[]; next_cursor: string | null; has_more: boolean };
  };

  it('shows domain events only for domains the key may read, account events only with billing.read, never internal ones', async () => {
    const prod = (await api.issueKey({ environment: 'test', rights: ['dns.read'], label: 'prod' })).secret;
    const blog = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'billing.read'], domains: ['domivka-blog.kyiv.ua'] }))
      .secret;
    const a = await emit('domain.renewed', 'domain:domivka-demo.dev', { domain: 'domivka-demo.dev' });
    const b = await emit('domain.renewed', 'domain:domivka-blog.kyiv.ua', { domain: 'domivka-blog.kyiv.ua' });
    const c = await emit('billing.topup_succeeded', 'topup:t1', { amount: 10_000, provider_id: 'p' });
    const d = await emit('person.signed_in', 'person:p1');
    const e = await emit('certificate.issued', 'certificate:c1', { names: ['www.domivka-demo.dev', '*.domivka-demo.dev'] });
    const f = await emit('certificate.private_key_read', 'certificate:c1');
    const live = await emit('domain.renewed', 'domain:domivka-demo.dev', { domain: 'domivka-demo.dev' }, 'live');
    await publish();
    const p = (await list(prod)).data.map((x) => x.id);
    expect(p).to.include.members([a, e]);
    expect(p).to.not.include.members([b, c, d, f, live]);
    const q = (await list(blog)).data;
    expect(q.map((x) => x.id)).to.include.members([b, c]);
    expect(q.map((x) => x.id)).to.not.include.members([a, d, e, f]);
    const topup = q.find((x) => x.id === c);
    expect(topup).to.deep.include({
      type: 'billing.topped_up',
      environment: 'test',
      data: { topup_id: 't1', amount: 10_000, provider_id: 'p' },
    });
    expect(topup).to.not.have.property('domain');
    const cert = (await list(prod)).data.find((x) => x.id === e);
    expect(cert).to.include({ type: 'certificate.issued', domain: 'domivka-demo.dev' });
    expect(cert.data.certificate_id).to.equal('c1');
    expect(Object.keys(cert).sort()).to.deep.equal(['created_at', 'data', 'domain', 'environment', 'id', 'type']);
  });

  it('pages with a cursor in publish order, filters by types and domain, and keeps polling from next_cursor', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' })).secret;
    const start = (await list(k, '?limit=200')).next_cursor;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(
        await emit(
          i % 2 ? 'domain.renewed' : 'domain.auto_renew_changed',
          i % 3 ? 'domain:domivka-demo.dev' : 'domain:domivka-demo.com.ua',
          {},
        ),
      );
    await publish();
    const got: string[] = [];
    let cursor = start;
    for (let i = 0; i < 10; i++) {
      const page = await list(k, `?limit=3${cursor ? `&after=${cursor}` : ''}`);
      got.push(...page.data.map((x) => x.id));
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }
    expect(got).to.deep.equal(ids);
    const idle = await list(k, `?after=${cursor}`);
    expect(idle.data).to.deep.equal([]);
    expect(idle.next_cursor).to.equal(cursor);
    const renewed = await list(k, `?after=${start}&types=domain.renewed`);
    expect(renewed.data.map((x) => x.id)).to.deep.equal([ids[1], ids[3], ids[5]]);
    const com = await list(k, `?after=${start}&domain=domivka-demo.com.ua`);
    expect(com.data.map((x) => x.id)).to.deep.equal([ids[0], ids[3], ids[6]]);
    expect((await api.call('/v1/events?after=abc', { headers: bearer(k) })).body.error.code).to.equal('cursor_invalid');
    expect((await api.call('/v1/events?types=person.signed_in', { headers: bearer(k) })).body.error.code).to.equal('event_type_unknown');
  });

  it("a transaction that commits later is published later, never skipped (the cursor is the publisher's, not the insert sequence)", async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' })).secret;
    const start = (await list(k, '?limit=200')).next_cursor;
    const s = api.system.store;
    // An event inserted (seq taken) but not yet committed while a later one commits and is published.
    const late = randomUUID();
    const early = await emit('domain.renewed', 'domain:domivka-demo.dev');
    await publish();
    const seen1 = (await list(k, start ? `?after=${start}` : '')).data.map((x) => x.id);
    expect(seen1).to.deep.equal([early]);
    const c1 = (await list(k, start ? `?after=${start}` : '')).next_cursor;
    // It commits now, but its insert sequence is older than every published row (as a Postgres
    // transaction that took its sequence value early and committed late would be).
    await s.uow.transaction(() =>
      s.events.append({
        id: late,
        accountId: api.demo.accountId,
        environment: 'test',
        type: 'domain.renewed',
        subject: 'domain:domivka-demo.dev',
        actor: 't',
        occurredAt: api.clock.now(),
        data: {},
      }),
    );
    const min = Number((await s.knex('events').min({ m: 'seq' }))[0]!.m);
    await s
      .knex('events')
      .where({ id: late })
      .update({ seq: min - 1000 });
    await publish();
    const after = (await list(k, `?after=${c1}`)).data.map((x) => x.id);
    expect(after).to.deep.equal([late]);
  });

  it('an event about several domains is shown only to a key that sees every one of them, whether the store gets names or labels', async () => {
    const prod = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' })).secret;
    const both = (
      await api.issueKey({
        environment: 'test',
        policies: [
          { right: 'domain.read', resources: { label: 'prod' } },
          { right: 'cert.read', resources: { domains: ['domivka-blog.kyiv.ua'] } },
        ],
      })
    ).secret;
    const blog = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'blog' })).secret;
    await publish();
    const max = (await api.system.store.knex('events').max({ m: 'pub_seq' }))[0]!.m as string | number | null;
    const start = max === null ? null : String(max);
    const after = start ? `&after=${start}` : '';
    const two = await emit('certificate.issued', 'certificate:c2', { names: ['domivka-demo.dev', 'www.domivka-blog.kyiv.ua'] });
    const one = await emit('domain.renewed', 'domain:domivka-demo.com.ua', { domain: 'domivka-demo.com.ua' });
    const acct = await emit('billing.topup_succeeded', 'topup:t2', { amount: 10_000, provider_id: 'p' });
    await publish();
    expect((await list(prod, `?limit=200${after}`)).data.map((x) => x.id)).to.deep.equal([one]);
    expect((await list(blog, `?limit=200${after}`)).data.map((x) => x.id)).to.deep.equal([]);
    expect((await list(both, `?limit=200${after}`)).data.map((x) => x.id)).to.deep.equal([two, one]);

    // The same answers when the key sees more domains than the store is given by name (its labels then).
    const { ListEvents } = await import('../../core/events/list-events.use-case.js');
    const byLabels = new ListEvents(api.system.store.eventFeed, api.system.get(TOKENS.Visibility), 1);
    const auth = api.system.get(TOKENS.AuthenticateKey);
    const q = { limit: 200, ...(start ? { after: start } : {}) };
    const ids = async (secret: string) => (await byLabels.execute(await auth.execute(secret, '127.0.0.1'), q)).data.map((x) => x.id);
    expect(await ids(prod)).to.deep.equal([one]);
    expect(await ids(both)).to.deep.equal([two, one]);
    const owner = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'billing.read'], label: 'prod' })).secret;
    expect(await ids(owner)).to.deep.equal([one, acct]);
  });

  it('the worker keeps 30 days: older events are purged', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' })).secret;
    const old = await emit('domain.renewed', 'domain:domivka-demo.dev');
    await api.system.store
      .knex('events')
      .where({ id: old })
      .update({ occurred_at: new Date(api.clock.now().getTime() - 31 * 86_400_000).toISOString() });
    await publish();
    expect((await list(k, '?limit=200')).data.map((x) => x.id)).to.include(old);
    const { Worker } = await import('../../src/worker.js');
    await new Worker(api.system).tick(api.clock.now());
    expect((await list(k, '?limit=200')).data.map((x) => x.id)).to.not.include(old);
  });
});
