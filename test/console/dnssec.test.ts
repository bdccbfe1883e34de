import { expect } from 'chai';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { TOKENS } from '../../src/tokens.js';

/**
 * The DNSSEC page of a domain in the console, as a browser posts it (DESIGN "DNSSEC"): the DS published and
 * DNSSEC switched off through the same class 3 operations as the API, said truthfully and linked to the
 * operations page; the rollover's step and the zone's DNSSEC history from the event log, newest first; the
 * registry's and the parent's refusals as readable text in uk and en.
 */
const ROLL = 'domivka-blog.kyiv.ua';
const ZONE = 'domivka-demo.com.ua';

eachStore('Console: the DNSSEC page (operations, switch-off, rollover timeline)', (kind) => {
  let api: TestApi;
  let cookie = '';
  let key = '';
  const keeping = `dskeep-${randomUUID().slice(0, 8)}.com.ua`;
  const hosted = `hosted-${randomUUID().slice(0, 8)}.com.ua`;
  const moving = `moving-${randomUUID().slice(0, 8)}.com.ua`;
  const reauthing = `reauth-${randomUUID().slice(0, 8)}.com.ua`;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    cookie = await api.signIn();
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'domain.register', 'domain.read', 'domain.host', 'sandbox.clock'],
        domains: [ROLL, ZONE, keeping, hosted, moving, reauthing],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
      })
    ).secret;
  });
  after(async () => {
    await api?.close();
  });

  const headers = (lang: 'uk' | 'en') => ({ cookie: `${cookie}; dmk_lang=${lang}; dmk_env=test; dmk_tz=Europe%2FKyiv` });
  /** The worker's publisher numbers new events for the log (the history reads the published log). */
  const get = async (path: string, lang: 'uk' | 'en' = 'en') => {
    await api.system.get(TOKENS.PublishEvents).run();
    const r = await fetch(`${api.base}${path}`, { headers: headers(lang), redirect: 'manual' });
    return { status: r.status, text: await r.text(), location: r.headers.get('location') };
  };
  const post = async (path: string, form: Record<string, string> = {}, lang: 'uk' | 'en' = 'en') => {
    const page = await get(path.replace(/\/(off|ds|ds\/remove|foreign-keys(\/\d+\/remove)?)$/, ''), lang);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const r = await fetch(`${api.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers(lang), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
    });
    return { status: r.status, text: await r.text(), location: r.headers.get('location') };
  };
  const call = (method: string, path: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(key), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });
  const travel = async (advance: string) => expect((await call('POST', '/v1/sandbox/clock', { advance })).status).to.equal(200);
  /** The text of an element by id, tags dropped and spaces squeezed. */
  const byId = (page: string, id: string) => {
    const m = new RegExp(`<(\\w+)[^>]*id="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(page);
    return m
      ? m[2]!
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
      : null;
  };
  /** The DNSSEC history's rows, newest first: [event type, the row's text]. */
  const history = (page: string) =>
    [...page.matchAll(/<tr data-event="([^"]+)">([\s\S]*?)<\/tr>/g)].map((m) => [
      m[1]!,
      m[2]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ]);
  const self = (d: string) => `/console/domains/${d}/dnssec`;

  it('enable, then another algorithm: the timeline shows both steps newest first with key tags, and the page the current step and the next time', async () => {
    const on = await post(self(ROLL), { algorithm: '13' });
    expect(on.location).to.equal(`${self(ROLL)}?done=enabled`);
    const first = (await call('GET', `/v1/domains/${ROLL}/dnssec`)).body;
    const oldTag = first.keys[0].tag as number;
    let page = await get(self(ROLL));
    expect(history(page.text)).to.have.length(1);
    expect(history(page.text)[0]![0]).to.equal('dns.dnssec_enabled');
    expect(history(page.text)[0]![1]).to.include(`The zone was signed (algorithm 13, key ${oldTag}); its DS is yet to be published`);
    // The key's DNSKEY record, to copy for another operator (it was only in the API).
    expect(page.text).to.contain(`<code id="dnskey-${oldTag}" class="wrap">${first.keys[0].dnskey as string}</code>`);
    expect(page.text).to.contain(`data-copy="dnskey-${oldTag}"`);

    const roll = await post(self(ROLL), { algorithm: '15' });
    expect(roll.location).to.equal(`${self(ROLL)}?done=rolling`);
    const api1 = (await call('GET', `/v1/domains/${ROLL}/dnssec`)).body;
    expect(api1.status).to.equal('rolling');
    const newTag = api1.rollover.new_key_tag as number;
    for (const lang of ['en', 'uk'] as const) {
      page = await get(self(ROLL), lang);
      const rows = history(page.text);
      expect(rows.map((r) => r[0])).to.deep.equal(['dns.dnssec_rollover', 'dns.dnssec_enabled']);
      expect(rows[0]![1]).to.include(`${oldTag} → ${newTag}`);
      expect(rows[0]![1]).to.include(
        lang === 'en'
          ? 'Algorithm rollover: The new algorithm’s key signs the zone, not yet published.'
          : 'Заміна алгоритму: Ключ нового алгоритму підписує зону, але ще не опублікований.',
      );
      expect(byId(page.text, 'dnssec-status')).to.equal(lang === 'en' ? 'a key rollover is under way' : 'триває заміна ключа');
      expect(byId(page.text, 'dnssec-rollover-step')).to.include(
        lang === 'en' ? 'Now: The new algorithm’s key signs' : 'Зараз: Ключ нового алгоритму',
      );
      // The next step's time in the person's zone (Kyiv), the same formatter as every console time.
      const next = new Date(api1.rollover.next_step_at).toLocaleString(lang === 'uk' ? 'uk-UA' : 'en-GB', {
        timeZone: 'Europe/Kyiv',
        dateStyle: 'medium',
        timeStyle: 'short',
      });
      expect(byId(page.text, 'dnssec-rollover-next')).to.include(next);
      expect(page.text).to.match(/<li aria-current="step">(new signatures|нові підписи)<\/li>/);
      expect(page.text, 'the algorithm rolled to stays chosen').to.match(/value="15"\s+checked/);
    }
  });

  it('DS at the parent: publish, then switch off → the dnssec_disable operation, linked; after it takes effect "being switched off" with the time signing stops', async () => {
    const on = await post(self(ZONE), { algorithm: '13' });
    expect(on.location).to.equal(`${self(ZONE)}?done=enabled`);
    let page = await get(self(ZONE));
    expect(page.text).to.include('Publish the DS at the registry');

    const pub = await post(`${self(ZONE)}/ds`);
    expect(pub.status, pub.text.slice(0, 400)).to.equal(302);
    const pubId = /[?&]op=([^&]+)/.exec(pub.location!)![1]!;
    const pubOp = (await call('GET', `/v1/operations/${pubId}`)).body;
    expect(pubOp).to.include({ kind: 'dnssec_ds_publish', status: 'pending', domain: ZONE });
    page = await get(pub.location!);
    expect(page.text).to.include(`href="/console/operations#op-${pubId}"`);
    expect(byId(page.text, `dnssec-op-${pubId}`))
      .to.include('Publishing the DS at the registry')
      .and.include('pending');
    expect(page.text, 'no second publish button while one waits').not.to.include('Publish the DS at the registry</button>');

    await travel('PT25H');
    page = await get(self(ZONE));
    expect(byId(page.text, 'dnssec-status')).to.equal('secure: the parent zone holds our DS');
    expect(byId(page.text, `dnssec-op-${pubId}`)).to.include('done');
    expect(page.text).to.include('the registry removes the DS (a class 3 action');

    const off = await post(`${self(ZONE)}/off`);
    expect(off.status, off.text.slice(0, 400)).to.equal(302);
    expect(off.location).to.match(new RegExp(`^${self(ZONE)}\\?done=disable-requested&op=`));
    const offId = /[?&]op=([^&]+)/.exec(off.location!)![1]!;
    const op = (await call('GET', `/v1/operations/${offId}`)).body;
    expect(op).to.include({ kind: 'dnssec_disable', status: 'pending', domain: ZONE });
    for (const lang of ['en', 'uk'] as const) {
      page = await get(off.location!, lang);
      expect(page.text).not.to.include(lang === 'en' ? 'DNSSEC is off' : 'DNSSEC вимкнено');
      const banner = /<a href="([^"]+)" id="dnssec-op-link"\s*>/.exec(page.text);
      expect(banner?.[1]).to.equal(`/console/operations#op-${offId}`);
      expect(page.text).to.include(
        lang === 'en' ? 'Switching off is requested as a class 3 operation.' : 'Вимкнення запитано як операцію класу 3.',
      );
      expect(byId(page.text, 'dnssec-status')).to.equal(
        lang === 'en'
          ? 'secure; switching off is requested: the registry removes the DS when the operation takes effect'
          : 'захищено; вимкнення запитано: реєстр прибере DS, коли операція набуде чинності',
      );
    }
    // The link leads to the operation where another owner confirms or cancels it.
    expect((await get('/console/operations')).text).to.include(`id="op-${offId}"`);

    await travel('PT25H');
    expect((await call('GET', `/v1/operations/${offId}`)).body.status).to.equal('active');
    const view = (await call('GET', `/v1/domains/${ZONE}/dnssec`)).body;
    expect(view).to.include({ status: 'disabling', ds_at_parent: false });
    const stops = new Date(view.stop_signing_at).toLocaleString('en-GB', {
      timeZone: 'Europe/Kyiv',
      dateStyle: 'medium',
      timeStyle: 'short',
    });
    page = await get(self(ZONE));
    expect(byId(page.text, 'dnssec-status')).to.equal(`being switched off: the DS left the registry, signing stops ${stops}`);
    expect(byId(page.text, 'dnssec-stop-signing')).to.equal(stops);
    expect(byId(page.text, 'dnssec-off-note')).to.include('the DS has left the registry');
    const rows = history(page.text);
    expect(rows.map((r) => r[0])).to.deep.equal(['dns.dnssec_disabling', 'dns.dnssec_enabled']);
    expect(rows[0]![1]).to.include('The registry removed the DS').and.include(stops);
  });

  it('a registry that keeps the DS: the failed operation reads dnssec_ds_removal_refused in words (uk, en)', async () => {
    const reg = await call('POST', '/v1/domains', { domain: keeping, years: 1 });
    expect(reg.status, JSON.stringify(reg.body)).to.be.oneOf([200, 201, 202]);
    expect((await call('PUT', `/v1/domains/${keeping}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    expect((await call('POST', `/v1/domains/${keeping}/dnssec/ds`)).status).to.equal(202);
    await travel('PT25H');
    const off = await post(`${self(keeping)}/off`);
    expect(off.status, off.text.slice(0, 400)).to.equal(302);
    const offId = /[?&]op=([^&]+)/.exec(off.location!)![1]!;
    await travel('PT25H');
    expect((await call('GET', `/v1/operations/${offId}`)).body.status).to.equal('failed');
    const en = byId((await get(self(keeping), 'en')).text, `dnssec-op-${offId}-failure`);
    expect(en).to.match(
      new RegExp(
        `^The registry refused to remove the DS of ${keeping.replace(/\./g, '\\.')}: the registry of .* removes DS records only on request`,
      ),
    );
    expect(en).to.include('the parent keeps the DS, so the domain keeps working');
    const uk = (await get(self(keeping), 'uk')).text;
    expect(byId(uk, `dnssec-op-${offId}-failure`)).to.match(
      new RegExp(`^Реєстр відмовився прибрати DS домену ${keeping.replace(/\./g, '\\.')}:`),
    );
    expect(byId(uk, 'dnssec-status')).to.equal('захищено: батьківська зона має наш DS');
  });

  it('a hosted domain whose parent holds our DS: switching off is refused with dnssec_ds_at_parent in words; the form says the safe order', async () => {
    expect((await call('POST', '/v1/hosted-domains', { domain: hosted })).status).to.equal(201);
    expect((await call('PUT', `/v1/domains/${hosted}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    // The owner gave our DS to their registrar (recorded as the parent holding it), as in the API's own test.
    await api.system.store.knex('dnssec_zones').where({ domain: hosted }).update({ ds_at_parent: true, status: 'secure' });
    const page = await get(self(hosted));
    expect(page.text).to.include('The safe order: remove the DS at your registrar, wait until its TTL has passed');
    expect(page.text, 'a hosted domain has no publish button').not.to.include('Publish the DS at the registry');
    for (const lang of ['en', 'uk'] as const) {
      const r = await post(`${self(hosted)}/off`, {}, lang);
      expect(r.status).to.equal(422);
      expect(r.text).to.include(
        lang === 'en'
          ? `The parent zone still holds a DS for ${hosted}: stopping signing now would take the domain off the internet`
          : `Батьківська зона ще містить DS домену ${hosted}`,
      );
      expect(r.text).to.include('<code>dnssec_ds_at_parent</code>');
    }
    expect((await call('GET', `/v1/domains/${hosted}/dnssec`)).body).to.include({ enabled: true, status: 'secure' });
  });

  it("another operator's key (a signed zone moving in): added from the page at once, listed, refused with the reason in words, taken out at once by an owner, or as a class 3 operation by a key", async () => {
    expect((await call('POST', '/v1/hosted-domains', { domain: moving })).status).to.equal(201);
    expect((await call('PUT', `/v1/domains/${moving}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    let page = await get(self(moving));
    expect(page.text).to.include('Other operators&#39; keys');
    expect(page.text).to.include('id="dnssec-foreign-add"');
    const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
    const theirs = `256 3 13 ${Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]).toString('base64')}`;
    const added = await post(`${self(moving)}/foreign-keys`, { dnskey: theirs, note: 'the old provider' });
    expect(added.location).to.equal(`${self(moving)}?done=foreign-added`);
    const view = (await call('GET', `/v1/domains/${moving}/dnssec`)).body;
    expect(view.foreign_keys).to.have.length(1);
    const tag = view.foreign_keys[0].tag as number;
    page = await get(self(moving));
    const table = byId(page.text, 'dnssec-foreign-keys')!;
    expect(table).to.include(String(tag));
    expect(table).to.include('the old provider');
    for (const lang of ['en', 'uk'] as const) {
      const bad = await post(`${self(moving)}/foreign-keys`, { dnskey: theirs.replace('256 3 13', '256 3 15') }, lang);
      expect(bad.status).to.equal(422);
      expect(bad.text).to.include('<code>dnssec_foreign_key_invalid</code>');
      expect(bad.text).to.include(lang === 'en' ? 'operators signing one zone must share the algorithm' : 'мусять мати той самий алгоритм');
    }
    // An owner takes it out at once (a human's act; a key only requests the class 3 operation).
    const out = await post(`${self(moving)}/foreign-keys/${tag}/remove`);
    expect(out.location).to.equal(`${self(moving)}?done=foreign-removed`);
    expect((await call('GET', `/v1/domains/${moving}/dnssec`)).body.foreign_keys).to.deep.equal([]);
    const removed = await api.system.store.knex('events').where({ type: 'dns.dnssec_foreign_key_removed', subject: `domain:${moving}` });
    expect(removed.map((e: { actor: string }) => e.actor)).to.have.length(1);
    expect(removed[0].actor).to.match(/^person:/);
    // Requested through the API instead: the page shows the waiting operation with its link.
    expect((await post(`${self(moving)}/foreign-keys`, { dnskey: theirs })).location).to.equal(`${self(moving)}?done=foreign-added`);
    const requested = await call('DELETE', `/v1/domains/${moving}/dnssec/foreign-keys/${tag}`);
    expect(requested.status, JSON.stringify(requested.body)).to.equal(202);
    page = await get(self(moving));
    expect(byId(page.text, 'dnssec-foreign-removing')).to.match(/^Taking a key out was requested through the API; it takes effect /);
    expect(page.text).to.include(`/console/operations#op-${requested.body.id}`);
    expect(page.text).to.include('Another operator&#39;s key leaves the DNSKEY set');
    await travel('PT25H');
    expect((await call('GET', `/v1/domains/${moving}/dnssec`)).body.foreign_keys).to.deep.equal([]);
  });

  it("a domain registered here: another operator's DS added at the registry and removed from it, each a class 3 operation; a malformed DS refused in words", async () => {
    // ROLL is signed (and rolling) from the first test; the form is an owner's, for a domain registered here.
    let page = await get(self(ROLL));
    expect(page.text).to.include('id="dnssec-foreign-ds"');
    const theirs = `31589 13 2 ${'5D'.repeat(32)}`;
    const bad = await post(`${self(ROLL)}/ds`, { ds: `31589 13 1 ${'AB'.repeat(20)}` });
    expect(bad.status).to.equal(422);
    expect(bad.text).to.include('<code>dnssec_ds_invalid</code>');
    expect(bad.text).to.include('SHA-1 is not published (RFC 8624)');
    const added = await post(`${self(ROLL)}/ds`, { ds: `${theirs}\n` });
    expect(added.location).to.match(new RegExp(`^${self(ROLL)}\\?done=ds-requested&op=`));
    const addOp = (await call('GET', `/v1/operations/${new URL(added.location!, api.base).searchParams.get('op')}`)).body;
    expect(addOp).to.include({ kind: 'dnssec_ds_publish', status: 'pending' });
    expect(addOp.ds).to.deep.equal([theirs]);
    page = await get(added.location!);
    expect(page.text).to.include(`Adding the DS ${theirs} at the registry is requested as a class 3 operation`);
    expect((await call('POST', `/v1/operations/${addOp.id}/cancel`)).status).to.equal(200);
    const removed = await post(`${self(ROLL)}/ds/remove`, { ds: theirs });
    expect(removed.location).to.match(new RegExp(`^${self(ROLL)}\\?done=ds-requested&op=`));
    const remOp = (await call('GET', `/v1/operations/${new URL(removed.location!, api.base).searchParams.get('op')}`)).body;
    expect(remOp).to.include({ kind: 'dnssec_ds_remove', status: 'pending' });
    page = await get(removed.location!);
    expect(page.text).to.include(`Removing the DS ${theirs} at the registry is requested as a class 3 operation`);
    expect((await call('POST', `/v1/operations/${remOp.id}/cancel`)).status).to.equal(200);
  });

  it('signing in again carries the form: the algorithm chosen is the one signed once confirmed (not the default)', async () => {
    expect((await call('POST', '/v1/domains', { domain: reauthing, years: 1 })).status).to.equal(201);
    // The session's last proof of identity is older than 5 minutes.
    await api.system.store.knex('sessions').update({ authenticated_at: new Date(Date.now() - 10 * 60_000).toISOString() });
    const asked = await post(self(reauthing), { algorithm: '15' });
    expect(asked.status).to.equal(200);
    expect(asked.text).to.contain('<h1>Sign in again</h1>');
    expect(asked.text).to.contain('DNSSEC');
    const resumeAction = /name="_resume_action" value="([^"]*)"/.exec(asked.text)![1]!;
    const resume = /name="_resume"\s+value="([^"]*)"/
      .exec(asked.text)![1]!
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    expect(resumeAction).to.equal(self(reauthing));
    expect(JSON.parse(resume).fields).to.deep.include({ algorithm: '15' });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(asked.text)![1]!;
    const { totpFor } = await import('./browser.js');
    const confirmed = await fetch(`${api.base}/console/reauth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers('en'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: csrf,
        next: self(reauthing),
        _resume_action: resumeAction,
        _resume: resume,
        password: api.demo.password,
        totp: await totpFor(api, api.demo.totpSecret),
      }).toString(),
    });
    const again = await confirmed.text();
    expect(again).to.contain('<h1>Send the form again</h1>');
    expect(again).to.match(/name="algorithm" value="15"/);
    const form = new URLSearchParams();
    for (const m of again.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) form.append(m[1]!, m[2]!);
    const sent = await fetch(`${api.base}${self(reauthing)}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers('en'), 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(sent.status).to.equal(302);
    const state = (await call('GET', `/v1/domains/${reauthing}/dnssec`)).body;
    expect(state.keys.map((k: { algorithm: number }) => k.algorithm)).to.deep.equal([15]);
  });
});
