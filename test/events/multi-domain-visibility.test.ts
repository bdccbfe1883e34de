import { expect } from 'chai';
import { ListEvents } from '../../core/events/list-events.use-case.js';
import type { EventVisibility } from '../../core/events/ports/event-feed.port.js';
import type { EventType } from '../../core/kernel/events.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { emitEvent } from './emit.js';

/**
 * An event about several domains (a certificate for two of the account's domains) is visible to a key only
 * when the key may read every one of them — the rule of the certificates list — whichever domain comes first,
 * and the store itself answers so (its event_domains rows), in one read per page.
 */
eachStore('Event log: an event about several domains needs every one of them readable', (kind) => {
  let api: TestApi;
  let start: string | null = null;
  let demoFirst: string;
  let blogFirst: string;
  let demoOnly: string;
  const DEMO = 'domivka-demo.dev';
  const BLOG = 'domivka-blog.kyiv.ua';

  const emit = (type: EventType, subject: string, data: Record<string, unknown>) => emitEvent(api, type, subject, data);
  const publish = async () => {
    for (;;) if ((await api.system.get(TOKENS.PublishEvents).run()).taken === 0) return;
  };

  before(async () => {
    api = await startApi(kind);
    await publish();
    const max = (await api.system.store.knex('events').max({ m: 'pub_seq' }))[0]!.m as string | number | null;
    start = max === null ? null : String(max);
    demoFirst = await emit('certificate.issued', 'certificate:c1', {
      names: [`www.${DEMO}`, BLOG],
      serial: '01',
      issuer: 'x',
      not_after: 'x',
    });
    blogFirst = await emit('certificate.issued', 'certificate:c2', {
      names: [`*.${BLOG}`, DEMO],
      serial: '02',
      issuer: 'x',
      not_after: 'x',
    });
    demoOnly = await emit('domain.renewed', `domain:${DEMO}`, { domain: DEMO });
    await publish();
  });
  after(async () => api?.close());

  const page = (visible: EventVisibility['domains'], extra: { domain?: string } = {}) =>
    api.system.store.eventFeed.page({
      accountId: api.demo.accountId,
      environment: 'test',
      after: start,
      types: null,
      domain: extra.domain ?? null,
      visible: { domains: visible, accountTypes: [] },
      limit: 50,
    });
  const ids = async (visible: EventVisibility['domains'], extra: { domain?: string } = {}) => (await page(visible, extra)).map((e) => e.id);
  const scope = (names: string[], labels: string[] = []) => ({ scope: { all: false, names, labels } });

  it('the store returns such an event only for a key that may read all its domains (by names, by named scope, by label)', async () => {
    expect(await ids({ names: [DEMO] })).to.deep.equal([demoOnly]);
    expect(await ids({ names: [BLOG] })).to.deep.equal([]);
    expect(await ids({ names: [DEMO, BLOG] })).to.deep.equal([demoFirst, blogFirst, demoOnly]);
    expect(await ids(scope([DEMO]))).to.deep.equal([demoOnly]);
    expect(await ids(scope([BLOG]))).to.deep.equal([]);
    expect(await ids(scope([DEMO, BLOG]))).to.deep.equal([demoFirst, blogFirst, demoOnly]);
    expect(await ids(scope([], ['blog']))).to.deep.equal([]);
    expect(await ids(scope([BLOG], ['prod']))).to.deep.equal([demoFirst, blogFirst, demoOnly]);
    expect(await ids(scope([], ['prod']))).to.deep.equal([demoOnly]);
    expect(await ids({ scope: { all: true, names: [], labels: [] } })).to.deep.equal([demoFirst, blogFirst, demoOnly]);
    // ?domain= finds an event by any of its domains, the first or not.
    expect(await ids({ names: [DEMO, BLOG] }, { domain: BLOG })).to.deep.equal([demoFirst, blogFirst]);
    expect(await ids({ names: [DEMO] }, { domain: DEMO })).to.deep.equal([demoOnly]);
  });

  it('GET /v1/events: a key reading one of the two domains does not see the certificate’s events; a key reading both does', async () => {
    const list = async (secret: string) => {
      const r = await api.call(`/v1/events?limit=200${start ? `&after=${start}` : ''}`, { headers: bearer(secret) });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return (r.body.data as Array<{ id: string }>).map((e) => e.id);
    };
    const one = (await api.issueKey({ environment: 'test', rights: ['cert.read'], domains: [DEMO] })).secret;
    const other = (await api.issueKey({ environment: 'test', rights: ['cert.read'], domains: [BLOG] })).secret;
    const both = (await api.issueKey({ environment: 'test', rights: ['cert.read'], domains: [DEMO, BLOG] })).secret;
    expect(await list(one)).to.deep.equal([demoOnly]);
    expect(await list(other)).to.deep.equal([]);
    expect(await list(both)).to.deep.equal([demoFirst, blogFirst, demoOnly]);
  });

  it('a page is filled from one read: events the key may not see whole are not read and dropped, so they never leave a page short', async () => {
    const before = (await api.system.store.knex('events').max({ m: 'pub_seq' }))[0]!.m as string | number;
    const hidden: string[] = [];
    for (let i = 0; i < 12; i++)
      hidden.push(
        await emit('certificate.issued', `certificate:h${i}`, { names: [DEMO, BLOG], serial: `h${i}`, issuer: 'x', not_after: 'x' }),
      );
    const shown = await emit('domain.renewed', `domain:${DEMO}`, { domain: DEMO });
    await publish();
    const secret = (await api.issueKey({ environment: 'test', rights: ['cert.read'], domains: [DEMO] })).secret;
    const key = (await api.system.get(TOKENS.AuthenticateKey).execute(secret, '127.0.0.1'))!;
    for (const listed of [50, 0]) {
      const uc = new ListEvents(api.system.store.eventFeed, api.system.get(TOKENS.Visibility), listed);
      const first = await uc.execute(key, { limit: 1, after: String(before) });
      expect(
        first.data.map((e) => e.id),
        `listed up to ${listed}`,
      ).to.deep.equal([shown]);
    }
    expect(hidden).to.have.length(12);
  });

  it('the migration fills event_domains for events published before it, from their stored domains', async () => {
    const knex = api.system.store.knex;
    const rows = async () =>
      (await knex('event_domains').select('event_id', 'domain', 'pub_seq').orderBy(['event_id', 'domain'])).map((r) => ({
        ...r,
        pub_seq: String(r.pub_seq),
      }));
    const was = await rows();
    expect(was.filter((r) => r.event_id === demoFirst).map((r) => r.domain)).to.deep.equal([BLOG, DEMO].sort());
    await knex.schema.dropTable('event_domains');
    const { up } = await import('../../adapters/sql/migrations/20261127100100_event_domains.js');
    await up(knex);
    expect(await rows()).to.deep.equal(was);
    expect(await ids({ names: [DEMO] }))
      .to.include(demoOnly)
      .and.not.include(demoFirst);
  });
});
