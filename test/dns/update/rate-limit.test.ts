import { expect } from 'chai';
import { execFile } from 'node:child_process';
import dnsPacket from 'dns-packet';
import { signRequest, verifyResponse, type TsigKey } from '../../../adapters/dns/tsig.js';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';
import { dig, EDNS_OPT, rdata, requireTools, tcpAsk } from '../server/tools.js';

const kdigSigned = (port: number, tsig: { name: string; algorithm: string; secret: string }, ...args: string[]): Promise<string> =>
  new Promise((resolve) =>
    execFile(
      'kdig',
      ['@127.0.0.1', '-p', String(port), '+time=2', '+retry=0', '-y', `${tsig.algorithm}:${tsig.name}:${tsig.secret}`, ...args],
      { timeout: 15_000 },
      (_err, so, se) => resolve(`${so}${se}`),
    ),
  );

/** The Extended DNS Error (RFC 8914, option 15) of an answer: its info code and text. */
const edeOf = (msg: Buffer): { code: number; text: string } | null => {
  const opt = dnsPacket.decode(msg).additionals?.find((a) => a.type === 'OPT') as
    { options?: { code: number; data?: Buffer }[] } | undefined;
  const o = opt?.options?.find((x) => x.code === 15);
  return o?.data ? { code: o.data.readUInt16BE(0), text: o.data.subarray(2).toString('utf8') } : null;
};

const ZONE = 'domivka-demo.dev';

/**
 * Issue "DNS UPDATE … Each UPDATE and each signed transfer spends the key's rate-limit tokens": the TSIG
 * credential is the key, so its UPDATEs and signed AXFR/IXFR take tokens from the same bucket as its API
 * calls (RATE_LIMIT_BURST / RATE_LIMIT_PER_SECOND, per process). Past the limit: REFUSED, signed, with an
 * Extended DNS Error naming the limit, and nothing changed. The buckets' time stands still here unless the
 * test moves it, so every count is exact.
 */
eachStore("DNS UPDATE spends the key's rate limit", (kind) => {
  let api: TestApi;
  let port: number;
  let k: { id: string; secret: string; tsig: { name: string; algorithm: string; secret: string } };
  let key: TsigKey;
  let rateNow = Date.now();
  before(async function () {
    requireTools(this, 'kdig', 'dig');
    api = await startApi(kind, {
      dns: true,
      env: { RATE_LIMIT_BURST: '100', RATE_LIMIT_PER_SECOND: '1' },
      rateLimitNow: () => rateNow,
    });
    port = api.dnsPort!;
    const issued = await api.issueKey({ environment: 'test', rights: ['dns.read', 'dns.edit'], domains: [ZONE] });
    k = { id: issued.id, secret: issued.secret, tsig: issued.body.tsig };
    key = { name: k.tsig.name, algorithm: 'hmac-sha256', secret: Buffer.from(k.tsig.secret, 'base64') };
  });
  after(async () => api?.close());

  /** A signed UPDATE adding one TXT value, with EDNS (so a refusal carries an EDE). */
  let n = 0;
  const update = (host: string) => {
    const msg = dnsPacket.encode({
      type: 'query',
      id: ++n,
      flags: 5 << 11,
      questions: [{ name: ZONE, type: 'SOA', class: 'IN' }],
      authorities: [{ name: `${host}.${ZONE}`, type: 'TXT', ttl: 60, class: 'IN', data: [`v${n}`] }],
      additionals: [EDNS_OPT],
    });
    return signRequest(msg, key, { now: Math.floor(Date.now() / 1000) });
  };
  const remaining = async (): Promise<{ status: number; remaining: number }> => {
    const r = await api.call(`/v1/domains/${ZONE}/dns/records?limit=1`, { headers: bearer(k.secret) });
    return { status: r.status, remaining: Number(r.headers.get('ratelimit-remaining')) };
  };
  /** API calls until one is refused (429): the bucket is empty now. */
  const drain = async () => {
    for (let i = 0; i < 200; i++) if ((await remaining()).status === 429) return;
    throw new Error('the bucket never ran out');
  };
  const serial = async () => Number((await dig(port, ZONE, 'SOA')).answer[0]!.data.split(' ')[2]);

  it("each UPDATE and each signed AXFR takes a token from the bucket the key's API calls spend", async () => {
    const before = (await remaining()).remaining;
    for (let i = 0; i < 4; i++) {
      const signed = update(`spend${i}`);
      const reply = await tcpAsk(port, signed.message);
      expect(reply.readUInt16BE(2) & 0xf, `UPDATE ${i}`).to.equal(0);
    }
    const axfr = await kdigSigned(port, k.tsig, ZONE, 'AXFR');
    expect(axfr).to.contain('spend3');
    const after = (await remaining()).remaining;
    expect(before - after, '4 UPDATEs + 1 AXFR + 1 API call').to.equal(6);
  });

  it('past the limit an UPDATE is REFUSED, signed, with an EDE naming the limit, and nothing changes; a signed AXFR too', async () => {
    const s = await serial();
    await drain();
    // Signed queries other than transfers spend nothing: certbot's SOA lookup before each UPDATE still works.
    expect(await kdigSigned(port, k.tsig, ZONE, 'SOA')).to.match(/status: NOERROR/);
    const signed = update('over');
    const reply = await tcpAsk(port, signed.message);
    expect(reply.readUInt16BE(2) & 0xf).to.equal(5); // REFUSED
    expect(verifyResponse(reply, key, signed.mac, { now: Math.floor(Date.now() / 1000) })).to.include({ ok: true });
    const ede = edeOf(reply);
    expect(ede?.code).to.equal(18); // Prohibited
    expect(ede?.text).to.match(/^rate_limited: .*retry in \d+ s$/);
    expect(rdata((await dig(port, `over.${ZONE}`, 'TXT')).answer)).to.deep.equal([]);
    expect(await serial()).to.equal(s);

    const axfr = signRequest(
      dnsPacket.encode({
        type: 'query',
        id: ++n,
        questions: [{ name: ZONE, type: 'AXFR', class: 'IN' }],
        additionals: [EDNS_OPT],
      }),
      key,
      { now: Math.floor(Date.now() / 1000) },
    );
    const refused = await tcpAsk(port, axfr.message);
    expect(refused.readUInt16BE(2) & 0xf).to.equal(5);
    expect(verifyResponse(refused, key, axfr.mac, { now: Math.floor(Date.now() / 1000) })).to.include({ ok: true });
    expect(edeOf(refused)?.text).to.match(/^rate_limited: /);
    expect(dnsPacket.decode(refused).answers).to.deep.equal([]);
  });

  it('once the bucket refills, the same key updates again, and its API calls find the token spent', async () => {
    await drain();
    rateNow += 2000; // two tokens
    const reply = await tcpAsk(port, update('refilled').message);
    expect(reply.readUInt16BE(2) & 0xf).to.equal(0);
    expect(rdata((await dig(port, `refilled.${ZONE}`, 'TXT')).answer)).to.have.length(1);
    expect((await remaining()).status).to.equal(200);
    expect((await remaining()).status).to.equal(429);
  });
});
