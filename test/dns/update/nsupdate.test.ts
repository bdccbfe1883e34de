import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';
import { dig, rdata, requireTools, tcpAsk } from '../server/tools.js';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { parseTsig, signRequest, verifyResponse, type TsigAlgorithm } from '../../../adapters/dns/tsig.js';

const rcodeOf = (m: Buffer): number => m.readUInt16BE(2) & 0xf;

/** dnspython (as certbot's rfc2136 plugin uses it): a signed UPDATE over TCP, then a signed SOA query whose answer it verifies. */
const DNSPYTHON = `
import sys, dns.update, dns.query, dns.tsigkeyring, dns.message, dns.rcode, dns.name
port, name, alg, secret = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
ring = dns.tsigkeyring.from_text({name: (alg, secret)})
u = dns.update.Update('domivka-demo.dev', keyring=ring, keyname=dns.name.from_text(name), keyalgorithm=alg)
u.add('_acme-challenge.py', 60, 'TXT', '"from dnspython"')
r = dns.query.tcp(u, '127.0.0.1', port=port, timeout=5)
print('update', dns.rcode.to_text(r.rcode()))
q = dns.message.make_query('domivka-demo.dev', 'SOA')
q.use_tsig(ring, keyname=dns.name.from_text(name), algorithm=alg)
r = dns.query.udp(q, '127.0.0.1', port=port, timeout=5)
print('query', dns.rcode.to_text(r.rcode()), 'signed' if r.had_tsig else 'unsigned', len(r.answer))
`;

interface Tsig {
  name: string;
  algorithm: string;
  secret: string;
}

/** nsupdate (BIND) or knsupdate (Knot) with a script on stdin: exit code and what it printed. */
const nsupdate = (
  tool: 'nsupdate' | 'knsupdate',
  tsig: Tsig,
  script: string,
  args: string[] = [],
): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    const child = execFile(
      tool,
      [...args, '-y', `${tsig.algorithm}:${tsig.name}:${tsig.secret}`],
      { timeout: 15_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    child.stdin!.end(script);
  });

/**
 * DESIGN "DNS UPDATE": a key's TSIG credential signs RFC 2136 updates to DNS_PORT, authorised by the key's
 * policies and applied through the plan path (serial, events). Real clients: BIND's nsupdate, Knot's knsupdate.
 */
