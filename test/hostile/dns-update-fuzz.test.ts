import { expect } from 'chai';
import net from 'node:net';
import fc from 'fast-check';
import { signRequest, verifyResponse, type TsigAlgorithm, type TsigKey } from '../../adapters/dns/tsig.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { dig, requireTools } from '../dns/server/tools.js';

/**
 * DNS UPDATE fuzzing (issue 23): UPDATE messages with a valid TSIG of a dns.edit key and hostile bodies —
 * records of every class (IN, ANY, NONE and others) and meta types, empty or random RDATA, TTLs on deletes,
 * names outside the zone, huge counts, octets after the last record, random flips of the body (signed after
 * the flip, so the MAC is right). Every message gets a signed answer with an RFC 2136 rcode, never
 * SERVFAIL, and the zone keeps answering. DNS_FUZZ_UPDATES sets the count (default 150); FUZZ_SEED replays.
 */
const COUNT = Number(process.env.DNS_FUZZ_UPDATES ?? 150);
const SEED = process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== 'random' ? Number(process.env.FUZZ_SEED) : 2136;
const ZONE = 'domivka-demo.dev';
const OK_RCODES = new Set([0, 1, 3, 5, 6, 7, 8, 9, 10]); // NOERROR FORMERR NXDOMAIN REFUSED YXDOMAIN YXRRSET NXRRSET NOTAUTH NOTZONE

const wireName = (n: string): Buffer =>
  Buffer.concat([
    ...n
      .split('.')
      .filter(Boolean)
      .map((l) => Buffer.concat([Buffer.from([Math.min(l.length, 63)]), Buffer.from(l.slice(0, 63))])),
    Buffer.from([0]),
  ]);

const rr = (name: string, type: number, klass: number, ttl: number, rdata: Buffer): Buffer => {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(klass, 2);
  fixed.writeUInt32BE(ttl >>> 0, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([wireName(name), fixed, rdata]);
};

const NAMES = [ZONE, `www.${ZONE}`, `fz.${ZONE}`, `_acme-challenge.${ZONE}`, `*.${ZONE}`, 'other.example', `a.b.c.${ZONE}`];
const rrArb = fc
  .record({
    name: fc.constantFrom(...NAMES),
    type: fc.constantFrom(1, 1, 16, 16, 2, 5, 6, 15, 28, 33, 41, 99, 251, 252, 255, 257, 65280),
    klass: fc.constantFrom(1, 1, 1, 1, 254, 255, 255, 3),
    ttl: fc.constantFrom(0, 0, 0, 60, 300, 0xffffffff),
    rdata: fc.oneof(
      fc.constant(Buffer.alloc(0)),
      fc.constant(Buffer.from([192, 0, 2, 9])),
      fc.constant(Buffer.from([192, 0, 2, 9])),
      fc.constant(Buffer.from('\x05hello')),
      fc.constant(Buffer.from('\x05hello')),
      fc.constant(Buffer.concat([Buffer.from([0, 10]), wireName(`mail.${ZONE}`)])),
      fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
    ),
  })
  .map((r) => rr(r.name, r.type, r.klass, r.ttl, r.rdata));

/** Records RFC 2136 allows (so most messages reach the checks), mixed with the hostile ones above. */
const goodUpdate = fc
  .record({
    name: fc.constantFrom(...NAMES),
    op: fc.constantFrom('add-a', 'add-txt', 'add-cname', 'add-ns', 'add-soa', 'del-rrset', 'del-name', 'del-value'),
  })
  .map(({ name, op }) => {
    switch (op) {
      case 'add-a':
        return rr(name, 1, 1, 60, Buffer.from([192, 0, 2, 7]));
      case 'add-txt':
        return rr(name, 16, 1, 60, Buffer.from('\x05fuzzy'));
      case 'add-cname':
        return rr(name, 5, 1, 60, wireName(`www.${ZONE}`));
      case 'add-ns':
        return rr(name, 2, 1, 60, wireName('ns.example.net'));
      case 'add-soa':
        return rr(name, 6, 1, 60, Buffer.concat([wireName('a.example'), wireName('b.example'), Buffer.alloc(20, 1)]));
      case 'del-rrset':
        return rr(name, 16, 255, 0, Buffer.alloc(0));
      case 'del-name':
        return rr(name, 255, 255, 0, Buffer.alloc(0));
      default:
        return rr(name, 1, 254, 0, Buffer.from([192, 0, 2, 7]));
    }
  });
const goodPrereq = fc
  .record({ name: fc.constantFrom(...NAMES), type: fc.constantFrom(1, 16, 255), klass: fc.constantFrom(254, 255) })
  .map(({ name, type, klass }) => rr(name, type, klass, 0, Buffer.alloc(0)));

const updateArb = fc
  .record({
    zone: fc.constantFrom(ZONE, ZONE, 'other.example', `www.${ZONE}`),
    zoneType: fc.constantFrom(6, 6, 6, 1),
    prereqs: fc.array(fc.oneof({ weight: 4, arbitrary: goodPrereq }, { weight: 1, arbitrary: rrArb }), { maxLength: 2 }),
    updates: fc.array(fc.oneof({ weight: 5, arbitrary: goodUpdate }, { weight: 1, arbitrary: rrArb }), { maxLength: 3 }),
    lieAboutCounts: fc.constantFrom(false, false, false, false, false, false, false, true),
    trailing: fc.constantFrom(false, false, false, false, false, false, false, true),
    flips: fc.oneof(
      { weight: 3, arbitrary: fc.constant([] as Array<[number, number]>) },
      { weight: 1, arbitrary: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 2 }) },
    ),
  })
  .map((u) => {
    const head = Buffer.alloc(12);
    head.writeUInt16BE(5 << 11, 2);
    head.writeUInt16BE(1, 4);
    head.writeUInt16BE(u.lieAboutCounts ? 9000 : u.prereqs.length, 6);
    head.writeUInt16BE(u.updates.length, 8);
    const zone = Buffer.concat([wireName(u.zone), Buffer.from([0, u.zoneType, 0, 1])]);
    const body = Buffer.concat([head, zone, ...u.prereqs, ...u.updates, u.trailing ? Buffer.from([1, 2, 3]) : Buffer.alloc(0)]);
    for (const [at, v] of u.flips) if (body.length > 12) body[12 + (at % (body.length - 12))] = v;
    return body;
  });

