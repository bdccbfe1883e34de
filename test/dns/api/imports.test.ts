import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';
import { freePort, requireTools, runKnotd, waitFor, type Knotd } from '../server/tools.js';

const run = promisify(execFile);

const DEV = 'domivka-demo.dev';
const BLOG = 'domivka-blog.kyiv.ua';
const SHOP = 'domivka-demo.com.ua';
const TSIG_SECRET = Buffer.from('domivka-import-test-secret-32b!!').toString('base64');

/** A zone file as another provider exports it: its own SOA/NS, DNSSEC records, a type we do not serve, an IDN, $GENERATE. */
const devZoneFile = `$ORIGIN ${DEV}.
$TTL 300
@ 3600 IN SOA ns1.old-provider.net. hostmaster.old-provider.net. 7 3600 600 1209600 300
@ IN NS ns1.old-provider.net.
@ IN NS ns2.old-provider.net.
@ IN A 192.0.2.77
www IN CNAME @
пошта IN A 192.0.2.25
@ IN MX 10 xn--80a1acn3a
@ IN TXT "v=spf1 mx -all"
$GENERATE 1-3 host$ IN A 192.0.2.\${10}
@ IN DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==
@ IN RRSIG A 13 2 300 20261201000000 20261101000000 12345 ${DEV}. oJB1W6WNGv+ldvQ3WDG0MQkg5IEhjRip8WTrPYGv07h108dUKGMeDPKijVCHX3DDKdfb+v6oB9wfuh3DTJXUAfI/M0zmO/zz8bW0Rznl8O3tGNazPwQKkRN20XPXV6nwwfoXmJQbsLNrLfkGJ5D6fwFm8nN+6pBzeDQfsS3Ap3o=
sip IN NAPTR 1 1 "u" "E2U+sip" "" .
`;

/** The zone Knot serves as the "current provider": escaped TXT, CAA, SRV, a delegation with glue. */
const knotZone = (zone: string) => `$ORIGIN ${zone}.
$TTL 600
@ IN SOA ns.knot.test. admin.knot.test. 2026112601 3600 600 1209600 300
@ IN NS ns1.knot.test.
@ IN A 192.0.2.200
www IN A 192.0.2.201
@ IN TXT "quote \\" and backslash \\\\ in" "second string"
@ IN CAA 0 issue "letsencrypt.org"
_sip._tcp IN SRV 10 5 5060 www
sub IN NS ns.sub
ns.sub IN A 192.0.2.53
`;

const knotConf = (dir: string, port: number) => `
server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
key:
  - id: import-key
    algorithm: hmac-sha256
    secret: ${TSIG_SECRET}
acl:
  - id: open_xfr
    address: 127.0.0.1
    action: transfer
  - id: keyed_xfr
    address: 127.0.0.1
    key: import-key
    action: transfer
template:
  - id: default
    storage: "${dir}/zones"
    file: "%s.zone"
zone:
  - domain: ${SHOP}
    acl: open_xfr
  - domain: ${BLOG}
    acl: keyed_xfr
`;

/** A TCP "DNS server" that behaves badly in one way, to see each failure named. */
const fakeAxfr = async (behaviour: 'servfail' | 'no-closing-soa' | 'silent'): Promise<{ port: number; server: Server }> => {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.once('data', (data) => {
      if (behaviour === 'silent') return;
      const q = dnsPacket.decode(data.subarray(2));
      const zone = q.questions![0]!.name;
      const soa = {
        name: zone,
        type: 'SOA' as const,
        ttl: 300,
        data: { mname: 'ns.x.test', rname: 'a.x.test', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 },
      };
      const answer =
        behaviour === 'servfail'
          ? dnsPacket.encode({ type: 'response', id: q.id, flags: dnsPacket.AUTHORITATIVE_ANSWER | 2, questions: q.questions })
          : dnsPacket.encode({
              type: 'response',
              id: q.id,
              flags: dnsPacket.AUTHORITATIVE_ANSWER,
              questions: q.questions,
              answers: [soa, { name: `www.${zone}`, type: 'A', ttl: 300, data: '192.0.2.9' }],
            });
      const len = Buffer.alloc(2);
      len.writeUInt16BE(answer.length);
      socket.end(Buffer.concat([len, answer]));
    });
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, server };
};

