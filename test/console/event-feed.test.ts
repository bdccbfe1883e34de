import { expect } from 'chai';
import { TOKENS } from '../../src/tokens.js';
import { emitEvent } from '../events/emit.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp } from './http.js';

/**
 * The console's event feed shows each event's data as a person reads it: texts in the page's language, lists
 * item by item, objects by their fields — never "[object Object]" (a browser walk saw it for an operation's
 * warnings).
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
});
