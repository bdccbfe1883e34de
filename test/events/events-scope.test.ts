import { expect } from 'chai';
import { ListEvents } from '../../core/events/list-events.use-case.js';
import type { EventType } from '../../core/kernel/events.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { emitEvent } from './emit.js';

/**
 * The event log filtered by what a key sees, read both ways the store is asked: by the key's domains'
 * names (a key that sees few) and by its policies' names and labels (a key that sees many) — the same
 * events, in the same order, across pages of any size; read newest first (the console's feed), the same
 * events in the reverse order.
 */
eachStore('Event log: the same events for a key whether the store filters by names or by scope', (kind) => {
  let api: TestApi;
  let byNames: ListEvents;
  let byScope: ListEvents;
  const domains = ['domivka-demo.com.ua', 'domivka-demo.dev', 'domivka-blog.kyiv.ua'];
  const ids: Record<string, string[]> = {};
  let start: string | undefined;
  before(async () => {
    api = await startApi(kind);
    byNames = new ListEvents(api.system.store.eventFeed, api.system.get(TOKENS.Visibility), 50);
    byScope = new ListEvents(api.system.store.eventFeed, api.system.get(TOKENS.Visibility), 1);
    await publish();
    const max = (await api.system.store.knex('events').max({ m: 'pub_seq' }))[0]!.m as string | number | null;
    start = max === null ? undefined : String(max);
    for (const d of domains) ids[d] = [];
    ids.account = [];
    // Interleaved: three domains' events and account events, five rounds.
    for (let i = 0; i < 5; i++) {
      for (const d of domains) ids[d]!.push(await emit('domain.renewed', `domain:${d}`, { domain: d }));
      ids.account!.push(await emit('billing.topup_succeeded', `topup:t${i}`, { amount: 100, provider_id: 'p' }));
    }
    await publish();
  });
  after(async () => api?.close());

  const emit = (type: EventType, subject: string, data: Record<string, unknown>) => emitEvent(api, type, subject, data);
  const publish = () => api.system.get(TOKENS.PublishEvents).run();
  const inOrder = (...lists: string[][]) => {
    const order = new Map<string, number>();
    const all = [...domains.flatMap((d) => ids[d]!), ...ids.account!];
    // Emitted round by round: the order of emission is the publish order.
    const emitted: string[] = [];
    for (let i = 0; i < 5; i++) emitted.push(...domains.map((d) => ids[d]![i]!), ids.account![i]!);
    emitted.forEach((id, i) => order.set(id, i));
    expect(all).to.have.length(emitted.length);
    return lists.flat().sort((a, b) => order.get(a)! - order.get(b)!);
  };
  /** Every page of `limit` from `start`, through `uc`: the ids in order; each cursor goes on where the last page stopped. */
  const walk = async (uc: ListEvents, secret: string, limit: number) => {
    const key = await api.system.get(TOKENS.AuthenticateKey).execute(secret, '127.0.0.1');
    const out: string[] = [];
    let after = start;
    for (let i = 0; i < 100; i++) {
      const page = await uc.execute(key, { limit, ...(after !== undefined ? { after } : {}) });
      expect(page.data.length).to.be.at.most(limit);
      out.push(...page.data.map((e) => e.id));
      if (!page.has_more) return out;
      after = page.next_cursor!;
    }
    throw new Error('the pages never ended');
  };
  /**
   * The same log newest first (the console's feed): every page of `limit` from the newest, going back with
   * `before`; this suite's events kept (the seed's are older, after them).
   */
  const walkBack = async (uc: ListEvents, secret: string, limit: number) => {
    const key = await api.system.get(TOKENS.AuthenticateKey).execute(secret, '127.0.0.1');
    const ours = new Set([...domains.flatMap((d) => ids[d]!), ...ids.account!]);
    const out: string[] = [];
    let before: string | undefined;
    for (let i = 0; i < 1000; i++) {
      const page = await uc.newestFirst(key, { limit, ...(before !== undefined ? { before } : {}) });
      expect(page.data.length).to.be.at.most(limit);
      out.push(...page.data.map((e) => e.id).filter((id) => ours.has(id)));
      if (!page.has_more) return out;
      before = page.next_cursor!;
    }
    throw new Error('the pages never ended');
  };
  const both = async (secret: string, expected: string[]) => {
    for (const limit of [1, 2, 7, 200]) {
      expect(await walk(byNames, secret, limit), `by names, limit ${limit}`).to.deep.equal(expected);
      expect(await walk(byScope, secret, limit), `by scope, limit ${limit}`).to.deep.equal(expected);
      expect(await walkBack(byNames, secret, limit), `newest first by names, limit ${limit}`).to.deep.equal([...expected].reverse());
      expect(await walkBack(byScope, secret, limit), `newest first by scope, limit ${limit}`).to.deep.equal([...expected].reverse());
    }
  };

  it('a key naming two domains sees their events only', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['domivka-demo.com.ua', 'domivka-blog.kyiv.ua'] }))
      .secret;
    await both(k, inOrder(ids['domivka-demo.com.ua']!, ids['domivka-blog.kyiv.ua']!));
  });

  it('a key reading one label sees that label’s domains only; with billing.read, account events too', async () => {
    const blog = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'blog' })).secret;
    await both(blog, inOrder(ids['domivka-blog.kyiv.ua']!));
    const billing = (
      await api.issueKey({
        environment: 'test',
        policies: [
          { right: 'domain.read', resources: { label: 'blog' } },
          { right: 'billing.read', resources: { label: 'blog' } },
        ],
      })
    ).secret;
    await both(billing, inOrder(ids['domivka-blog.kyiv.ua']!, ids.account!));
  });

  it('a label and a name together; a label no domain carries sees nothing of domains', async () => {
    const mixed = (
      await api.issueKey({
        environment: 'test',
        policies: [
          { right: 'monitor.read', resources: { label: 'blog' } },
          { right: 'cert.read', resources: { domains: ['domivka-demo.dev'] } },
        ],
      })
    ).secret;
    await both(mixed, inOrder(ids['domivka-blog.kyiv.ua']!, ids['domivka-demo.dev']!));
    const none = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'nowhere' })).secret;
    await both(none, []);
  });

  it('a right that is not a read right sees nothing, whichever way the store is asked', async () => {
    const renew = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], label: 'blog' })).secret;
    await both(renew, []);
  });
});