eachStore('Zone import (POST /v1/domains/{domain}/dns/imports)', (kind) => {
  let api: TestApi;
  let editor: string;
  let reader: string;
  let knotPort: number;
  let knotd: Knotd | undefined;
  let dir: string;

  before(async function () {
    requireTools(this, 'dig', 'knotd', 'knotc', 'kzonecheck');
    api = await startApi(kind, {
      dns: true,
      env: {
        DNS_IMPORT_ALLOW_LOOPBACK: '1',
        DNS_IMPORT_MAX_RECORDS: '1000',
        DNS_IMPORT_MAX_BYTES: '200000',
        DNS_IMPORT_MAX_SECONDS: '5',
        DNS_IMPORT_GENERATE_MAX: '5',
      },
    });
    editor = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [DEV, BLOG, SHOP] })).secret;
    reader = (await api.issueKey({ environment: 'test', template: 'read_only', domains: [DEV] })).secret;
    dir = await mkdtemp(join(tmpdir(), 'domivka-import-knot-'));
    mkdirSync(join(dir, 'db'));
    mkdirSync(join(dir, 'zones'));
    await writeFile(join(dir, 'zones', `${SHOP}.zone`), knotZone(SHOP));
    // The keyed zone is large enough for Knot to answer in several messages (TSIG per message, RFC 8945 §5.3.1).
    const bulk = Array.from({ length: 600 }, (_, i) => `t${i} IN TXT "${String(i).padStart(4, '0')}${'x'.repeat(240)}"`).join('\n');
    await writeFile(join(dir, 'zones', `${BLOG}.zone`), `${knotZone(BLOG)}${bulk}\n`);
    knotPort = await freePort([api.dnsPort!]);
    await writeFile(join(dir, 'knot.conf'), knotConf(dir, knotPort));
    knotd = runKnotd(join(dir, 'knot.conf'));
    const up = await waitFor(
      async () =>
        (
          await run('dig', ['+short', '+time=1', '+tries=1', '-p', String(knotPort), '@127.0.0.1', SHOP, 'SOA']).catch(() => ({
            stdout: '',
          }))
        ).stdout !== '',
      10_000,
      100,
    );
    expect(up, `knotd did not start; its log:\n${knotd.log()}`).to.not.equal(null);
  });
  after(async () => {
    await knotd?.stop();
    await api?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const start = (domain: string, body: unknown, opts: { secret?: string; type?: string; key?: string } = {}) =>
    api.call(`/v1/domains/${domain}/dns/imports`, {
      method: 'POST',
      headers: {
        ...bearer(opts.secret ?? editor),
        'idempotency-key': opts.key ?? randomUUID(),
        ...(opts.type ? { 'content-type': opts.type } : {}),
      },
      ...(typeof body === 'string' || Buffer.isBuffer(body) ? { body: body as string } : { json: body }),
    });
  /** Starts an import and waits until it is no longer running. */
  const imported = async (domain: string, body: unknown, opts: { type?: string } = {}) => {
    const r = await start(domain, body, opts);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body.status).to.equal('running');
    expect(r.headers.get('location')).to.equal(`/v1/domains/${domain}/dns/imports/${r.body.id}`);
    return finished(domain, r.body.id);
  };
  /** Waits until the import `id` is no longer running and returns it. */
  const finished = async (domain: string, id: string) => {
    for (let i = 0; i < 200; i++) {
      const g = await api.call(`/v1/domains/${domain}/dns/imports/${id}`, { headers: bearer(editor) });
      expect(g.status).to.equal(200);
      if (g.body.status !== 'running') return g.body;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error('the import never finished');
  };
  const failedWith = async (domain: string, body: unknown, code: string, opts: { type?: string } = {}) => {
    const job = await imported(domain, body, opts);
    expect(job.status, JSON.stringify(job)).to.equal('failed');
    expect(job.error.code).to.equal(code);
    expect(job.error.message.uk).to.be.a('string').and.not.equal(job.error.message.en);
    expect(job.plan_id).to.equal(null);
    return job;
  };
  const plan = async (domain: string, id: string) =>
    (await api.call(`/v1/domains/${domain}/dns/plans/${id}`, { headers: bearer(editor) })).body;
  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(api.dnsPort), '@127.0.0.1', name, type])).stdout.trim();

  it('a JSON zone file → an unapplied plan: SOA/NS/DNSSEC/unknown types skipped, IDN as A-labels, $GENERATE; applied, dig sees it, kzonecheck passes', async () => {
    const job = await imported(DEV, { zone_file: devZoneFile });
    expect(job.status, JSON.stringify(job)).to.equal('ready');
    expect(job.records_read).to.equal(14);
    expect(job.skipped).to.deep.equal([
      { type: 'DNSKEY', reason: 'dnssec', count: 1, names: [DEV] },
      { type: 'NAPTR', reason: 'unsupported', count: 1, names: [`sip.${DEV}`] },
      { type: 'NS', reason: 'service-owned', count: 2, names: [DEV] },
      { type: 'RRSIG', reason: 'dnssec', count: 1, names: [DEV] },
      { type: 'SOA', reason: 'service-owned', count: 1, names: [DEV] },
    ]);
    // Nothing applied yet: the zone still answers as before.
    expect(await dig(DEV, 'A')).to.equal('192.0.2.10');
    const event = await api.system.store
      .knex('events')
      .where({ type: 'dns.import_ready', subject: `domain:${DEV}` })
      .first();
    expect(JSON.parse(event.data)).to.deep.equal({
      import_id: job.id,
      source: 'zone_file',
      records_read: 14,
      skipped: 6,
      plan_id: job.plan_id,
    });
    const p = await plan(DEV, job.plan_id);
    expect(p.valid, JSON.stringify(p.checks)).to.equal(true);
    expect(p.applied_at).to.equal(null);
    const created = p.changes.filter((c: any) => c.action === 'create').map((c: any) => `${c.name} ${c.type} ${c.values.join(',')}`);
    expect(created).to.include.members([
      `host1.${DEV} A 192.0.2.11`,
      `host3.${DEV} A 192.0.2.13`,
      `xn--80a1acn3a.${DEV} A 192.0.2.25`,
      `www.${DEV} CNAME ${DEV}.`,
    ]);
    const applied = await api.call(`/v1/domains/${DEV}/dns/plans/${p.id}/apply`, {
      method: 'POST',
      headers: { ...bearer(editor), 'idempotency-key': randomUUID() },
      json: { force: true },
    });
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    expect(await dig(DEV, 'A')).to.equal('192.0.2.77');
    expect(await dig(`host2.${DEV}`, 'A')).to.equal('192.0.2.12');
    expect(await dig(`xn--80a1acn3a.${DEV}`, 'A')).to.equal('192.0.2.25');
    expect(await dig(DEV, 'MX')).to.equal(`10 xn--80a1acn3a.${DEV}.`);
    // Our own SOA and NS stayed.
    expect(await dig(DEV, 'NS')).to.equal('ns1.domivka.net.\nns2.domivka.net.');
    const zone = await api.call(`/v1/domains/${DEV}/dns/zone`, { headers: bearer(editor) });
    const file = join(dir, 'export.zone');
    await writeFile(file, zone.body);
    const check = await run('kzonecheck', ['-o', DEV, file]).catch((e: { stdout: string; stderr: string }) => e);
    expect(`${check.stdout}${check.stderr}`).to.not.match(/error/i);
  });

  it('a raw text/dns body is streamed in, and the same Idempotency-Key replays the same job', async () => {
    const text = `$ORIGIN ${BLOG}.\n$TTL 300\n@ IN A 192.0.2.90\nnew IN TXT "hello world"\n`;
    const key = randomUUID();
    const first = await start(BLOG, text, { type: 'text/dns', key });
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    const again = await start(BLOG, text, { type: 'text/dns', key });
    expect(again.body.id).to.equal(first.body.id);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    const other = await start(BLOG, `${text}x IN A 192.0.2.1\n`, { type: 'text/dns', key });
    expect(other.status).to.equal(422);
    expect(other.body.error.code).to.equal('idempotency_key_reused');
    // The replayed job is the one that runs: wait for it rather than start another (a second import of the
    // zone while the first runs is refused with import_in_progress).
    const job = await finished(BLOG, first.body.id);
    expect(job.status, JSON.stringify(job)).to.equal('ready');
    expect(job.records_read).to.equal(2);
    const p = await plan(BLOG, job.plan_id);
    expect(p.changes.find((c: any) => c.name === `new.${BLOG}`)).to.deep.include({
      action: 'create',
      type: 'TXT',
      values: ['hello world'],
    });
  });

  it('refusals of a zone file, each with its code, line and reason', async () => {
    const head = `$ORIGIN ${DEV}.\n$TTL 300\n@ IN A 192.0.2.1\n`;
    const inc = await failedWith(DEV, { zone_file: `${head}$INCLUDE /etc/passwd\n` }, 'zone_file_include');
    const failedEvent = await api.system.store.knex('events').where({ type: 'dns.import_failed' }).orderBy('occurred_at', 'desc').first();
    expect(JSON.parse(failedEvent.data)).to.deep.equal({ import_id: inc.id, source: 'zone_file', code: 'zone_file_include' });
    expect(inc.error.message.en).to.match(/^Line 4: \$INCLUDE is refused/);
    const out = await failedWith(DEV, { zone_file: `${head}evil.com. IN A 192.0.2.66\n` }, 'zone_file_out_of_zone');
    expect(out.error.message.en).to.contain('Line 4').and.contain('evil.com.');
    const chaos = await failedWith(DEV, { zone_file: `${head}x CH TXT "a"\n` }, 'zone_file_class');
    expect(chaos.error.message.en).to.contain('Line 4').and.contain('CH');
    const broken = await failedWith(DEV, { zone_file: `${head}\n\nx IN TXT "unterminated\n` }, 'zone_file_invalid');
    expect(broken.error.message.en).to.equal('The zone file does not parse, line 6: an unterminated quoted string.');
    expect(broken.error.message.uk).to.equal('Файл зони не читається, рядок 6: незакритий рядок у лапках.');
    const gen = await failedWith(DEV, { zone_file: `${head}$GENERATE 1-100000 h$ A 192.0.2.1\n` }, 'zone_file_generate_too_large');
    expect(gen.error.message.en).to.contain('100000').and.contain('at most 5');
    // A few bytes of template never become more text than a file may hold: a width wider than any name, a field
    // longer than any name, and all the directives' text together past the import's byte limit (200,000 here).
    const wide = await failedWith(DEV, { zone_file: `${head}$GENERATE 1-5 y\${0,99999,d} A 192.0.2.1\n` }, 'zone_file_invalid');
    expect(wide.error.message.en).to.contain('line 4').and.contain('a width is at most 255');
    const long = await failedWith(DEV, { zone_file: `${head}$GENERATE 1-5 ${'\${0,255}'.repeat(5)} A 192.0.2.1\n` }, 'zone_file_invalid');
    expect(long.error.message.en).to.contain('a field of 1275 characters').and.contain('longer than any name (1020)');
    const bulk = await failedWith(DEV, { zone_file: `${head}$GENERATE 1-5 t$ TXT ${'\${0,255} '.repeat(160)}\n` }, 'zone_file_invalid');
    expect(bulk.error.message.en).to.contain('line 4').and.contain('more than 200000 characters in all');
    expect(bulk.error.message.uk).to.contain('понад 200000 символів');
    const many = Array.from({ length: 1001 }, (_, i) => `h${i} IN A 192.0.2.1`).join('\n');
    await failedWith(DEV, { zone_file: `${head}${many}\n` }, 'import_too_many_records');

    // Refused before a job exists: too large (the route's own limit), not UTF-8, wrong media type, wrong right.
    const big = await start(DEV, `${head}; ${'x'.repeat(200_001)}\n`, { type: 'text/dns' });
    expect(big.status).to.equal(413);
    expect(big.body.error.code).to.equal('payload_too_large');
    const latin = await start(DEV, Buffer.from(`${head}x IN TXT "caf\xe9"\n`, 'latin1'), { type: 'text/dns' });
    expect(latin.status).to.equal(422);
    expect(latin.body.error.code).to.equal('zone_file_invalid');
    const plain = await start(DEV, head, { type: 'text/plain' });
    expect(plain.status).to.equal(415);
    const denied = await start(DEV, { zone_file: head }, { secret: reader });
    expect(denied.status).to.equal(403);
    expect(denied.body.error.code).to.equal('right_missing');
    const unknown = await api.call(`/v1/domains/${DEV}/dns/imports/nope`, { headers: bearer(editor) });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.code).to.equal('import_not_found');
  });

  it('AXFR from Knot (no TSIG) → a plan with every record, escaped TXT included', async () => {
    const job = await imported(SHOP, { axfr: { server: `127.0.0.1:${knotPort}` } });
    expect(job.status, JSON.stringify(job)).to.equal('ready');
    expect(job.source).to.equal('axfr');
    expect(job.records_read).to.equal(9);
    expect(job.skipped.map((s: any) => `${s.type} ${s.reason} ${s.count}`)).to.deep.equal(['NS service-owned 1', 'SOA service-owned 1']);
    const p = await plan(SHOP, job.plan_id);
    expect(p.valid, JSON.stringify(p.checks)).to.equal(true);
    const byKey = Object.fromEntries(p.changes.filter((c: any) => c.action !== 'delete').map((c: any) => [`${c.name} ${c.type}`, c]));
    expect(byKey[`${SHOP} TXT`].values).to.have.members(['quote " and backslash \\ insecond string']);
    expect(byKey[`${SHOP} CAA`].values).to.deep.equal(['0 issue "letsencrypt.org"']);
    expect(byKey[`_sip._tcp.${SHOP} SRV`].values).to.deep.equal([`10 5 5060 www.${SHOP}.`]);
    expect(byKey[`sub.${SHOP} NS`].values).to.deep.equal([`ns.sub.${SHOP}.`]);
    expect(byKey[`${SHOP} A`]).to.include({ action: 'update', ttl: 600 });
  });

  it('AXFR with TSIG from Knot: signed query, every message verified; a wrong secret is named; the secret is sealed while the pull runs, then gone', async () => {
    const tsig = { name: 'import-key', algorithm: 'hmac-sha256', secret: TSIG_SECRET };
    const xfr = await run('kdig', ['-p', String(knotPort), '@127.0.0.1', '-y', `hmac-sha256:import-key:${TSIG_SECRET}`, 'AXFR', BLOG]);
    const messages = Number(/\((\d+) messages/.exec(xfr.stdout)?.[1]);
    expect(messages, xfr.stdout.slice(-300)).to.be.greaterThan(1);
    const job = await imported(BLOG, { axfr: { server: `127.0.0.1:${knotPort}`, tsig } });
    expect(job.status, JSON.stringify(job)).to.equal('ready');
    expect(job.records_read).to.equal(609);
    expect(JSON.stringify(job)).to.not.contain(TSIG_SECRET);
    const p = await plan(BLOG, job.plan_id);
    expect(p.changes.find((c: any) => c.name === `www.${BLOG}` && c.type === 'A')).to.deep.include({ values: ['192.0.2.201'] });
    expect(p.changes.find((c: any) => c.name === `t599.${BLOG}`)).to.deep.include({ action: 'create', values: [`0599${'x'.repeat(240)}`] });
    const wrong = { ...tsig, secret: Buffer.from('another secret, 32 octets long!!').toString('base64') };
    const bad = await failedWith(BLOG, { axfr: { server: `127.0.0.1:${knotPort}`, tsig: wrong } }, 'axfr_tsig_invalid');
    expect(bad.error.message.en).to.contain('BADSIG');
    const other = await failedWith(
      BLOG,
      { axfr: { server: `127.0.0.1:${knotPort}`, tsig: { ...tsig, name: 'no-such-key' } } },
      'axfr_tsig_invalid',
    );
    expect(other.error.message.en).to.contain('BADKEY');

    // At rest while the pull runs: sealed (never the secret itself); erased when it ends.
    const rows = () => api.system.store.knex('dns_imports').select('id', 'tsig_sealed', 'status');
    const fake = await fakeAxfr('silent');
    try {
      const r = await start(DEV, { axfr: { server: `127.0.0.1:${fake.port}`, tsig } });
      expect(r.status).to.equal(202);
      const running = (await rows()).find((x: any) => x.id === r.body.id);
      expect(running.status).to.equal('running');
      expect(running.tsig_sealed).to.be.a('string').and.not.contain(TSIG_SECRET);
      expect(running.tsig_sealed).to.not.contain(Buffer.from(TSIG_SECRET, 'base64').toString('latin1'));
      // One import of a zone at a time.
      const second = await start(DEV, { zone_file: '@ IN A 192.0.2.1\n' });
      expect(second.status).to.equal(409);
      expect(second.body.error.code).to.equal('import_in_progress');
      expect(second.body.error.message.en).to.contain(r.body.id);
      await waitFor(async () => (await rows()).find((x: any) => x.id === r.body.id).status !== 'running', 10_000, 100);
    } finally {
      fake.server.close();
    }
    for (const row of await rows()) expect(row.tsig_sealed, row.id).to.equal(null);
  });

  it('AXFR failures: refused by the server, nothing listening, a private address, SERVFAIL, no closing SOA, a timeout', async () => {
    const refused = await failedWith(BLOG, { axfr: { server: `127.0.0.1:${knotPort}` } }, 'axfr_refused');
    expect(refused.error.message.en).to.match(/refused the zone transfer \((NOTAUTH|REFUSED)\)/);
    const closed = await freePort([api.dnsPort!, knotPort]);
    const unreachable = await failedWith(DEV, { axfr: { server: `127.0.0.1:${closed}` } }, 'axfr_unreachable');
    expect(unreachable.error.message.en).to.contain('ECONNREFUSED');
    const priv = await failedWith(DEV, { axfr: { server: '10.20.30.40:53' } }, 'axfr_server_not_allowed');
    expect(priv.error.message.en).to.contain('10.20.30.40');
    for (const [behaviour, code] of [
      ['servfail', 'axfr_failed'],
      ['no-closing-soa', 'axfr_incomplete'],
      ['silent', 'axfr_timeout'],
    ] as const) {
      const fake = await fakeAxfr(behaviour);
      try {
        const job = await failedWith(DEV, { axfr: { server: `127.0.0.1:${fake.port}` } }, code);
        if (behaviour === 'servfail') expect(job.error.message.en).to.contain('SERVFAIL');
        if (behaviour === 'no-closing-soa') expect(job.error.message.en).to.contain('no closing SOA');
      } finally {
        fake.server.close();
      }
    }
    const bad = await start(DEV, { axfr: { server: 'no-port' } });
    expect(bad.status).to.equal(422);
    expect(bad.body.error.code).to.equal('validation_failed');
  });
});
