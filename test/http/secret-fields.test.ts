import { expect } from 'chai';
import type { JsonSchema } from '../../adapters/http/route.js';
import { openFields, sealFields, sealedRequest, openedRequest, replayableOf } from '../../adapters/http/middleware/sealed-fields.js';
import type { Route } from '../../adapters/http/route.js';
import { AesGcmSecretBox } from '../../adapters/crypto/node/index.js';
import { randomBytes } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/** Body fields whose name says they hold a secret (a password, a code, a TSIG secret, a card number). */
const SECRET_NAME = /(^|_)(password|secret|auth_code|totp|token|card_number|cvc)$/;

/** Every property path in a body schema (dot paths), with its name. */
const paths = (s: JsonSchema | undefined, prefix = ''): string[] => {
  const props = (s?.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(props).flatMap(([name, sub]) => [`${prefix}${name}`, ...paths(sub, `${prefix}${name}.`)]);
};

/**
 * Secrets at rest: a route declares the body fields that hold a secret (`secretFields`); where its request is
 * kept for the completer they are sealed with the data key. This pins that no such field goes undeclared.
 */
eachStore('Secret body fields are declared by their routes', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('every body field named like a secret is in its route’s secretFields, and every declared one exists', () => {
    const routes = api.system.http().routes;
    const missing: string[] = [];
    for (const r of routes) {
      const all = paths(r.body);
      for (const p of all) if (SECRET_NAME.test(p.split('.').at(-1)!) && !(r.secretFields ?? []).includes(p)) missing.push(`${r.id} ${p}`);
      for (const p of r.secretFields ?? []) expect(all, `${r.id} declares ${p}`).to.include(p);
    }
    expect(missing).to.deep.equal([]);
    const transfer = routes.find((r) => r.id === 'requestTransfer')!;
    expect(transfer.secretFields).to.deep.equal(['auth_code']);
  });
});

describe('Sealing the secret fields of a kept request (adapters/http/middleware/sealed-fields.ts)', () => {
  const box = new AesGcmSecretBox(randomBytes(32));

  it('seals the declared fields, nested ones too, leaves the rest, and opens them again', () => {
    const body = { axfr: { server: 'ns:53', tsig: { name: 'k', algorithm: 'hmac-sha256', secret: 'c2VjcmV0' } }, other: 'x' };
    const { body: sealed, sealed: list } = sealFields(box, body, ['axfr.tsig.secret', 'auth_code']);
    expect(list, 'a field the body does not hold is not listed').to.deep.equal(['axfr.tsig.secret']);
    expect(JSON.stringify(sealed)).to.not.contain('c2VjcmV0');
    expect((sealed as typeof body).axfr.server).to.equal('ns:53');
    expect(body.axfr.tsig.secret, 'the input is not changed').to.equal('c2VjcmV0');
    expect(openFields(box, sealed, list)).to.deep.equal(body);
  });

  it('a stored request lists what it sealed; opening it with another data key fails', () => {
    const req = {
      route: 'requestTransfer',
      keyId: 'k',
      params: { domain: 'a.com' },
      query: {},
      body: { auth_code: 'sandbox-auth-ok', years: 1 },
      ip: '::1',
    };
    const stored = sealedRequest(box, req, ['auth_code']);
    expect(stored.sealed).to.deep.equal(['auth_code']);
    expect(JSON.stringify(stored)).to.not.contain('sandbox-auth-ok');
    expect(openedRequest(box, stored).body).to.deep.equal(req.body);
    expect(() => openedRequest(new AesGcmSecretBox(randomBytes(32)), stored)).to.throw();
    expect(sealedRequest(box, req, undefined), 'no declaration: as it was').to.equal(req);
  });

  it('a stored answer (an Idempotency-Key replay) shows no value of the request’s secret fields, after the route’s own replayable', () => {
    const route = {
      secretFields: ['auth_code', 'axfr.tsig.secret'],
      replayable: (r: { body?: unknown }) => ({ ...r, body: { ...(r.body as object), own: true } }),
    } as unknown as Route;
    const body = { auth_code: 'sandbox-auth-ok', axfr: { tsig: { secret: 'c2VjcmV0' } } };
    const stored = replayableOf(
      route,
      body,
    )({
      status: 202,
      headers: { 'X-Echo': 'sandbox-auth-ok', Location: '/v1/x' },
      body: { id: 't1', echoed: ['sandbox-auth-ok', 'c2VjcmV0'], nested: { code: 'sandbox-auth-ok' } },
    });
    expect(stored.body).to.deep.equal({ id: 't1', echoed: [null, null], nested: { code: null }, own: true });
    expect(stored.headers).to.deep.equal({ Location: '/v1/x' });
    const plain = { replayable: undefined } as unknown as Route;
    const reply = { status: 200, body: { a: 'sandbox-auth-ok' } };
    expect(replayableOf(plain, body)(reply), 'no secret fields declared: as it was').to.equal(reply);
  });
});
