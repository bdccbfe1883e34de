import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField, type ConsoleAnswer } from './http.js';

/**
 * A top-up that fails (an amount that is not one, an amount out of range, a card that is refused) answers the
 * balance page itself — the balance, the card, the card form, the transactions — with the reason on the
 * top-up form and the amount as typed, in the page's language. A browser walk found a page with only the
 * top-up form on it, the rest of the balance page gone.
 */
eachStore('Console: a failed top-up stays on the balance page', (kind) => {
  let api: TestApi;
  let cookie = '';
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    cookie = await api.signIn();
  });
  after(async () => {
    await api?.close();
  });

  const post = async (path: string, form: Record<string, string>, lang: 'uk' | 'en') => {
    const page = await consoleHttp(api).get('/console/billing', cookie, lang);
    return consoleHttp(api).post(
      path,
      cookie,
      { _csrf: hiddenField(page.text, '_csrf')!, _form: hiddenField(page.text, '_form')!, ...form },
      lang,
    );
  };
  const balance = async () =>
    /<dd><strong>([^<]+)<\/strong><\/dd>/.exec((await consoleHttp(api).get('/console/billing', cookie)).text)?.[1];
  /** The top-up section of the page: from its heading to the next section's. */
  const topUpCard = (page: ConsoleAnswer) => {
    const from = page.text.indexOf('id="top-up"');
    const to = page.text.indexOf('<h2', from + 1);
    expect(from, 'the top-up form is on the page').to.be.above(0);
    return page.text.slice(from, to);
  };
  /** Everything the balance page shows around the form. */
  const isTheBalancePage = (page: ConsoleAnswer, lang: 'uk' | 'en') => {
    const t = (uk: string, en: string) => (lang === 'uk' ? uk : en);
    expect(page.text).to.contain(`<title>${t('Баланс', 'Balance')} — Domivka</title>`);
    expect(page.text).to.contain(`<h1>${t('Баланс і оплата', 'Balance and payment')}</h1>`);
    expect(page.text, 'the balance').to.match(/<dd><strong>[\d\s\u00a0,.]+ ₴<\/strong><\/dd>/);
    expect(page.text, 'the card form').to.contain('id="card_number"');
    expect(page.text, 'the transactions').to.contain(t('Демо-баланс пісочниці', 'Sandbox demo balance'));
    expect(page.text, 'the form comes back to itself').to.contain('action="/console/billing/top-up#top-up"');
  };
  const amountField = (card: string) => /<input\s+id="topup-amount"[^>]*>/.exec(card)?.[0] ?? '';

  for (const lang of ['uk', 'en'] as const) {
    it(`an amount that is not one: the balance page, the reason next to the amount, the amount kept (${lang})`, async () => {
      const r = await post('/console/billing/top-up', { amount: '5OO' }, lang);
      expect(r.status).to.equal(422);
      isTheBalancePage(r, lang);
      const card = topUpCard(r);
      expect(amountField(card))
        .to.contain('value="5OO"')
        .and.contain('aria-invalid="true"')
        .and.contain('aria-describedby="topup-hint err-amount"');
      expect(card).to.contain(
        lang === 'uk' ? 'Введіть суму в гривнях, наприклад 500 або 500,50.' : 'Type an amount in hryvnias, such as 500 or 500.50.',
      );
      expect(/<p class="field-error" id="err-amount">[^<]+<\/p>/.test(card), 'the reason under the field').to.equal(true);
    });

    it(`an amount out of range: the limits in hryvnias, on the balance page (${lang})`, async () => {
      const r = await post('/console/billing/top-up', { amount: '50' }, lang);
      expect(r.status).to.equal(422);
      isTheBalancePage(r, lang);
      const card = topUpCard(r);
      expect(amountField(card)).to.contain('value="50"').and.contain('aria-invalid="true"');
      expect(card).to.contain(lang === 'uk' ? 'Сума має бути від 100 до 500 000 ₴.' : 'The amount must be from 100 to 500,000 UAH.');
    });
  }

  it('a refused card: the balance page with the refusal on the top-up form, the amount kept and not marked wrong; nothing charged', async () => {
    const saved = await post('/console/billing/card', { card_number: '4000 0000 0000 0002' }, 'en');
    expect(saved.status, saved.text.slice(0, 300)).to.equal(302);
    const before = await balance();
    expect(before).to.match(/^10[\s\u00a0,]?000[.,]00 ₴$/);
    for (const lang of ['uk', 'en'] as const) {
      const r = await post('/console/billing/top-up', { amount: '750,50' }, lang);
      expect(r.status).to.equal(422);
      isTheBalancePage(r, lang);
      expect(r.text, 'the new card is shown').to.contain('•••• 0002');
      const card = topUpCard(r);
      expect(card).to.contain('role="alert"');
      expect(card).to.contain(lang === 'uk' ? 'Картку visa •••• 0002 відхилено' : 'The card visa •••• 0002 was declined');
      expect(card).to.contain('<code>card_declined</code>');
      const amount = amountField(card);
      expect(amount).to.contain('value="750,50"');
      expect(amount, 'the amount is not what is wrong').not.to.contain('aria-invalid');
    }
    expect(await balance(), 'nothing was credited').to.equal(before);
  });
});
