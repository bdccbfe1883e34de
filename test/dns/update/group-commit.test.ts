import { expect } from 'chai';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { promisify } from 'node:util';
import { signRequest, type TsigKey } from '../../../adapters/dns/tsig.js';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';
import { dig, digAxfr, rdata, requireTools } from '../server/tools.js';

const ZONE = 'domivka-demo.dev';
const RCODE = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH'];

/** An RR on the wire: RFC 2136 prerequisites (§2.4) have no RDATA and TTL 0; updates (§2.5) carry one. */
interface Rr {
  readonly name: string;
  readonly type: number;
  readonly cls: number;
  readonly ttl?: number;
  readonly rdata?: Buffer;
}
/** One UPDATE: prerequisites (the answer section) and updates (the authority section). */
interface Message {
  readonly prereq?: Rr[];
  readonly update: Rr[];
}
const wireName = (name: string): Buffer =>
  Buffer.concat([...name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'latin1')])), Buffer.from([0])]);
const rr = (r: Rr): Buffer => {
  const rdata = r.rdata ?? Buffer.alloc(0);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(r.type, 0);
  fixed.writeUInt16BE(r.cls, 2);
  fixed.writeUInt32BE(r.ttl ?? 0, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([wireName(r.name), fixed, rdata]);
};
const txt = (host: string, value: string): Rr => ({
  name: `${host}.${ZONE}`,
  type: 16,
  cls: 1,
  ttl: 60,
  rdata: Buffer.concat([Buffer.from([value.length]), Buffer.from(value)]),
});
/** §2.4.3: class NONE, type TXT — no TXT records at the name. */
const noTxt = (host: string): Rr => ({ name: `${host}.${ZONE}`, type: 16, cls: 254 });
/** §2.4.4: class ANY, type ANY — the name owns records. */
const inUse = (host: string): Rr => ({ name: `${host}.${ZONE}`, type: 255, cls: 255 });

/** The UPDATE on the wire: header, zone (SOA IN), prerequisites, updates. */
const encodeUpdate = (id: number, m: Message): Buffer => {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(5 << 11, 2); // opcode UPDATE
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(m.prereq?.length ?? 0, 6);
  header.writeUInt16BE(m.update.length, 8);
  return Buffer.concat([header, wireName(ZONE), Buffer.from([0, 6, 0, 1]), ...(m.prereq ?? []).map(rr), ...m.update.map(rr)]);
};

/** dig's records of an IXFR over TCP from `serial`, as [type, data] (SOA: its serial). */
const ixfr = async (port: number, serial: number): Promise<Array<[string, string]>> => {
  const { stdout } = await promisify(execFile)(
    'dig',
    ['@127.0.0.1', '-p', String(port), '+tcp', '+time=3', '+tries=1', '+nocmd', '+nostats', '+nocomments', `ixfr=${serial}`, ZONE],
    { timeout: 15_000 },
  );
  return stdout
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith(';'))
    .map((l) => {
      const [name, , , type, ...data] = l.trim().split(/\s+/);
      return [type!, type === 'SOA' ? data[2]! : `${name} ${data.join(' ')}`];
    });
};

/**
 * Issue 23: signed UPDATEs of one key to one zone that arrive while a commit of theirs is in progress are
 * committed together (core/dns/update/group-commit.ts) — one plan, one transaction, one serial — while
 * each message keeps its RFC 2136 semantics: its prerequisites judged on the zone as the messages before
 * it left it, its own rcode, no effect of a failed or refused message on the others. Real messages over
 * UDP to the embedded server; the zone read back with dig (SOA, AXFR, IXFR from the server's journal).
 */
