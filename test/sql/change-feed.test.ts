import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import knexFactory from 'knex';
import { SqlStore } from '../../adapters/sql/index.js';
import type { Change } from '../../core/kernel/change-feed.port.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const until = async (check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<number | null> => {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 10));
  }
  return null;
};

/**
 * What one process caches (key lookups, domain reads, zone data) is dropped in every other
 * process within a second — LISTEN/NOTIFY on Postgres, the polled change log on SQLite. A second
 * SqlStore over the same database stands in for another process.
 */
eachStore('Change feed across processes', (kind) => {
  let api: TestApi;
  let other: SqlStore;
  const heard: Array<Change | null> = [];
  before(async () => {
    api = await startApi(kind);
    other = new SqlStore({ url: api.store.url, ...(api.store.schema ? { schema: api.store.schema } : {}) });
    other.changes.subscribe((c) => heard.push(c));
    await other.changes.start();
    expect(await until(() => other.changes.live(), 3000)).to.not.equal(null);
  });
  after(async () => {
    await other.close();
    await api.close();
  });

  it('delivers a change announced in a transaction once it commits, and never one rolled back', async () => {
    const store = api.system.store;
    heard.length = 0;
    await store.uow.transaction(async () => {
      await store.changes.announce('zone', 'z-commit');
      await new Promise((r) => setTimeout(r, 300));
      expect(heard.filter((c) => c?.ref === 'z-commit')).to.have.length(0); // not before the commit
    });
    expect(await until(() => heard.some((c) => c?.ref === 'z-commit'), 1000), 'heard within 1 s').to.not.equal(null);
    await store.uow
      .transaction(async () => {
        await store.changes.announce('zone', 'z-rollback');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await store.changes.announce('zone', 'z-after');
    expect(await until(() => heard.some((c) => c?.ref === 'z-after'), 1000)).to.not.equal(null);
    expect(heard.some((c) => c?.ref === 'z-rollback')).to.equal(false);
  });

  it("a key revoked in one process is dropped from the other's cache within 1 s", async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] });
    expect((await api.call('/v1/domains/domivka-demo.dev', { headers: bearer(k.secret) })).status).to.equal(200);
    const first = await other.keys.findById(k.id);
    expect(first?.revokedAt).to.equal(null);
    expect(await other.keys.findById(k.id)).to.equal(first); // served from the cache
    const cookie = await api.signIn();
    await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } });
    // At once in the revoking process…
    expectErrorShape(await api.call('/v1/domains/domivka-demo.dev', { headers: bearer(k.secret) }), 401, 'key_revoked');
    // …and within a second in the other.
    const took = await until(async () => (await other.keys.findById(k.id))?.revokedAt != null, 1000);
    expect(took, 'the other process saw the revocation').to.not.equal(null);
  });

  it('the synchronous reads of the same caches (cachedById, cached): what find would give, never in a transaction, gone when a change is heard', async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] });
    expect(other.keys.cachedById(k.id), 'not read yet').to.equal(undefined);
    const key = await other.keys.findById(k.id);
    expect(other.keys.cachedById(k.id)).to.equal(key);
    await other.uow.transaction(async () => {
      expect(other.keys.cachedById(k.id), 'inside a transaction').to.equal(undefined);
    });
    const acc = api.demo.accountId;
    expect(other.domains.cached(acc, 'test', 'domivka-blog.kyiv.ua'), 'not read yet').to.equal(undefined);
    const d = (await other.domains.find(acc, 'test', 'domivka-blog.kyiv.ua'))!;
    const copy = other.domains.cached(acc, 'test', 'domivka-blog.kyiv.ua');
    expect(copy).to.deep.equal(d);
    expect(copy, 'a copy, as find gives').to.not.equal(d);
    expect(await other.domains.find(acc, 'test', 'nowhere-cached.dev')).to.equal(null);
    expect(other.domains.cached(acc, 'test', 'nowhere-cached.dev'), 'a cached absence').to.equal(null);
    await other.uow.transaction(async () => {
      expect(other.domains.cached(acc, 'test', 'domivka-blog.kyiv.ua'), 'inside a transaction').to.equal(undefined);
    });
    // Changes heard from the other process drop them.
    const cookie = await api.signIn();
    await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } });
    expect(await until(() => other.keys.cachedById(k.id) === undefined, 1000), 'the revoked key is dropped').to.not.equal(null);
    await api.system.store.uow.transaction(() => api.system.store.domains.update({ ...d, autoRenew: !d.autoRenew }));
    expect(await until(() => other.domains.cached(acc, 'test', d.name) === undefined, 1000), 'the changed domain is dropped').to.not.equal(
      null,
    );
    await api.system.store.uow.transaction(() => api.system.store.domains.update(d));
  });

  it('a domain changed in one process is read fresh by the other within 1 s', async () => {
    const d = (await other.domains.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
    expect(d.autoRenew).to.equal(true);
    await api.system.store.domains.update({ ...d, autoRenew: false });
    const took = await until(
      async () => (await other.domains.find(api.demo.accountId, 'test', 'domivka-demo.dev'))?.autoRenew === false,
      1000,
    );
    expect(took).to.not.equal(null);
    await api.system.store.domains.update({ ...d, autoRenew: true });
  });

  it("a domain changed in one process drops only that domain's read (and cached absences) in the other, not every domain", async () => {
    const acc = api.demo.accountId;
    const changed = (await other.domains.find(acc, 'test', 'domivka-demo.com.ua'))!;
    const kept = (await other.domains.find(acc, 'test', 'domivka-blog.kyiv.ua'))!;
    expect(await other.domains.find(acc, 'test', 'cache-fresh.dev')).to.equal(null);
    // The kept domain's row moves behind every cache's back (no announcement): only its cached copy says otherwise.
    await api.system.store.knex('domains').where({ id: kept.id }).update({ auto_renew: !kept.autoRenew });
    expect((await other.domains.find(acc, 'test', kept.name))!.autoRenew, 'served from the cache').to.equal(kept.autoRenew);
    await api.system.store.uow.transaction(() => api.system.store.domains.update({ ...changed, autoRenew: !changed.autoRenew }));
    const took = await until(async () => (await other.domains.find(acc, 'test', changed.name))!.autoRenew === !changed.autoRenew, 1000);
    expect(took, 'the changed domain is read fresh').to.not.equal(null);
    expect((await other.domains.find(acc, 'test', kept.name))!.autoRenew, 'the other domain is still cached').to.equal(kept.autoRenew);
    // A new domain: the other process's cached "no such domain" goes.
    await api.system.store.uow.transaction(() =>
      api.system.store.domains.insert({ ...changed, id: `cache-${Date.now()}`, name: 'cache-fresh.dev', labels: [] }),
    );
    const seen = await until(async () => (await other.domains.find(acc, 'test', 'cache-fresh.dev')) !== null, 1000);
    expect(seen, 'the new domain is found').to.not.equal(null);
    await api.system.store.knex('domains').where({ id: kept.id }).update({ auto_renew: kept.autoRenew });
    await api.system.store.uow.transaction(() => api.system.store.domains.update(changed));
  });

  if (kind.engine === 'postgres') {
    it('reconnects when its LISTEN connection dies, dropping everything meanwhile', async () => {
      heard.length = 0;
      const admin = knexFactory({ client: 'pg', connection: api.store.url, pool: { min: 0, max: 1 } });
      try {
        await admin.raw('select pg_terminate_backend(pid) from pg_stat_activity where query = ?', [`LISTEN "${other.changes.channel}"`]);
      } finally {
        await admin.destroy();
      }
      expect(await until(() => !other.changes.live(), 2000), 'not live once the connection died').to.not.equal(null);
      expect(await until(() => other.changes.live(), 5000), 'live again').to.not.equal(null);
      expect(heard).to.include(null); // "drop everything"
      await api.system.store.changes.announce('key', 'after-reconnect');
      expect(await until(() => heard.some((c) => c?.ref === 'after-reconnect'), 1000)).to.not.equal(null);
    });
  }
});