const tcpAsk = (port: number, msg: Buffer): Promise<Buffer | null> =>
  new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const sock = net.connect(port, '127.0.0.1', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(msg.length);
      sock.write(Buffer.concat([len, msg]));
    });
    sock.setTimeout(5000, () => {
      sock.destroy();
      resolve(null);
    });
    sock.on('error', () => resolve(null));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        sock.destroy();
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      }
    });
  });

eachStore('Hostile: DNS UPDATE fuzzing with a valid TSIG', (kind) => {
  let api: TestApi;
  let key: TsigKey;
  before(async function () {
    requireTools(this, 'dig');
    // Each UPDATE spends a token of the key's rate limit: a burst that holds them all, so every body is judged.
    api = await startApi(kind, { dns: true, env: { RATE_LIMIT_BURST: String(Math.max(200, COUNT + 50)) } });
    const t = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [ZONE] })).body.tsig;
    key = { name: t.name, algorithm: t.algorithm as TsigAlgorithm, secret: Buffer.from(t.secret, 'base64') };
  });
  after(async () => api?.close());

  it(`${COUNT} signed UPDATEs with hostile bodies: a signed RFC 2136 rcode each, never SERVFAIL, the zone still served (seed ${SEED})`, async function () {
    this.timeout(600_000);
    const failures: string[] = [];
    const rcodes = new Map<number, number>();
    for (const [i, body] of fc.sample(updateArb, { seed: SEED, numRuns: COUNT }).entries()) {
      body.writeUInt16BE(i & 0xffff, 0);
      const now = Math.floor(Date.now() / 1000);
      const signed = signRequest(body, key, { now });
      const reply = await tcpAsk(api.dnsPort!, signed.message);
      if (!reply) {
        failures.push(`#${i} ${body.toString('hex')}: no answer`);
        continue;
      }
      const rc = reply.readUInt16BE(2) & 0xf;
      rcodes.set(rc, (rcodes.get(rc) ?? 0) + 1);
      if (reply.readUInt16BE(0) !== (i & 0xffff)) failures.push(`#${i}: reply ID ${reply.readUInt16BE(0)}`);
      if (!OK_RCODES.has(rc)) failures.push(`#${i} ${body.toString('hex')}: rcode ${rc}`);
      // A message whose records cannot be walked has no TSIG we could find: FORMERR, unsigned (RFC 8945 §5.2).
      const v = verifyResponse(reply, key, signed.mac, { now });
      if (!v.ok && !(rc === 1 && v.reason === 'response not signed'))
        failures.push(`#${i} ${body.toString('hex')}: answer not signed right (${v.reason})`);
    }
    console.log(`      DNS UPDATE fuzz: ${COUNT} messages (seed ${SEED}); rcodes ${JSON.stringify(Object.fromEntries(rcodes))}`);
    expect(failures, `replay with FUZZ_SEED=${SEED}\n${failures.slice(0, 20).join('\n')}`).to.deep.equal([]);
    expect(rcodes.get(1) ?? 0, 'some bodies are malformed').to.be.greaterThan(0);
    expect(rcodes.get(0) ?? 0, 'some bodies are applied').to.be.greaterThan(0);
    expect(rcodes.get(5) ?? 0, 'some bodies are refused by the checks').to.be.greaterThan(0);
    const soa = await dig(api.dnsPort!, ZONE, 'SOA');
    expect(soa.status).to.equal('NOERROR');
    expect((await dig(api.dnsPort!, `www.${ZONE}`, 'A')).status).to.equal('NOERROR');
  });
});
