import { expect } from 'chai';
import { transactionText } from '../../adapters/http/console/billing.pages.js';
import type { View } from '../../adapters/http/console/layout.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp } from './http.js';

/** The balance pages in Ukrainian say each transaction and its status in Ukrainian (a browser walk found English there). */
describe('Console: transaction descriptions in the page’s language', () => {
  const uk = { lang: 'uk' } as View;
  const en = { lang: 'en' } as View;
  it('every form the use cases write, in Ukrainian; English kept as written; anything else as kept', () => {
    const cases: Array<[string, string]> = [
      ['Registration of example.com.ua for 2 year(s)', 'Реєстрація example.com.ua на 2 р.'],
      ['Renewal of example.com.ua for 1 year(s)', 'Продовження example.com.ua на 1 р.'],
      ['Restore and renewal of example.com.ua for 1 year(s)', 'Відновлення й продовження example.com.ua на 1 р.'],
      ['Transfer of example.com.ua with 1 year(s)', 'Перенесення example.com.ua з 1 р.'],
      ['Top-up from visa •••• 4242', 'Поповнення з картки visa •••• 4242'],
      ['Sandbox demo balance', 'Демо-баланс пісочниці'],
      ['Something new', 'Something new'],
    ];
    for (const [text, ukText] of cases) {
      expect(transactionText(uk, text)).to.equal(ukText);
      expect(transactionText(en, text)).to.equal(text);
    }
  });
});

eachStore('Console: the balance page in Ukrainian', (kind) => {
  let api: TestApi;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });

  it('the demo grant and its status are in Ukrainian on both balance pages', async () => {
    const cookie = await api.signIn();
    for (const path of ['/console/billing', '/console/billing/transactions']) {
      const page = await consoleHttp(api).get(path, cookie, 'uk');
      expect(page.status, path).to.equal(200);
      expect(page.text, path).to.contain('Демо-баланс пісочниці');
      expect(page.text, path).to.contain('проведено');
      expect(page.text, path).not.to.contain('Sandbox demo balance');
      expect(page.text, path).not.to.match(/>\s*posted\s*</);
    }
  });
});
