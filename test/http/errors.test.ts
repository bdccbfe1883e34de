import { expect } from 'chai';
import type { Route } from '../../adapters/http/index.js';
import { entryOf, ERROR_TABLE } from '../../adapters/http/error-table.js';
import type { ErrorCode } from '../../core/kernel/errors.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

const boom: Route = {
  id: 'testBoom',
  method: 'GET',
  path: '/v1/test/boom',
  tag: 'Test',
  writes: false,
  summary: 'throws',
  access: { kind: 'public' },
  responses: { 200: { description: 'never' } },
  handle: async () => {
    throw new Error('secret internals: password=hunter2 at /srv/app.ts:42');
  },
};

const isSeedShape = (body: any) => {
  expect(Object.keys(body)).to.deep.equal(['error']);
  expect(body.error.code)
    .to.be.a('string')
    .and.match(/^[a-z_]+$/);
  expect(Object.keys(body.error.message).sort()).to.deep.equal(['en', 'uk']);
  expect(body.error.message.uk).to.match(/[а-щьюяєіїґ]/i);
  expect(body.error.actions).to.be.an('array');
  for (const a of body.error.actions) expect(Object.keys(a).sort()).to.deep.equal(['href', 'type']);
};

describe('The error table (seed 7)', () => {
  it('every code has a 4xx/5xx status and real uk and en text', () => {
    for (const code of Object.keys(ERROR_TABLE) as ErrorCode[]) {
      const e = entryOf(code);
      expect(e.status, code).to.be.within(400, 599);
      const uk = e.uk({});
      const en = e.en({});
      expect(uk, code).to.match(/[а-щьюяєіїґ]/i);
      expect(en, code).to.match(/[a-z]/i);
      expect(uk, code).not.to.equal(en);
      for (const a of e.actions?.({}) ?? []) expect(a.href, code).to.match(/^\//);
    }
  });

  it('domain_taken states the domain and the date, and points to search with the label (seed 7)', () => {
    const e = ERROR_TABLE.domain_taken;
    const p = { domain: 'shop.com.ua', registered_until: '2031-03-14', label: 'shop' };
    expect(e.status).to.equal(409);
    expect(e.uk(p)).to.contain('shop.com.ua').and.contain('2031-03-14');
    expect(e.en(p)).to.contain('shop.com.ua').and.contain('2031-03-14');
    expect(e.actions!(p)).to.deep.equal([{ type: 'check_alternatives', href: '/v1/search?q=shop' }]);
  });
});

eachStore('Every failure answers in the seed shape', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { extraRoutes: [boom] });
  });
  after(async () => api.close());

  const expectCode = (r: { status: number; body: any }, status: number, code: string) => {
    expect(r.status, JSON.stringify(r.body)).to.equal(status);
    isSeedShape(r.body);
    expect(r.body.error.code).to.equal(code);
  };

  it('unknown route → 404 not_found', async () => expectCode(await api.call('/v1/nothing-here'), 404, 'not_found'));

  it('wrong method → 405 method_not_allowed with Allow', async () => {
    const r = await api.call('/v1/domains', { method: 'PUT' });
    expectCode(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).to.contain('GET');
  });

  it('malformed JSON → 400 malformed_json', async () => {
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expectCode(r, 400, 'malformed_json');
  });

  it('wrong content type → 415 unsupported_media_type', async () => {
    const r = await api.call('/v1/account/sessions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=x' });
    expectCode(r, 415, 'unsupported_media_type');
  });

  it('body too large → 413 payload_too_large', async () => {
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x'.repeat(300 * 1024) }),
    });
    expectCode(r, 413, 'payload_too_large');
  });

  it('schema violation → 422 validation_failed with details in uk and en', async () => {
    const r = await api.call('/v1/account/sessions', { method: 'POST', json: { email: 5, extra: true } });
    expectCode(r, 422, 'validation_failed');
    const rules = r.body.error.details.map((d: any) => d.rule);
    expect(rules).to.include.members(['type', 'required', 'additionalProperties']);
  });

  it('a JSON body that is not an object → 422, not 500', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      const r = await api.call('/v1/account/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status, body).to.equal(422);
      expect(r.body.error.code, body).to.equal('validation_failed');
      isSeedShape(r.body);
    }
  });

  it('an unexpected error → 500 internal_error with no internals', async () => {
    const r = await api.call('/v1/test/boom');
    expectCode(r, 500, 'internal_error');
    expect(JSON.stringify(r.body)).not.to.match(/hunter2|srv|stack|Error:/);
  });

  it('every response carries a Request-Id', async () => {
    const r = await api.call('/v1/nothing-here');
    expect(r.headers.get('request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('/healthz and /readyz answer 200 once started', async () => {
    expect((await api.call('/healthz')).body).to.deep.equal({ status: 'ok' });
    expect((await api.call('/readyz')).body).to.deep.equal({ status: 'ready' });
  });
});
