import { expect } from 'chai';
import { migrationSourceFor, SqlStore } from '../../adapters/sql/index.js';
import { eachStore, type FreshStore } from '../support/stores.js';

const NAME = '20261128050000_idempotency_request_secrets';

/** Requests kept for the completer before their secret fields were sealed: none stays in the clear. */
eachStore('Migration: no secret stays in the clear in a kept request', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
    await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name: NAME });
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  it('drops the request of a finished record, takes the secret out of an unfinished one (listed as withheld), leaves the rest', async () => {
    const k = store.knex;
    const at = new Date().toISOString();
    const request = (route: string, body: unknown, extra: object = {}) =>
      JSON.stringify({ route, keyId: 'k1', params: { domain: 'a.com.ua' }, query: {}, body, ip: '127.0.0.1', ...extra });
    const rec = (key: string, req: string | null, response: boolean) => ({
      scope: 'key:k1',
      key,
      fingerprint: 'fp',
      recovery_point: response ? 'finished' : 'reserved',
      created_at: at,
      request: req,
      ...(response ? { response_status: 202, response_body: '{"status":"pending"}', response_headers: '{}' } : {}),
    });
    await k('idempotency_keys').insert([
      rec('done', request('requestTransfer', { auth_code: 'sandbox-auth-ok', years: 1 }), true),
      rec('open', request('requestTransfer', { auth_code: 'sandbox-auth-ok', years: 1 }), false),
      rec('nested', request('someImport', { axfr: { server: 'ns:53', tsig: { name: 'k', secret: 'c2VjcmV0' } } }), false),
      rec('sealed', request('requestTransfer', { auth_code: 'v1.sealed.text.tag', years: 1 }, { sealed: ['auth_code'] }), false),
      rec('plain', request('registerDomain', { domain: 'a.com.ua', years: 1 }), false),
      rec('console', null, true),
    ]);

    await k.migrate.up({ migrationSource: migrationSourceFor(store.engine), name: NAME });

    const rows = Object.fromEntries(
      (
        (await k('idempotency_keys').where({ scope: 'key:k1' })) as Array<{
          key: string;
          request: string | null;
          response_body: string | null;
        }>
      ).map((r) => [r.key, r]),
    );
    const req = (key: string) => JSON.parse(rows[key]!.request!);
    expect(rows.done!.request, 'finished: nothing left to resume').to.equal(null);
    expect(rows.done!.response_body, 'its answer stays for replays').to.equal('{"status":"pending"}');
    expect(req('open')).to.deep.include({ body: { years: 1 }, withheld: ['auth_code'] });
    expect(req('nested').body).to.deep.equal({ axfr: { server: 'ns:53', tsig: { name: 'k' } } });
    expect(req('nested').withheld).to.deep.equal(['axfr.tsig.secret']);
    expect(req('sealed'), 'already sealed: as it was').to.deep.include({ body: { auth_code: 'v1.sealed.text.tag', years: 1 } });
    expect(req('sealed')).to.not.have.property('withheld');
    expect(req('plain'))
      .to.deep.include({ body: { domain: 'a.com.ua', years: 1 } })
      .and.not.have.property('withheld');
    expect(JSON.stringify(await k('idempotency_keys').select()))
      .to.not.include('sandbox-auth-ok')
      .and.not.include('c2VjcmV0');
  });
});
