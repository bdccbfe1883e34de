import { expect } from 'chai';
import { TOKENS } from '../../src/tokens.js';
import { emitEvent } from '../events/emit.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp, type ConsoleAnswer } from './http.js';

/**
 * The console's event feed shows each event's data as a person reads it: texts in the page's language, lists
 * item by item, objects by their fields — never "[object Object]" (a browser walk saw it for an operation's
 * warnings). It lists the newest first, as a person expects of a feed, and pages on to older events.
 */
eachStore('Console: the event feed’s data', (kind) => {
  let api: TestApi;
  let cookie = '';
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    cookie = await api.signIn();
    await emitEvent(api, 'operation.pending', 'operation:op_feed', {
      operation_id: 'op_feed',
      kind: 'nameservers',
      domain: 'domivka-demo.com.ua',
      status: 'pending',
      activates_at: '2026-11-29T10:00:00.000Z',
      nameservers: ['ns1.elsewhere.example', 'ns2.elsewhere.example'],
      warnings: ['delegation_leaves'],
      warning_messages: [{ uk: 'Домен піде з наших серверів імен.', en: 'The domain leaves our nameservers.' }],
    });
    // The feed lists events once the publisher has numbered them.
    while ((await api.system.get(TOKENS.PublishEvents).run()).taken > 0);
  });
  after(async () => {
    await api?.close();
  });

  const row = async (lang: 'uk' | 'en') => {
    const page = await consoleHttp(api).get('/console/events?type=operation.pending', cookie, lang);
    expect(page.status).to.equal(200);
    const m = /<td class="mono"[^>]*>([\s\S]*?)<\/td>/.exec(page.text);
    expect(m, page.text.slice(0, 2000)).to.not.equal(null);
    return m![1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  };

  it('an operation’s warnings in the page’s language, its nameservers as a list', async () => {
    const en = await row('en');
    expect(en).to.contain('warning_messages: The domain leaves our nameservers.');
    expect(en).to.contain('nameservers: ns1.elsewhere.example; ns2.elsewhere.example');
    expect(en).not.to.contain('[object Object]');
    expect(await row('uk')).to.contain('warning_messages: Домен піде з наших серверів імен.');
  });

  it('newest at the top; "Older" goes on to older events, "Newer" comes back, and the pages join up', async () => {
    const domain = 'domivka-demo.com.ua';
    for (let i = 0; i < 60; i++) await emitEvent(api, 'domain.renewed', `domain:${domain}`, { domain, mark: `m${i}` });
    while ((await api.system.get(TOKENS.PublishEvents).run()).taken > 0);
    const marks = (page: ConsoleAnswer) => [...page.text.matchAll(/mark:<\/span> (m\d+)/g)].map((m) => m[1]!);
    const link = (page: ConsoleAnswer, label: string) => {
      const m = new RegExp(`<a class="button secondary" href="([^"]+)"[^>]*>${label}</a>`).exec(page.text);
      return m ? m[1]!.replace(/&amp;/g, '&') : null;
    };
    const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => `m${from - i}`);

    const first = await consoleHttp(api).get('/console/events?type=domain.renewed', cookie);
    expect(first.status).to.equal(200);
    expect(first.text).to.contain('newest first');
    expect(marks(first), 'the 50 newest, newest first').to.deep.equal(range(59, 10));
    expect(link(first, 'Newer'), 'nothing is newer than the first page').to.equal(null);
    const olderHref = link(first, 'Older');
    expect(olderHref).to.match(/^\/console\/events\?type=domain\.renewed&before=\d+$/);

    const older = await consoleHttp(api).get(olderHref!, cookie);
    expect(marks(older), 'the rest, still newest first').to.deep.equal(range(9, 0));
    expect(link(older, 'Older'), 'nothing older of this type').to.equal(null);
    expect(link(older, 'Newest')).to.equal('/console/events?type=domain.renewed');

    const newer = await consoleHttp(api).get(link(older, 'Newer')!, cookie);
    expect(marks(newer), 'the page just above, newest first').to.deep.equal(range(59, 10));
    expect(link(newer, 'Newer'), 'the newest events reached').to.equal(null);
    expect(marks(await consoleHttp(api).get(link(newer, 'Older')!, cookie))).to.deep.equal(range(9, 0));

    const uk = await consoleHttp(api).get('/console/events?type=domain.renewed', cookie, 'uk');
    expect(uk.text).to.contain('найновіше зверху');
    expect(link(uk, 'Старіші')).to.equal(olderHref);
  });
});
