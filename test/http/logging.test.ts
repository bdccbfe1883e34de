import { expect } from 'chai';
import { Writable } from 'node:stream';
import pino from 'pino';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/** No key, password, TOTP code, cookie or Authorization value ever reaches the logs. */
eachStore('Logs', (kind) => {
  let api: TestApi;
  const lines: string[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    api = await startApi(kind, { logger: pino({ level: 'trace' }, sink) });
  });
  after(async () => api.close());

  it('one JSON line per request with its request id, and no secret anywhere', async () => {
    const cookie = await api.signIn();
    const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' }, cookie);
    const ok = await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(k.secret) });
    await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(`${k.secret.slice(0, -1)}${k.secret.endsWith('x') ? 'y' : 'x'}`) });
    await api.call('/v1/account/keys', { headers: bearer(k.secret) });
    await api.call('/v1/account/sessions', {
      method: 'POST',
      json: { email: api.demo.email, password: api.demo.password, totp: '123456' },
    });
    const all = lines.join('');
    for (const secret of [k.secret, k.secret.slice(21, 53), cookie.split('=')[1]!, api.demo.password, api.demo.totpSecret]) {
      expect(all).not.to.contain(secret);
    }
    expect(all.toLowerCase()).not.to.contain('authorization').and.not.to.contain('bearer');
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    const read = requestLines.find((l) => l.req_id === ok.headers.get('request-id'));
    expect(read).to.include({ method: 'GET', path: '/v1/domains/domivka-demo.com.ua', status: 200, key_id: k.id });
    expect(requestLines.some((l) => l.code === 'key_invalid' && l.status === 401)).to.equal(true);
  });

  it('TOTP seeds are stored encrypted, not in plain text', async () => {
    const row = await api.system.store.knex('people').where({ email: api.demo.email }).first();
    expect(row.totp_secret).not.to.contain(api.demo.totpSecret);
    expect(row.totp_secret).to.match(/^v1\./);
  });
});