eachStore('DNS UPDATE group commit: concurrent UPDATEs of one zone', (kind) => {
  let api: TestApi;
  let port: number;
  let keyId: string;
  let key: TsigKey;
  // One UDP socket for every UPDATE (as lego's rfc2136 provider sends them), answers matched by ID.
  const udp = dgram.createSocket('udp4');
  const waiting = new Map<number, (m: Buffer) => void>();
  before(async function () {
    udp.on('message', (m: Buffer) => waiting.get(m.readUInt16BE(0))?.(m));
    await new Promise<void>((ok) => udp.bind(0, '127.0.0.1', () => ok()));
    requireTools(this, 'dig');
    api = await startApi(kind, { dns: true });
    port = api.dnsPort!;
    const issued = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [ZONE] });
    keyId = issued.id;
    key = { name: issued.body.tsig.name, algorithm: 'hmac-sha256', secret: Buffer.from(issued.body.tsig.secret, 'base64') };
  });
  after(async () => {
    udp.close();
    await api?.close();
  });

  let id = 0;
  const send = async (m: Message): Promise<string> => {
    const msg = encodeUpdate(++id, m);
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to UPDATE ${id} in 10 s`)), 10_000);
      waiting.set(msg.readUInt16BE(0), (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      udp.send(signRequest(msg, key, { now: Math.floor(Date.now() / 1000) }).message, port, '127.0.0.1');
    });
    return RCODE[answer.readUInt16BE(2) & 0xf]!;
  };
  /** The whole answer. */
  const sendRaw = async (m: Message): Promise<Buffer> => {
    const msg = encodeUpdate(++id, m);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to UPDATE ${id} in 10 s`)), 10_000);
      waiting.set(msg.readUInt16BE(0), (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      udp.send(signRequest(msg, key, { now: Math.floor(Date.now() / 1000) }).message, port, '127.0.0.1');
    });
  };
  const serial = async () => Number((await dig(port, ZONE, 'SOA')).answer[0]!.data.split(' ')[2]);
  const txtAt = async (host: string) => rdata((await dig(port, `${host}.${ZONE}`, 'TXT')).answer);
  const commits = async () => (await api.system.store.knex('events').where({ type: 'dns.plan_applied', actor: `key:${keyId}` })).length;

  it('24 at once, failing prerequisites interleaved: each its own rcode, exactly the successful changes, fewer serials than changes, AXFR and IXFR agree', async () => {
    await send({ update: [txt('gc-taken', 'there before')] });
    const s0 = await serial();
    const events0 = await commits();
    const messages: Array<{ m: Message; want: string | 'race'; host: string; value: string }> = [];
    for (let i = 0; i < 24; i++) {
      const host = `gc-${i}`;
      const value = `v${i}`;
      if (i % 6 === 1) messages.push({ m: { prereq: [noTxt('gc-taken')], update: [txt(host, value)] }, want: 'YXRRSET', host, value });
      else if (i % 6 === 3)
        messages.push({ m: { prereq: [inUse('gc-nobody')], update: [txt(host, value)] }, want: 'NXDOMAIN', host, value });
      // §3.2 in arrival order: each claims `gc-claim` only if no message before it did — exactly one wins.
      else if (i % 6 === 5)
        messages.push({ m: { prereq: [noTxt('gc-claim')], update: [txt('gc-claim', value)] }, want: 'race', host, value });
      else messages.push({ m: { prereq: [noTxt(host)], update: [txt(host, value)] }, want: 'NOERROR', host, value });
    }
    const got = await Promise.all(messages.map((x) => send(x.m)));

    const claims = messages.map((x, i) => (x.want === 'race' ? got[i] : null)).filter((r) => r !== null);
    expect(
      claims.filter((r) => r === 'NOERROR'),
      JSON.stringify(got),
    ).to.have.length(1);
    expect(
      claims.filter((r) => r === 'YXRRSET'),
      JSON.stringify(got),
    ).to.have.length(claims.length - 1);
    messages.forEach((x, i) => {
      if (x.want !== 'race') expect(got[i], `message ${i}`).to.equal(x.want);
    });
    for (const x of messages) {
      if (x.want === 'race') continue;
      expect(await txtAt(x.host), x.host).to.deep.equal(x.want === 'NOERROR' ? [`"${x.value}"`] : []);
    }
    const winner = messages.find((x, i) => x.want === 'race' && got[i] === 'NOERROR')!;
    expect(await txtAt('gc-claim')).to.deep.equal([`"${winner.value}"`]);
    const applied = got.filter((r) => r === 'NOERROR').length;
    expect(applied).to.equal(13); // 12 own names + the one claim

    // One serial and one dns.plan_applied event (the key's) per commit, fewer commits than changes.
    const s1 = await serial();
    const n = s1 - s0;
    expect(n).to.be.greaterThan(0).and.lessThan(applied);
    expect((await commits()) - events0).to.equal(n);

    // AXFR: exactly the successful changes; IXFR from s0: n consecutive diffs adding exactly them.
    const axfr = await digAxfr(port, ZONE);
    const gcTxt = axfr.records.filter((r) => r.type === 'TXT' && /^gc-(\d+|claim)\./.test(r.name)).map((r) => `${r.name} ${r.data}`);
    const wanted = [
      ...messages.filter((x, i) => x.want === 'NOERROR' && got[i] === 'NOERROR').map((x) => `${x.host}.${ZONE}. "${x.value}"`),
      `gc-claim.${ZONE}. "${winner.value}"`,
    ];
    expect(gcTxt.sort()).to.deep.equal([...wanted].sort());
    expect(axfr.records.find((r) => r.type === 'SOA')!.data.split(' ')[2]).to.equal(String(s1));
    const lines = await ixfr(port, s0);
    const soas = lines.filter(([t]) => t === 'SOA').map(([, d]) => Number(d));
    // RFC 1995 §4: new SOA, then per diff old SOA, deletions, new SOA, additions; then the new SOA again.
    expect(soas[0]).to.equal(s1);
    expect(soas.at(-1)).to.equal(s1);
    expect(soas.slice(1, -1)).to.deep.equal(Array.from({ length: 2 * n }, (_, k) => s0 + Math.ceil(k / 2)));
    const added = lines.filter(([t]) => t === 'TXT').map(([, d]) => d);
    expect(added.sort()).to.deep.equal([...wanted].sort());
  });

  it('a batch where one message is refused (apex SOA; a CNAME beside other data) leaves the others applied', async () => {
    await send({ update: [txt('gc-cname-here', 'data')] });
    const s0 = await serial();
    const messages: Array<{ m: Message; want: string; host: string }> = [];
    for (let i = 0; i < 12; i++) {
      const host = `gc-r${i}`;
      if (i === 4) {
        messages.push({
          m: { update: [{ name: ZONE, type: 6, cls: 1, ttl: 60, rdata: Buffer.concat([wireName('a'), wireName('b'), Buffer.alloc(20)]) }] },
          want: 'REFUSED',
          host,
        });
      } else if (i === 7) {
        // Refused by the plan's checks (cname-exclusive), not by the message itself: the batch is committed
        // message by message, and only this one is refused.
        messages.push({
          m: { update: [{ name: `gc-cname-here.${ZONE}`, type: 5, cls: 1, ttl: 60, rdata: wireName(`target.${ZONE}`) }] },
          want: 'REFUSED',
          host,
        });
      } else messages.push({ m: { update: [txt(host, `r${i}`)] }, want: 'NOERROR', host });
    }
    const got = await Promise.all(messages.map((x) => send(x.m)));
    expect(got).to.deep.equal(messages.map((x) => x.want));
    for (const [i, x] of messages.entries()) {
      if (x.want === 'NOERROR') expect(await txtAt(x.host), x.host).to.deep.equal([`"r${i}"`]);
    }
    expect(rdata((await dig(port, `gc-cname-here.${ZONE}`, 'CNAME')).answer)).to.deep.equal([]);
    expect(await txtAt('gc-cname-here')).to.deep.equal(['"data"']);
    expect(await serial()).to.be.greaterThan(s0);
  });

  it('a store error during a batch commit: that batch answers SERVFAIL and changes nothing, spends no serial; the retries go through', async () => {
    const zones = api.system.store.zones;
    const commit = zones.commit.bind(zones);
    let failures = 0;
    // The database fails once in the middle of the batch's transaction, after the record sets and the new
    // serial were written (a dropped connection, a full disk): the whole transaction must roll back.
    zones.commit = async (...args: Parameters<typeof zones.commit>) => {
      const written = await commit(...args);
      if (failures++ === 0) throw new Error('store fault (test): connection lost');
      return written;
    };
    try {
      const s0 = await serial();
      const events0 = await commits();
      const hosts = Array.from({ length: 10 }, (_, i) => `gc-fault-${i}`);
      const answers = await Promise.all(hosts.map((h) => sendRaw({ update: [txt(h, 'after fault')] })));
      const rcodes = answers.map((a) => RCODE[a.readUInt16BE(2) & 0xf]!);
      expect(rcodes.filter((r) => r === 'SERVFAIL').length, JSON.stringify(rcodes)).to.be.greaterThan(0);
      expect(
        rcodes.every((r) => r === 'SERVFAIL' || r === 'NOERROR'),
        JSON.stringify(rcodes),
      ).to.equal(true);
      for (const i of answers.keys()) {
        expect(await txtAt(hosts[i]!), hosts[i]).to.deep.equal(rcodes[i] === 'NOERROR' ? ['"after fault"'] : []);
      }
      // The failed batch spent no serial and recorded no event: serials moved once per commit that held.
      expect((await serial()) - s0).to.equal((await commits()) - events0);
      // The client's retry (nsupdate and lego retry a SERVFAIL) goes through.
      const failed = hosts.filter((_, i) => rcodes[i] === 'SERVFAIL');
      expect(await Promise.all(failed.map((h) => send({ update: [txt(h, 'after fault')] })))).to.deep.equal(failed.map(() => 'NOERROR'));
      for (const h of hosts) expect(await txtAt(h), h).to.deep.equal(['"after fault"']);
      expect(await serial()).to.be.greaterThan(s0);
    } finally {
      zones.commit = commit;
    }
  });
});
