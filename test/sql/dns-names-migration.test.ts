import { expect } from 'chai';
import { domainToASCII } from 'node:url';
import { migrationSourceFor, SqlStore } from '../../adapters/sql/index.js';
import { eachStore, type FreshStore } from '../support/stores.js';

const NAME = '20261126120000_dns_names_a_labels';

/** Owner names stored in Unicode before ACME names were converted become A-labels, or go when unservable. */
eachStore('Migration: stored DNS owner names become A-labels', (kind) => {
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

  it('converts Unicode owners (merging into an A-label set already there), drops unservable ones, bumps the serial', async () => {
    const k = store.knex;
    const zone = 'example.com';
    const idn = `_acme-challenge.${domainToASCII(`єпт.${zone}`)}`;
    const bold = `_acme-challenge.${'𝐚'.repeat(48)}.${zone}`;
    const tooLong = `_acme-challenge.${'я'.repeat(64)}.${zone}`;
    const at = new Date().toISOString();
    await k('accounts').insert({ id: 'a1', name: 'A', created_at: at });
    await k('dns_zones').insert({ id: 'z1', account_id: 'a1', environment: 'test', domain: zone, serial: 7, updated_at: at });
    const set = (name: string, values: string[]) => ({ zone_id: 'z1', name, type: 'TXT', ttl: 60, record_values: JSON.stringify(values) });
    await k('dns_record_sets').insert([
      set(`_acme-challenge.єпт.${zone}`, ['u1']),
      set(idn, ['a1']),
      set(bold, ['b1']),
      set(tooLong, ['t1']),
      set(`www.${zone}`, ['plain']),
    ]);
    const ch = (id: string, name: string) => ({ id, zone_id: 'z1', name, value: 'v', key_id: null, created_at: at, expires_at: at });
    await k('acme_challenges').insert([ch('c1', `_acme-challenge.єпт.${zone}`), ch('c2', bold), ch('c3', tooLong)]);

    await k.migrate.up({ migrationSource: migrationSourceFor(store.engine), name: NAME });

    const rows = (await k('dns_record_sets').where({ zone_id: 'z1' }).orderBy('name')) as Array<{ name: string; record_values: string }>;
    const byName = Object.fromEntries(rows.map((r) => [r.name, (JSON.parse(r.record_values) as string[]).sort()]));
    expect(byName).to.deep.equal({
      [idn]: ['a1', 'u1'],
      [`_acme-challenge.${'a'.repeat(48)}.${zone}`]: ['b1'],
      [`www.${zone}`]: ['plain'],
    });
    const challenges = (await k('acme_challenges').orderBy('id')) as Array<{ id: string; name: string }>;
    expect(challenges.map((c) => [c.id, c.name])).to.deep.equal([
      ['c1', idn],
      ['c2', `_acme-challenge.${'a'.repeat(48)}.${zone}`],
    ]);
    expect(Number(((await k('dns_zones').where({ id: 'z1' }).first()) as { serial: number }).serial)).to.equal(8);
  });
});
