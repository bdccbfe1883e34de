import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { dig, rdata, requireTools } from '../dns/server/tools.js';

/**
 * Issue "DNS UPDATE … Keys issued before this lands get one through a human-only console action (shown
 * once)": the key's page offers a TSIG credential to an active key holding a DNS right that has none; the
 * POST hands the secret to the next GET once (the sealed dmk_once cookie), the store keeps it sealed, and
 * the credential signs UPDATEs with the key's rights at once. A key that has one, holds no DNS right, or
 * is revoked gets a refusal with its code.
 */
eachStore('Console: a TSIG credential for a key issued before TSIG existed', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async function () {
    this.timeout(60_000);
    requireTools(this, 'nsupdate', 'dig');
    api = await startApi(kind, { dns: true });
    cookie = await api.signIn();
  });
  after(async () => api?.close());

  const headers = () => ({ cookie: `${cookie}; dmk_lang=en; dmk_env=test` });
  const get = async (path: string, extra = '') => {
    const r = await fetch(`${api.base}${path}`, { headers: { cookie: `${headers().cookie}${extra}` }, redirect: 'manual' });
    return { status: r.status, text: await r.text() };
  };
  const csrfOf = async (keyId: string) => /name="_csrf" value="([^"]+)"/.exec((await get(`/console/keys/${keyId}`)).text)![1]!;
  const post = async (keyId: string, algorithm = 'hmac-sha256', token?: string) => {
    const csrf = token ?? (await csrfOf(keyId));
    const r = await fetch(`${api.base}/console/keys/${keyId}/tsig`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, _back: `/console/keys/${keyId}`, tsig_algorithm: algorithm }).toString(),
    });
    const once = r.headers.getSetCookie().find((c) => c.startsWith('dmk_once='));
    return { status: r.status, location: r.headers.get('location'), text: await r.text(), once: once?.split(';')[0] ?? null };
  };
  /** A key as issued before TSIG existed: the same row without the three credential columns. */
  const oldKey = async (rights: string[]) => {
    const k = await api.issueKey({ environment: 'test', rights, domains: ['domivka-demo.dev'] });
    await api.system.store.knex('api_keys').where({ id: k.id }).update({ tsig_name: null, tsig_algorithm: null, tsig_secret: null });
    return k.id;
  };
  const nsupdate = (cred: string, script: string): Promise<string> =>
    new Promise((resolve) => {
      const child = execFile('nsupdate', ['-y', cred], { timeout: 15_000 }, (_e, so, se) => resolve(`${so}${se}`));
      child.stdin!.end(script);
    });

  it("issues one, shown once; the store keeps it sealed; it signs UPDATEs with the key's rights; a second is refused", async () => {
    const id = await oldKey(['dns.edit']);
    const page = await get(`/console/keys/${id}`);
    expect(page.text).to.include(`action="/console/keys/${id}/tsig"`);
    expect(page.text).to.include('issued before DNS UPDATE existed');

    const issued = await post(id, 'hmac-sha512');
    expect(issued.status, issued.text).to.equal(302);
    expect(issued.location).to.equal(`/console/keys/${id}/tsig`);
    expect(issued.once).to.be.a('string');
    const shown = await get(issued.location!, `; ${issued.once}`);
    const cred = /id="key-tsig">(hmac-sha512:dmk-test-[0-9a-f]{20}:[A-Za-z0-9+/=]+)</.exec(shown.text)?.[1];
    expect(cred, shown.text.slice(shown.text.indexOf('<main'), shown.text.indexOf('<main') + 1500)).to.be.a('string');
    const [, name, secret] = cred!.split(':') as [string, string, string];
    expect(Buffer.from(secret, 'base64')).to.have.length(64);
    // A reload shows nothing more.
    const reload = await get(issued.location!);
    expect(reload.text).not.to.include(secret);
    expect(reload.text).to.include('already shown');
    // Stored sealed: the row holds the name and algorithm, and not the secret.
    const row = await api.system.store.knex('api_keys').where({ id }).first();
    expect(row).to.deep.include({ tsig_name: name, tsig_algorithm: 'hmac-sha512' });
    expect(String(row.tsig_secret)).not.to.include(secret);

    const port = api.dnsPort!;
    const out = await nsupdate(
      cred!,
      `server 127.0.0.1 ${port}\nzone domivka-demo.dev\nupdate add console-tsig.domivka-demo.dev. 60 A 192.0.2.44\nsend\n`,
    );
    expect(out).not.to.match(/failed/);
    expect(rdata((await dig(port, 'console-tsig.domivka-demo.dev', 'A')).answer)).to.deep.equal(['192.0.2.44']);

    // The key's page names the credential (never its secret) and offers no second one; asking anyway is refused.
    const after = await get(`/console/keys/${id}`);
    expect(after.text).to.include(`hmac-sha512:${name}`);
    expect(after.text).not.to.include(`action="/console/keys/${id}/tsig"`);
    expect(after.text).not.to.include(secret);
    const again = await post(id);
    expect(again.status).to.equal(409);
    expect(again.text).to.include('tsig_credential_exists');
    expect(again.once).to.equal(null);
  });

  it('a key without a DNS right gets none (422 tsig_right_missing); a revoked key none (409 key_not_active)', async () => {
    const plain = await oldKey(['domain.read']);
    expect((await get(`/console/keys/${plain}`)).text).not.to.include(`action="/console/keys/${plain}/tsig"`);
    const noRight = await post(plain);
    expect(noRight.status).to.equal(422);
    expect(noRight.text).to.include('tsig_right_missing');

    const revoked = await oldKey(['dns.acme_challenge']);
    const csrf = await csrfOf(revoked); // the session's: the revoked key's page has no form left to take it from
    const r = await fetch(`${api.base}/console/keys/${revoked}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(r.status).to.equal(302);
    expect((await get(`/console/keys/${revoked}`)).text).not.to.include(`action="/console/keys/${revoked}/tsig"`);
    const refused = await post(revoked, 'hmac-sha256', csrf);
    expect(refused.status).to.equal(409);
    expect(refused.text).to.include('key_not_active');
    const row = await api.system.store.knex('api_keys').where({ id: revoked }).first();
    expect(row.tsig_name).to.equal(null);
  });
});
