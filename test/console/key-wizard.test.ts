import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField, type ConsoleAnswer } from './http.js';

/**
 * The "new key" wizard (seed A8: template → domains or label → conditions → review) checks each step when the
 * person moves on from it, on the server (the steps are plain GET forms: it works without script). A mistake
 * shows on the step it belongs to, next to its field, in the page's language, with everything typed kept — not
 * at the review, after the person filled in the steps that follow it.
 */
eachStore('Console: the key wizard checks each step as the person leaves it', (kind) => {
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

  const wizard = (q: Record<string, string | string[]>, lang: 'uk' | 'en' = 'en') => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
    return consoleHttp(api).get(`/console/keys/new?${p.toString()}`, cookie, lang);
  };
  const stepShown = (page: ConsoleAnswer) => /<li aria-current="step">([^<]+)<\/li>/.exec(page.text)?.[1];
  const nextStep = (page: ConsoleAnswer) => hiddenField(page.text, 'step');
  /** The message next to a field, or null. */
  const near = (page: ConsoleAnswer, field: string) =>
    new RegExp(`<p class="field-error" id="err-${field}">([^<]+)</p>`)
      .exec(page.text)?.[1]
      ?.replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'") ?? null;
  const input = (page: ConsoleAnswer, id: string) => new RegExp(`<(?:input|select)[^>]*\\bid="${id}"[^>]*>`).exec(page.text)?.[0] ?? '';
  const checked = (page: ConsoleAnswer, name: string, value: string) =>
    new RegExp(`<input[^>]*name="${name}"[^>]*value="${value}"[^>]*\\bchecked\\b`).test(page.text);
  const keys = async () => (await api.system.store.keys.list({ accountId: api.demo.accountId, limit: 200 })).length;

  const conditions = { environment: 'test', template: 'read_only', scope: 'label', label: 'prod' };

  for (const lang of ['uk', 'en'] as const)
    it(`step 1: a sandbox-only template for a live key is refused on leaving step 1, not at the review (${lang})`, async () => {
      const page = await wizard({ step: '2', environment: 'live', template: 'sandbox_clock' }, lang);
      expect(page.status).to.equal(422);
      expect(stepShown(page)).to.equal(lang === 'uk' ? 'Шаблон прав' : 'Rights template');
      expect(nextStep(page), 'the form still leads to step 2').to.equal('2');
      expect(near(page, 'template')).to.contain(
        lang === 'uk' ? 'Право sandbox.clock діє лише в пісочниці' : 'The right sandbox.clock acts on the sandbox only',
      );
      expect(page.text).to.match(/<fieldset id="template-choice"\s+aria-describedby="err-template">/);
      expect(page.text).to.contain('<code>right_test_only</code>');
      expect(checked(page, 'environment', 'live'), 'the environment chosen is kept').to.equal(true);
      expect(checked(page, 'template', 'sandbox_clock'), 'the template chosen is kept').to.equal(true);
    });

  it('step 1 passed, the same choice in the sandbox goes on to step 2', async () => {
    const page = await wizard({ step: '2', environment: 'test', template: 'sandbox_clock' });
    expect(page.status).to.equal(200);
    expect(stepShown(page)).to.equal('Domains or label');
    expect(page.text).not.to.contain('field-error');
  });

  it('step 2: no domain chosen, or a name that is not one, is refused on leaving step 2; the names typed stay in their box', async () => {
    const none = await wizard({ step: '3', environment: 'test', template: 'dns_editor', scope: 'domains' });
    expect(none.status).to.equal(422);
    expect(stepShown(none)).to.equal('Domains or label');
    expect(near(none, 'domains')).to.equal('Choose the domains: a list of names, or one label.');
    expect(input(none, 'more_domains')).to.contain('aria-invalid="true"').and.contain('aria-describedby="more-hint err-domains"');

    const typo = await wizard({
      step: '3',
      environment: 'test',
      template: 'dns_editor',
      scope: 'domains',
      domains: 'domivka-demo.com.ua',
      more_domains: 'shop.example.com.ua, localhost',
    });
    expect(typo.status).to.equal(422);
    expect(stepShown(typo)).to.equal('Domains or label');
    expect(near(typo, 'domains')).to.equal('"localhost" is not a valid domain name.');
    expect(checked(typo, 'domains', 'domivka-demo.com.ua'), 'the domain ticked stays ticked').to.equal(true);
    expect(input(typo, 'more_domains'), 'the names typed are back in their box').to.contain('value="shop.example.com.ua, localhost"');
    expect(hiddenField(typo.text, 'template'), 'the earlier step is carried on').to.equal('dns_editor');

    // Put right, it goes on; and coming back to step 2 finds the typed name where it was typed.
    const fixed = await wizard({
      step: '3',
      environment: 'test',
      template: 'dns_editor',
      scope: 'domains',
      more_domains: 'shop.example.com.ua',
    });
    expect(fixed.status).to.equal(200);
    expect(stepShown(fixed)).to.equal('Conditions');
    const back = /<a href="\/console\/keys\/new\?([^"]+)">Back<\/a>/.exec(fixed.text)![1]!.replace(/&amp;/g, '&');
    const again = await consoleHttp(api).get(`/console/keys/new?${back}`, cookie, 'en');
    expect(stepShown(again)).to.equal('Domains or label');
    expect(input(again, 'more_domains')).to.contain('value="shop.example.com.ua"');
  });

  for (const lang of ['uk', 'en'] as const)
    it(`step 3: a network that is not one is refused on leaving step 3, next to it; the other conditions kept (${lang})`, async () => {
      const page = await wizard(
        { step: '4', ...conditions, cidr: '300.1.2.3/24', expires_on: '', spend_limit: '', name: 'ci runner' },
        lang,
      );
      expect(page.status).to.equal(422);
      expect(stepShown(page)).to.equal(lang === 'uk' ? 'Умови' : 'Conditions');
      expect(near(page, 'cidr')).to.equal(
        lang === 'uk' ? 'Мережа IPv4 у формі CIDR, наприклад 203.0.113.0/24.' : 'An IPv4 network in CIDR form, such as 203.0.113.0/24.',
      );
      expect(input(page, 'cidr')).to.contain('value="300.1.2.3/24"').and.contain('aria-invalid="true"');
      expect(input(page, 'name')).to.contain('value="ci runner"');
      expect(input(page, 'spend_limit')).not.to.contain('aria-invalid');
    });

  it('step 3: an expiry in the past, a spend limit that is no amount, a spending key without one — each next to its own field', async () => {
    const past = await wizard({ step: '4', ...conditions, expires_on: '2001-01-01' });
    expect(past.status).to.equal(422);
    expect(near(past, 'expires_on')).to.contain('The expiry date 2001-01-01 is in the past');
    expect(input(past, 'expires_on')).to.contain('value="2001-01-01"').and.contain('aria-describedby="exp-hint err-expires_on"');

    const words = await wizard({ step: '4', ...conditions, spend_limit: 'five hundred' });
    expect(words.status).to.equal(422);
    expect(near(words, 'spend_limit')).to.equal('An amount in UAH above zero, with up to two decimals: such as 500 or 499.99.');
    expect(input(words, 'spend_limit')).to.contain('value="five hundred"').and.contain('aria-invalid="true"');

    const spender = await wizard({
      step: '4',
      environment: 'test',
      template: 'billing',
      scope: 'label',
      label: 'prod',
      cidr: '203.0.113.0/24',
    });
    expect(spender.status).to.equal(422);
    expect(stepShown(spender)).to.equal('Conditions');
    expect(near(spender, 'spend_limit')).to.contain('needs a monthly spend limit');
    expect(input(spender, 'cidr'), 'the network typed is kept').to.contain('value="203.0.113.0/24"');
  });

  it('the first problem wins: a step 1 mistake is shown on step 1 even when a later step is wrong too', async () => {
    const page = await wizard({ step: '4', environment: 'live', template: 'sandbox_clock', scope: 'domains', cidr: 'nonsense' });
    expect(page.status).to.equal(422);
    expect(stepShown(page)).to.equal('Rights template');
    expect(near(page, 'template')).to.contain('sandbox.clock');
    expect(near(page, 'cidr')).to.equal(null);
    expect(hiddenField(page.text, 'cidr'), 'the later step’s input is carried on').to.equal('nonsense');
  });

  it('every step right: the review; a refusal when issuing comes back on its step, and no key is issued', async () => {
    const review = await wizard({ step: '4', ...conditions, name: 'wizard-ok' });
    expect(review.status).to.equal(200);
    expect(stepShown(review)).to.equal('Review');
    const before = await keys();
    const sent = await consoleHttp(api).post('/console/keys', cookie, {
      _csrf: hiddenField(review.text, '_csrf')!,
      _form: hiddenField(review.text, '_form')!,
      ...conditions,
      expires_on: '2001-01-01',
      name: 'wizard-late',
    });
    expect(sent.status).to.equal(422);
    expect(stepShown(sent)).to.equal('Conditions');
    expect(near(sent, 'expires_on')).to.contain('is in the past');
    expect(input(sent, 'name')).to.contain('value="wizard-late"');
    expect(await keys(), 'nothing issued').to.equal(before);
  });
});