eachStore("DNS UPDATE with a key's TSIG credential (nsupdate, knsupdate)", (kind) => {
  let api: TestApi;
  let port: number;
  let edit: { id: string; secret: string; tsig: Tsig };
  let acme: { id: string; secret: string; tsig: Tsig };
  before(async function () {
    requireTools(this, 'nsupdate', 'knsupdate', 'dig');
    api = await startApi(kind, { dns: true });
    port = api.dnsPort!;
    const e = await api.issueKey({
      environment: 'test',
      rights: ['dns.edit'],
      domains: ['domivka-demo.dev'],
      tsig_algorithm: 'hmac-sha512',
    });
    edit = { id: e.id, secret: e.secret, tsig: e.body.tsig };
    const a = await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: ['domivka-demo.dev'] });
    acme = { id: a.id, secret: a.secret, tsig: a.body.tsig };
  });
  after(async () => api?.close());

  const script = (lines: string[]) => `server 127.0.0.1 ${port}\nzone domivka-demo.dev\n${lines.join('\n')}\nsend\n`;
  const serial = async () => Number((await dig(port, 'domivka-demo.dev', 'SOA')).answer[0]!.data.split(' ')[2]);

  it('the issuance answer carries the credential: hmac-sha512 as asked, a 64-octet secret', () => {
    expect(edit.tsig.name).to.match(/^dmk-test-[0-9a-f]{20}$/);
    expect(edit.tsig.algorithm).to.equal('hmac-sha512');
    expect(Buffer.from(edit.tsig.secret, 'base64')).to.have.length(64);
    expect(acme.tsig.algorithm).to.equal('hmac-sha256');
  });

  for (const tool of ['nsupdate', 'knsupdate'] as const) {
    it(`${tool}: adds and deletes TXT and A over UDP and TCP; each change bumps the serial and is a plan applied by the key`, async () => {
      const host = `${tool}.domivka-demo.dev`;
      const before = await serial();
      const add = await nsupdate(
        tool,
        edit.tsig,
        script([`update add ${host}. 300 A 192.0.2.7`, `update add ${host}. 300 TXT "made by ${tool}"`]),
      );
      expect(add, add.out).to.deep.include({ code: 0 });
      expect(rdata((await dig(port, host, 'A')).answer)).to.deep.equal(['192.0.2.7']);
      expect(rdata((await dig(port, host, 'TXT')).answer)).to.deep.equal([`"made by ${tool}"`]);
      expect(await serial()).to.be.greaterThan(before);
      const records = await api.call('/v1/domains/domivka-demo.dev/dns/records', { headers: { authorization: `Bearer ${edit.secret}` } });
      expect(records.body.data, JSON.stringify(records.body)).to.deep.include({ name: host, type: 'A', ttl: 300, values: ['192.0.2.7'] });
      const events = await api.system.store.knex('events').where({ type: 'dns.plan_applied', actor: `key:${edit.id}` });
      expect(events.length).to.be.greaterThan(0);

      const del = await nsupdate(
        tool,
        edit.tsig,
        script([`update delete ${host}. A 192.0.2.7`, `update delete ${host}. TXT`]),
        tool === 'nsupdate' ? ['-v'] : [],
      );
      expect(del, del.out).to.deep.include({ code: 0 });
      expect((await dig(port, host, 'A')).status).to.equal('NXDOMAIN');
    });
  }

  it('prerequisites that hold apply; ones that fail answer YXRRSET / NXDOMAIN / NXRRSET and change nothing', async () => {
    const host = 'prereq.domivka-demo.dev';
    const ok = await nsupdate('nsupdate', edit.tsig, script([`prereq nxrrset ${host}. A`, `update add ${host}. 60 A 192.0.2.1`]));
    expect(ok, ok.out).to.deep.include({ code: 0 });
    const s = await serial();
    const yx = await nsupdate('nsupdate', edit.tsig, script([`prereq nxrrset ${host}. A`, `update add ${host}. 60 A 192.0.2.2`]));
    expect(yx.out).to.match(/update failed: YXRRSET/);
    const nx = await nsupdate(
      'nsupdate',
      edit.tsig,
      script([`prereq yxdomain nothing-here.domivka-demo.dev.`, `update add ${host}. 60 A 192.0.2.3`]),
    );
    expect(nx.out).to.match(/update failed: NXDOMAIN/);
    const differ = await nsupdate(
      'nsupdate',
      edit.tsig,
      script([`prereq yxrrset ${host}. A 192.0.2.9`, `update add ${host}. 60 A 192.0.2.4`]),
    );
    expect(differ.out).to.match(/update failed: NXRRSET/);
    const same = await nsupdate(
      'knsupdate',
      edit.tsig,
      script([`prereq yxrrset ${host}. A 192.0.2.1`, `update add ${host}. 60 A 192.0.2.5`]),
    );
    expect(same, same.out).to.deep.include({ code: 0 });
    expect(rdata((await dig(port, host, 'A')).answer).sort()).to.deep.equal(['192.0.2.1', '192.0.2.5']);
    expect(await serial()).to.equal(s + 1);
  });

  it('an ACME-only key adds TXT at _acme-challenge; the same key is REFUSED for an A record; another domain of the account is REFUSED, as an unknown one', async () => {
    const ok = await nsupdate('nsupdate', acme.tsig, script([`update add _acme-challenge.www.domivka-demo.dev. 60 TXT "token-1"`]));
    expect(ok, ok.out).to.deep.include({ code: 0 });
    expect(rdata((await dig(port, '_acme-challenge.www.domivka-demo.dev', 'TXT')).answer)).to.deep.equal(['"token-1"']);
    const s = await serial();
    const a = await nsupdate('nsupdate', acme.tsig, script([`update add www2.domivka-demo.dev. 60 A 192.0.2.8`]));
    expect(a.out).to.match(/update failed: REFUSED/);
    const txtElsewhere = await nsupdate('nsupdate', acme.tsig, script([`update add other.domivka-demo.dev. 60 TXT "x"`]));
    expect(txtElsewhere.out).to.match(/update failed: REFUSED/);
    const other = await nsupdate(
      'nsupdate',
      acme.tsig,
      `server 127.0.0.1 ${port}\nzone domivka-demo.com.ua\nupdate add _acme-challenge.domivka-demo.com.ua. 60 TXT "x"\nsend\n`,
    );
    expect(other.out).to.match(/update failed: REFUSED/);
    expect(await serial()).to.equal(s);
  });

  it("the apex SOA and NS stay the service's; an unknown zone is REFUSED (the key holds no right there); a wrong secret NOTAUTH(BADSIG)", async () => {
    const ns = await nsupdate('nsupdate', edit.tsig, script([`update add domivka-demo.dev. 300 NS ns.example.net.`]));
    expect(ns.out).to.match(/update failed: REFUSED/);
    const soa = await nsupdate('nsupdate', edit.tsig, script([`update delete domivka-demo.dev. SOA`]));
    expect(soa.out).to.match(/update failed: REFUSED/);
    const foreign = await nsupdate(
      'nsupdate',
      edit.tsig,
      `server 127.0.0.1 ${port}\nzone not-ours.example\nupdate add a.not-ours.example. 60 A 192.0.2.1\nsend\n`,
    );
    expect(foreign.out).to.match(/update failed: REFUSED/);
    // A zone name no zone can have (a label that starts with "_", a TLD): no zone of anyone's, NOTAUTH, never SERVFAIL.
    for (const zone of ['_acme-challenge.domivka-demo.dev', 'dev']) {
      const odd = await nsupdate('nsupdate', edit.tsig, `server 127.0.0.1 ${port}\nzone ${zone}\nupdate add x.${zone}. 60 TXT "x"\nsend\n`);
      expect(odd.out, zone).to.match(/update failed: NOTAUTH/);
    }
    const wrong = { ...edit.tsig, secret: Buffer.alloc(64, 7).toString('base64') };
    const bad = await nsupdate('nsupdate', wrong, script([`update add x.domivka-demo.dev. 60 A 192.0.2.1`]));
    expect(bad.out).to.match(/NOTAUTH\(BADSIG\)/);
  });

  it("a key without a DNS right on a zone cannot tell the account's zones (another domain, an unverified hosted one) from unknown names: REFUSED alike (not NOTAUTH, which Go clients read as a bad key); a dns.read key on its own zone is REFUSED with its reason", async () => {
    const hoster = await api.issueKey({ environment: 'test', rights: ['domain.host'], domains: ['unverified-update.org'] });
    const hosted = await api.call('/v1/hosted-domains', {
      method: 'POST',
      headers: { authorization: `Bearer ${hoster.secret}`, 'idempotency-key': `h-${Date.now()}` },
      json: { domain: 'unverified-update.org' },
    });
    expect(hosted.status, JSON.stringify(hosted.body)).to.equal(201);
    // Not verified yet: stored and editable, never served (the sandbox verifies at once, so it is set back here).
    await api.system.store.knex('dns_zones').where({ domain: 'unverified-update.org', environment: 'test' }).update({ served: false });
    /** nsupdate's answer with the zone's name taken out: what could tell one zone from another. */
    const answer = async (tool: 'nsupdate' | 'knsupdate', zone: string) => {
      const r = await nsupdate(
        tool,
        edit.tsig,
        `server 127.0.0.1 ${port}\nzone ${zone}\nupdate add _acme-challenge.${zone}. 60 TXT "x"\nsend\n`,
      );
      // Without what differs in every message: the id, the TSIG record (its MAC), the spacing after the name.
      const out = r.out
        .replaceAll(zone, '<zone>')
        .replace(/id: \d+/g, 'id: N')
        .split('\n')
        .filter((l) => !l.startsWith(edit.tsig.name))
        .map((l) => l.replace(/\s+/g, ' '));
      return { code: r.code, out };
    };
    for (const tool of ['nsupdate', 'knsupdate'] as const) {
      const unknown = await answer(tool, 'never-registered-anywhere.com.ua');
      expect(unknown.out.join('\n'), tool).to.match(/REFUSED/);
      expect(await answer(tool, 'domivka-demo.com.ua'), `${tool}: the account's other domain`).to.deep.equal(unknown);
      expect(await answer(tool, 'unverified-update.org'), `${tool}: the account's unverified hosted zone`).to.deep.equal(unknown);
    }
    // A key that may read the zone knows of it: its UPDATE is refused by policy.
    const reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: ['domivka-demo.dev'] })).body.tsig;
    const read = await nsupdate('nsupdate', reader, script([`update add r.domivka-demo.dev. 60 A 192.0.2.1`]));
    expect(read.out).to.match(/update failed: REFUSED/);
  });

  it("a revoked key's credential is refused at once: NOTAUTH(BADKEY)", async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] });
    const first = await nsupdate('nsupdate', k.body.tsig, script([`update add revoked.domivka-demo.dev. 60 A 192.0.2.1`]));
    expect(first, first.out).to.deep.include({ code: 0 });
    const cookie = await api.signIn();
    expect((await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    const after = await nsupdate('nsupdate', k.body.tsig, script([`update add revoked.domivka-demo.dev. 60 A 192.0.2.2`]));
    expect(after.out).to.match(/NOTAUTH\(BADKEY\)/);
  });

  it("dnspython (certbot's library) updates, and its signed SOA query gets a signed answer it verifies", async () => {
    const out = await new Promise<string>((resolve) =>
      execFile(
        '/usr/bin/python3',
        ['-c', DNSPYTHON, String(port), acme.tsig.name, acme.tsig.algorithm, acme.tsig.secret],
        { timeout: 20_000 },
        (_e, so, se) => resolve(`${so}${se}`),
      ),
    );
    expect(out).to.contain('update NOERROR');
    expect(out).to.contain('query NOERROR signed 1');
    expect(rdata((await dig(port, '_acme-challenge.py.domivka-demo.dev', 'TXT')).answer)).to.deep.equal(['"from dnspython"']);
  });

  it('a replayed signed UPDATE is refused (NOTAUTH) and changes nothing', async () => {
    const update = dnsPacket.encode({
      type: 'query',
      id: 77,
      flags: 5 << 11,
      questions: [{ name: 'domivka-demo.dev', type: 'SOA', class: 'IN' }],
      authorities: [{ name: 'replay.domivka-demo.dev', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.77' }],
    });
    const key = { name: edit.tsig.name, algorithm: edit.tsig.algorithm as TsigAlgorithm, secret: Buffer.from(edit.tsig.secret, 'base64') };
    const now = Math.floor(Date.now() / 1000);
    const signed = signRequest(update, key, { now });
    const first = await tcpAsk(port, signed.message);
    expect(rcodeOf(first)).to.equal(0);
    expect(verifyResponse(first, key, signed.mac, { now })).to.include({ ok: true });
    const s = await serial();
    const again = await tcpAsk(port, signed.message);
    expect(rcodeOf(again)).to.equal(9);
    expect(verifyResponse(again, key, signed.mac, { now })).to.include({ ok: true }); // refused, but by us: signed
    expect(await serial()).to.equal(s);
    // Signed 10 minutes ago: outside any window, BADTIME.
    const old = signRequest(update, key, { now: now - 600 });
    const late = await tcpAsk(port, old.message);
    const t = parseTsig(late);
    expect(rcodeOf(late)).to.equal(9);
    expect(t.kind === 'tsig' && t.tsig.error).to.equal(18);
  });

  it('a key bound to a CIDR: UDP gets TC and REFUSED (so no client takes it for success), TCP applies; outside the CIDR, REFUSED', async () => {
    const inside = await api.issueKey({
      environment: 'test',
      rights: ['dns.edit'],
      domains: ['domivka-demo.dev'],
      conditions: { cidr: '127.0.0.1/32' },
    });
    const update = dnsPacket.encode({
      type: 'query',
      id: 78,
      flags: 5 << 11,
      questions: [{ name: 'domivka-demo.dev', type: 'SOA', class: 'IN' }],
      authorities: [{ name: 'cidr.domivka-demo.dev', type: 'A', ttl: 60, class: 'IN', data: '192.0.2.78' }],
    });
    const key = { name: inside.body.tsig.name, algorithm: 'hmac-sha256' as const, secret: Buffer.from(inside.body.tsig.secret, 'base64') };
    const udpReply = await new Promise<Buffer>((resolve) => {
      const sock = dgram.createSocket('udp4');
      sock.on('message', (m: Buffer) => {
        sock.close();
        resolve(m);
      });
      sock.send(signRequest(update, key, { now: Math.floor(Date.now() / 1000) }).message, port, '127.0.0.1');
    });
    expect(udpReply.readUInt16BE(2) & 0x0200).to.equal(0x0200);
    expect(rcodeOf(udpReply)).to.equal(5);
    expect((await dig(port, 'cidr.domivka-demo.dev', 'A')).status).to.equal('NXDOMAIN');
    const overUdp = await nsupdate('nsupdate', inside.body.tsig, script([`update add cidr.domivka-demo.dev. 60 A 192.0.2.78`]));
    expect(overUdp.out).to.match(/update failed: REFUSED/);
    const viaNsupdate = await nsupdate('nsupdate', inside.body.tsig, script([`update add cidr.domivka-demo.dev. 60 A 192.0.2.78`]), ['-v']);
    expect(viaNsupdate, viaNsupdate.out).to.deep.include({ code: 0 });
    expect(rdata((await dig(port, 'cidr.domivka-demo.dev', 'A')).answer)).to.deep.equal(['192.0.2.78']);
    const outside = await api.issueKey({
      environment: 'test',
      rights: ['dns.edit'],
      domains: ['domivka-demo.dev'],
      conditions: { cidr: '10.0.0.0/8' },
    });
    const refused = await nsupdate('nsupdate', outside.body.tsig, script([`update add cidr2.domivka-demo.dev. 60 A 192.0.2.79`]), ['-v']);
    expect(refused.out).to.match(/update failed: REFUSED/);
  });

  it('failed TSIG checks count in the credential limiter: after 5 for one key name, REFUSED with the wait, the real key too', async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] });
    const wrong = { ...k.body.tsig, secret: Buffer.alloc(32, 9).toString('base64') };
    const outs: string[] = [];
    for (let i = 0; i < 6; i++)
      outs.push((await nsupdate('nsupdate', wrong, script([`update add limited.domivka-demo.dev. 60 A 192.0.2.1`]), ['-v'])).out);
    expect(
      outs.slice(0, 5).every((o) => /NOTAUTH\(BADSIG\)/.test(o)),
      outs.join('\n'),
    ).to.equal(true);
    expect(outs[5]).to.match(/update failed: REFUSED/);
    // The right secret from this address now waits too (the person/pair counters of sign-in, here per key name).
    const right = await nsupdate('nsupdate', k.body.tsig, script([`update add limited.domivka-demo.dev. 60 A 192.0.2.1`]), ['-v']);
    expect(right.out).to.match(/update failed: REFUSED/);
    api.clock.advance(2 * 3600_000); // the burst is over
    const later = await nsupdate('nsupdate', k.body.tsig, script([`update add limited.domivka-demo.dev. 60 A 192.0.2.1`]), ['-v']);
    expect(later, later.out).to.deep.include({ code: 0 });
  });

  it('many correctly signed UPDATEs from one key at once are all applied: only failed TSIG checks count in the limiter', async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] });
    const key = {
      name: k.body.tsig.name,
      algorithm: k.body.tsig.algorithm as TsigAlgorithm,
      secret: Buffer.from(k.body.tsig.secret, 'base64'),
    };
    const now = Math.floor(Date.now() / 1000);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        tcpAsk(
          port,
          signRequest(
            dnsPacket.encode({
              type: 'query',
              id: 1000 + i,
              flags: 5 << 11,
              questions: [{ name: 'domivka-demo.dev', type: 'SOA', class: 'IN' }],
              authorities: [{ name: `burst${i}.domivka-demo.dev`, type: 'A', ttl: 60, class: 'IN', data: '192.0.2.12' }],
            }),
            key,
            { now },
          ).message,
        ),
      ),
    );
    // Busy zone answers (SERVFAIL) may happen under contention; what must never come is REFUSED.
    expect(answers.map(rcodeOf).filter((r) => r === 5)).to.deep.equal([]);
    expect(answers.map(rcodeOf).filter((r) => r === 0).length).to.be.greaterThan(0);
  });

  it("an expired key's credential is refused: NOTAUTH(BADKEY) (last: it moves the clock)", async () => {
    const k = await api.issueKey({
      environment: 'test',
      rights: ['dns.edit'],
      domains: ['domivka-demo.dev'],
      conditions: { expires_on: new Date(api.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10) },
    });
    api.clock.advance(3 * 86_400_000);
    const r = await nsupdate('nsupdate', k.body.tsig, script([`update add expired.domivka-demo.dev. 60 A 192.0.2.1`]));
    expect(r.out).to.match(/NOTAUTH\(BADKEY\)/);
  });
});
