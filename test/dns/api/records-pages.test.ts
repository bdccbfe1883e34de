import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

type SetView = { name: string; type: string; ttl: number; values: string[] };

/**
 * GET …/dns/records in pages: every set once, in one order, across pages of any size — including names
 * whose order by locale and by code point differ (`_`, `*`, `-`, digits) — and a page always at the
 * zone's current serial, whatever this process listed before.
 */
eachStore('DNS records pages: cursors walk the whole zone once, at its current serial', (kind) => {
  let api: TestApi;
  let editor: string;
  const zone = 'domivka-demo.dev';
  const names = ['_dmarc', '*', '1', 'a-b', 'a_b', 'a', 'ab', '_acme-challenge.www', 'www', '9x', 'z'];
  before(async () => {
    api = await startApi(kind);
    editor = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.read'], domains: [zone] })).secret;
    await apply(names.flatMap((n) => [{ action: 'create', name: n, type: 'TXT', ttl: 300, values: [`t ${n}`] }]));
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(editor), 'idempotency-key': randomUUID() }, json });
  async function apply(changes: unknown[]): Promise<void> {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, { changes });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid, JSON.stringify(plan.body.checks)).to.equal(true);
    const applied = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  }
  const page = async (query: string) => {
    const r = await api.call(`/v1/domains/${zone}/dns/records?${query}`, { headers: bearer(editor) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body as { data: SetView[]; next_cursor: string | null; serial: number; served_by_us: boolean; nameservers: string[] };
  };
  const walk = async (limit: number, extra = '') => {
    const seen: SetView[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 200; i++) {
      const p = await page(`limit=${limit}${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(p.data.length).to.be.at.most(limit);
      seen.push(...p.data);
      cursor = p.next_cursor;
      if (cursor === null) return seen;
      expect(p.data.length, 'a page with a cursor is full').to.equal(limit);
    }
    throw new Error('the pages never ended');
  };
  const key = (s: SetView) => `${s.name} ${s.type}`;

  it('pages of 1, 2 and 5 list every set once, in the order of one page of 200', async () => {
    const whole = await page('limit=200');
    expect(whole.next_cursor).to.equal(null);
    const all = whole.data.map(key);
    for (const n of names) expect(all, n).to.include(`${n === '*' ? '*' : n}.${zone} TXT`);
    expect(all).to.include(`${zone} SOA`).and.to.include(`${zone} NS`).and.to.include(`www.${zone} A`);
    expect(new Set(all).size).to.equal(all.length);
    for (const limit of [1, 2, 5]) expect((await walk(limit)).map(key), `limit ${limit}`).to.deep.equal(all);
  });

  it('the order is by name, then type, as the list has always been', async () => {
    const all = (await page('limit=200')).data;
    const sorted = [...all].sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)));
    expect(all.map(key)).to.deep.equal(sorted.map(key));
  });

  it('filters by name or type keep their own pages', async () => {
    const txt = (await page('limit=200&type=TXT')).data.map(key);
    expect(txt).to.have.length(names.length);
    expect((await walk(3, '&type=TXT')).map(key)).to.deep.equal(txt);
    expect((await walk(1, `&name=www.${zone}`)).map(key)).to.deep.equal([`www.${zone} A`, `www.${zone} TXT`]);
  });

  it('a page after a change is at the new serial; a cursor past a removed set goes on after it', async () => {
    const first = await page('limit=3');
    const cursor = first.next_cursor!;
    const last = first.data.at(-1)!;
    const next = (await page(`limit=3&cursor=${encodeURIComponent(cursor)}`)).data.map(key);
    // Listed once (kept by this process), then the zone changes: the last set of the first page goes, one comes.
    await apply([
      { action: 'delete', name: last.name, type: last.type, current: { ttl: last.ttl, values: last.values } },
      { action: 'create', name: 'new-name', type: 'TXT', ttl: 300, values: ['added'] },
    ]);
    const after = await page('limit=200');
    expect(after.serial).to.be.greaterThan(first.serial);
    expect(after.data.map(key)).to.include(`new-name.${zone} TXT`).and.not.to.include(key(last));
    const resumed = (await page(`limit=3&cursor=${encodeURIComponent(cursor)}`)).data.map(key);
    const all = after.data.map(key);
    const start = all.indexOf(next[0]!);
    expect(resumed).to.deep.equal(all.slice(start, start + 3));
  });

  it('a cursor that is not one of ours is 422 cursor_invalid', async () => {
    for (const cursor of [
      'x',
      Buffer.from(JSON.stringify({ a: 'www' })).toString('base64url'),
      Buffer.from(JSON.stringify({ a: '[1,2]' })).toString('base64url'),
    ]) {
      const r = await api.call(`/v1/domains/${zone}/dns/records?cursor=${cursor}`, { headers: bearer(editor) });
      expect(r.status, cursor).to.equal(422);
      expect(r.body.error.code).to.equal('cursor_invalid');
    }
  });
});
