import { expect } from 'chai';
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';
import { dig, freePort, rdata, requireTools } from '../server/tools.js';
import { parseTsig, signRequest, verifyResponse, type TsigAlgorithm, type TsigKey } from '../../../adapters/dns/tsig.js';

/** One datagram to 127.0.0.1:port, its first answer back (or a timeout). */
const udpAsk = (port: number, msg: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const sock = dgram.createSocket('udp4');
    const timer = setTimeout(() => (sock.close(), reject(new Error('no UDP answer within 5 s'))), 5000);
    sock.once('message', (m) => {
      clearTimeout(timer);
      sock.close();
      resolve(m);
    });
    sock.send(msg, port, '127.0.0.1');
  });

const rcodeOf = (m: Buffer): number => m.readUInt16BE(2) & 0xf;
const tcOf = (m: Buffer): boolean => (m.readUInt16BE(2) & 0x0200) !== 0;

/**
 * Issue 23's gap: an UPDATE or a signed query over UDP is answered once the store has answered, after its
 * datagram's turn; the reply goes out from the socket the query came in on, in every way the server reads
 * UDP: the addon on dgram's socket ('batched'), a worker's own SO_REUSEPORT socket ('reuseport': each of
 * DNS_WORKERS ≥ 2), and dgram alone (no addon). Before, 'reuseport' answered TC (+REFUSED for an UPDATE).
 */
eachStore('DNS UPDATE and signed queries over UDP, answered late from the same socket', (kind) => {
  const modes = [
    { mode: 'batched', udp: {} },
    { mode: 'reuseport', udp: { reusePort: true } },
    { mode: 'dgram', udp: { udpBatch: false } },
  ] as const;
  for (const { mode, udp } of modes) {
    describe(mode, () => {
      let api: TestApi;
      let port: number;
      let key: TsigKey;
      let tsigArg: string;
      before(async function () {
        requireTools(this, 'nsupdate', 'dig');
        api = await startApi(kind, { dns: true, dnsUdp: udp, ...(mode === 'reuseport' ? { dnsPort: await freePort() } : {}) });
        port = api.dnsPort!;
        const k = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] });
        const t = k.body.tsig as { name: string; algorithm: string; secret: string };
        key = { name: t.name, algorithm: t.algorithm as TsigAlgorithm, secret: Buffer.from(t.secret, 'base64') };
        tsigArg = `${t.algorithm}:${t.name}:${t.secret}`;
      });
      after(async () => api?.close());

      it(`reads UDP as '${mode}'`, () => {
        expect(api.dns!.udpMode()).to.equal(mode);
      });

      it('a signed UPDATE over UDP gets its signed NOERROR over UDP (no TC) and is applied', async () => {
        const update = dnsPacket.encode({
          type: 'query',
          id: 91,
          flags: 5 << 11,
          questions: [{ name: 'domivka-demo.dev', type: 'SOA', class: 'IN' }],
          authorities: [{ name: `late-${mode}.domivka-demo.dev`, type: 'A', ttl: 60, class: 'IN', data: '192.0.2.91' }],
        });
        const now = Math.floor(Date.now() / 1000);
        const signed = signRequest(update, key, { now });
        const sentBefore = api.dns!.udpBatchStats()?.sent ?? 0;
        const reply = await udpAsk(port, signed.message);
        expect({ rcode: rcodeOf(reply), tc: tcOf(reply), id: reply.readUInt16BE(0) }).to.deep.equal({ rcode: 0, tc: false, id: 91 });
        expect(verifyResponse(reply, key, signed.mac, { now })).to.include({ ok: true });
        expect(rdata((await dig(port, `late-${mode}.domivka-demo.dev`, 'A')).answer)).to.deep.equal(['192.0.2.91']);
        if (mode !== 'dgram') expect(api.dns!.udpBatchStats()!.sent).to.be.greaterThan(sentBefore); // went out through the addon
      });

      it('a signed SOA query over UDP gets a signed answer over UDP (no TC)', async () => {
        const query = dnsPacket.encode({ type: 'query', id: 92, questions: [{ name: 'domivka-demo.dev', type: 'SOA', class: 'IN' }] });
        const now = Math.floor(Date.now() / 1000);
        const signed = signRequest(query, key, { now });
        const reply = await udpAsk(port, signed.message);
        expect({ rcode: rcodeOf(reply), tc: tcOf(reply) }).to.deep.equal({ rcode: 0, tc: false });
        expect(verifyResponse(reply, key, signed.mac, { now })).to.include({ ok: true });
        const parsed = parseTsig(reply);
        expect(parsed.kind).to.equal('tsig');
        expect(dnsPacket.decode(parsed.kind === 'tsig' ? parsed.unsigned : reply).answers!.map((a) => a.type)).to.deep.equal(['SOA']);
      });

      it('nsupdate over UDP (no -v) adds a record', async () => {
        const host = `nsupdate-udp-${mode}.domivka-demo.dev`;
        const script = `server 127.0.0.1 ${port}\nzone domivka-demo.dev\nupdate add ${host}. 60 TXT "over udp"\nsend\n`;
        const r = await new Promise<{ code: number; out: string }>((resolve) => {
          const child = execFile('nsupdate', ['-d', '-y', tsigArg], { timeout: 15_000 }, (err, so, se) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${so}${se}` }),
          );
          child.stdin!.end(script);
        });
        expect(r, r.out).to.deep.include({ code: 0 });
        expect(r.out).to.match(/status: NOERROR/);
        expect(r.out).not.to.match(/flags:[^;]*\btc\b/); // answered over UDP, not sent on to TCP
        expect(rdata((await dig(port, host, 'TXT')).answer)).to.deep.equal(['"over udp"']);
      });
    });
  }
});
