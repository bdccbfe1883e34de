import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { catalogMemberId } from '../../adapters/dns/catalog.js';
import { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { ZoneSync } from '../../adapters/dns/zone-sync.js';
import { TOKENS } from '../../src/tokens.js';
import { expectErrorShape, type Res } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const CATALOG = 'catalog.domivka.invalid';
const CYRILLIC = /[\u0400-\u04FF]/;

type Decoded = { rcode?: string; answers?: Array<{ name: string; type: string; data?: unknown }> };

/**
 * The service's own names are never an account's zone, and no key reaches past its scope by a child zone
 * (DESIGN "Domains born elsewhere"):
 *  - the catalog zone (DNS_CATALOG_ZONE, RFC 9432) and every name under it: each secondary follows it
 *    (catalog-role: interpret), so an account's zone in its place would choose the zones they serve;
 *  - the zone our nameservers' names are in (domivka.net) and every name under it;
 *  - a name inside a zone the account already holds: the child zone would hide the parent's records under
 *    that name, though the key holds no right on the parent, and undoing it is class 3.
 * Each is refused before anything is stored, and the catalog keeps listing its members; a zone of the
 * catalog's name that reaches the store by another path is never served in its place.
 */
eachStore('Hosted domains: the service’s own names and children of the account’s zones are refused', (kind) => {
  let api: TestApi;
  let key: string;
  let dns: EmbeddedNameserver;
  let sync: ZoneSync;

  const RESERVED = [
    { name: CATALOG, zone: CATALOG, role: 'catalog' },
    { name: `zones.${CATALOG}`, zone: CATALOG, role: 'catalog' },
    { name: `${catalogMemberId('victim-zone.example')}.zones.${CATALOG}`, zone: CATALOG, role: 'catalog' },
    { name: 'domivka.net', zone: 'domivka.net', role: 'nameservers' },
    { name: 'ns1.domivka.net', zone: 'domivka.net', role: 'nameservers' },
    { name: 'NS2.Domivka.Net.', zone: 'domivka.net', role: 'nameservers' },
  ] as const;

  before(async () => {
    api = await startApi(kind);
    expect(api.system.config.dnsCatalogZone).to.equal(CATALOG);
    // The DNS server as npm start runs it for the secondaries: with the catalog, held by the server, fed by
    // the store (ZoneSync) and by this process's own publishes (ZonePublisher).
    dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: ['127.0.0.1'], secondaries: [], catalog: CATALOG });
    await dns.start();
    api.system.get(TOKENS.ZonePublisher).attach(dns);
    sync = new ZoneSync(api.system.store.zones, dns, pino({ level: 'silent' }), {
      catalog: { name: CATALOG, version: api.system.store.zones, holder: dns },
    });
    await sync.load();
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.read', 'domain.host', 'dns.edit'],
        domains: [...RESERVED.map((r) => r.name.toLowerCase().replace(/\.$/, '')), 'undelegated-parent.com', 'shop.undelegated-parent.com'],
      })
    ).secret;
  });
  after(async () => {
    sync.stop();
    await dns.stop();
    await api.close();
  });

  const host = (domain: string, secret = key): Promise<Res> =>
    api.call('/v1/hosted-domains', {
      method: 'POST',
      headers: { ...bearer(secret), 'idempotency-key': randomUUID() },
      json: { domain },
    });
  const ask = (name: string, type: dnsPacket.RecordType): Decoded =>
    dnsPacket.decode(
      dns.answer(dnsPacket.encode({ type: 'query', id: 1, flags: 0, questions: [{ name, type, class: 'IN' }] }), 'tcp', '127.0.0.1')[0]!,
    ) as unknown as Decoded;
  /** The catalog as a secondary transfers it: its serial and the zones its PTR records list. */
  const catalog = async (): Promise<{ serial: number; members: string[] }> => {
    await sync.load();
    const axfr = dns
      .answer(
        dnsPacket.encode({ type: 'query', id: 2, flags: 0, questions: [{ name: CATALOG, type: 'AXFR', class: 'IN' }] }),
        'tcp',
        '127.0.0.1',
      )
      .flatMap((b) => (dnsPacket.decode(b) as unknown as Decoded).answers ?? []);
    const soa = axfr.find((r) => r.type === 'SOA');
    expect(soa, 'the catalog is served').to.exist;
    const members = axfr.filter((r) => r.type === 'PTR').map((r) => String(r.data).replace(/\.$/, ''));
    return { serial: (soa!.data as { serial: number }).serial, members: members.sort() };
  };
  /** Every domain the account's owner sees, and the store's zones: what a refusal must leave as it was. */
  const stored = async (): Promise<string[]> => {
    const versions = await api.system.store.zones.versions();
    return versions.map((v) => `${v.environment}:${v.domain}`).sort();
  };

  it('before: the catalog lists the demo account’s zones', async () => {
    const { members } = await catalog();
    expect(members).to.include.members(['domivka-demo.com.ua', 'domivka-demo.dev']);
  });

  for (const r of RESERVED) {
    it(`${r.name}: 422 domain_reserved (${r.role}), nothing stored, the catalog unchanged`, async () => {
      const before = await catalog();
      const zones = await stored();
      const res = await host(r.name);
      expectErrorShape(res, 422, 'domain_reserved');
      const name = r.name.toLowerCase().replace(/\.$/, '');
      const { en, uk } = res.body.error.message;
      expect(en)
        .to.include(name)
        .and.include(r.zone)
        .and.match(r.role === 'catalog' ? /catalog zone/ : /nameservers/);
      expect(uk)
        .to.include(name)
        .and.include(r.zone)
        .and.match(CYRILLIC)
        .and.match(r.role === 'catalog' ? /каталог/ : /сервери імен/);
      expect((await api.call(`/v1/domains/${name}`, { headers: bearer(key) })).status).to.equal(404);
      expect(await stored()).to.deep.equal(zones);
      const list = await api.call('/v1/domains?registrar=external', { headers: bearer(key) });
      expect(list.body.data.map((d: { domain: string }) => d.domain)).not.to.include(name);
      expect(await catalog()).to.deep.equal(before);
    });
  }

  it('nor registered, nor transferred in: the zone would be an account’s (422 domain_reserved, nothing charged, nothing stored)', async () => {
    const registrar = await api.issueKey({
      environment: 'test',
      rights: ['domain.register', 'domain.read'],
      domains: ['domivka.net'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
    });
    const zones = await stored();
    const headers = { ...bearer(registrar.secret), 'idempotency-key': randomUUID() };
    const registered = await api.call('/v1/domains', { method: 'POST', headers, json: { domain: 'domivka.net', years: 1 } });
    expectErrorShape(registered, 422, 'domain_reserved');
    expect(registered.body.error.message.en)
      .to.include('domivka.net')
      .and.match(/nameservers/);
    const transfer = await api.call('/v1/domains/domivka.net/transfers', {
      method: 'POST',
      headers: { ...bearer(registrar.secret), 'idempotency-key': randomUUID() },
      json: { auth_code: 'sandbox-auth-ok' },
    });
    expectErrorShape(transfer, 422, 'domain_reserved');
    expect((await api.call('/v1/domains/domivka.net', { headers: bearer(registrar.secret) })).status).to.equal(404);
    expect(await stored()).to.deep.equal(zones);
    expect(await api.system.store.knex('ledger_entries').where({ domain: 'domivka.net' })).to.deep.equal([]);
  });

  it('a child of a zone the account holds: 409 domain_parent_in_account naming the parent; the parent’s www still answers', async () => {
    const www = (
      await api.issueKey({ environment: 'test', rights: ['domain.host', 'domain.read', 'dns.edit'], domains: ['www.domivka-demo.com.ua'] })
    ).secret;
    const before = await catalog();
    const zones = await stored();
    const res = await host('www.domivka-demo.com.ua', www);
    expectErrorShape(res, 409, 'domain_parent_in_account');
    const { en, uk } = res.body.error.message;
    expect(en).to.include('www.domivka-demo.com.ua').and.include('the zone domivka-demo.com.ua');
    expect(uk).to.include('www.domivka-demo.com.ua').and.include('зони domivka-demo.com.ua').and.match(CYRILLIC);
    expect(res.body.error.actions).to.deep.equal([{ type: 'view_records', href: '/v1/domains/domivka-demo.com.ua/dns/records' }]);
    expect((await api.call('/v1/domains/www.domivka-demo.com.ua', { headers: bearer(www) })).status).to.equal(404);
    expect(await stored()).to.deep.equal(zones);
    expect(await catalog()).to.deep.equal(before);
    const a = ask('www.domivka-demo.com.ua', 'A');
    expect(a.answers!.map((x) => x.data)).to.deep.equal(['192.0.2.10']);
  });

  it('a child of the account’s zone not verified yet is refused too (served later, it would hide the same records)', async () => {
    const parent = await host('undelegated-parent.com');
    expect(parent.status, JSON.stringify(parent.body)).to.equal(201);
    expect(parent.body.hosting.status).to.equal('pending_delegation');
    const zones = await stored();
    const res = await host('shop.undelegated-parent.com');
    expectErrorShape(res, 409, 'domain_parent_in_account');
    expect(res.body.error.message.en).to.include('undelegated-parent.com');
    expect((await api.call('/v1/domains/shop.undelegated-parent.com', { headers: bearer(key) })).status).to.equal(404);
    expect(await stored()).to.deep.equal(zones);
  });

  it('a zone of the catalog’s name (or under it) that reaches the store by another path is never served in the catalog’s place, and its removal keeps the catalog', async () => {
    const before = await catalog();
    const zs = api.system.get(TOKENS.ZoneService);
    const names = [CATALOG, `zones.${CATALOG}`];
    // As a registration, an import or a row written before the refusal would: stored and served.
    for (const name of names) {
      await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, 'test', name));
      await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', name, true));
    }
    // A member the account's zone would add, as a plan adding `deadbeef.zones PTR victim-zone.example.` did.
    const evil = `${catalogMemberId('victim-zone.example')}.zones.${CATALOG}`;
    const after = await catalog();
    expect(after.members).to.include.members(before.members);
    expect(after.members).not.to.include.members(names);
    expect(after.members).not.to.include('victim-zone.example');
    expect(ask(evil, 'PTR').answers ?? []).to.have.length(0);
    // The catalog's own SOA (RFC 9432 §4.1 placeholder), not the account zone's.
    const soa = ask(CATALOG, 'SOA').answers!.find((x) => x.type === 'SOA')!.data as { mname: string };
    expect(soa.mname).to.equal('invalid');
    for (const name of names) await api.system.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', name));
    const removed = await catalog();
    expect(removed.members).to.deep.equal(before.members);
    expect(ask(CATALOG, 'SOA').rcode).to.equal('NOERROR');
  });
});
