import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { freePort, requireTools, runKnotd, waitFor } from '../../test/dns/server/tools.js';
import {
  failureResponse,
  parseTsig,
  signRequest,
  signResponse,
  TSIG_ERROR,
  TsigStreamSigner,
  TsigStreamVerifier,
  verifyResponse,
  verifySignedRequest,
  type TsigAlgorithm,
  type TsigKey,
  type VerifyResult,
} from './tsig.js';

const nowSec = (): number => Math.floor(Date.now() / 1000);
const key = (algorithm: TsigAlgorithm, name = `k-${algorithm}.tsig.test`): TsigKey => ({ name, algorithm, secret: randomBytes(32) });
const run = (cmd: string, args: readonly string[], input?: string): Promise<{ code: number; out: string }> =>
  new Promise((resolve) => {
    const child = execFile(cmd, args, { timeout: 15_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });

const query = (name: string, type: dnsPacket.RecordType, id = 4242): Buffer =>
  dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name, class: 'IN' }] });

/** The answer to an unsigned request: same ID and question, QR|AA, the given rcode and answers. */
const answer = (unsigned: Buffer, rcode: number, answers: dnsPacket.Answer[] = []): Buffer => {
  const req = dnsPacket.decode(unsigned);
  const out = dnsPacket.encode({
    type: 'response',
    id: req.id,
    flags: (unsigned.readUInt16BE(2) & 0x7800) | 0x0400,
    questions: req.questions,
    answers,
  });
  out.writeUInt16BE((out.readUInt16BE(2) & 0xfff0) | rcode, 2);
  return out;
};

const soa: dnsPacket.Answer = {
  type: 'SOA',
  name: 'tsig.test',
  ttl: 300,
  data: { mname: 'ns1.tsig.test', rname: 'h.tsig.test', serial: 7, refresh: 1, retry: 1, expire: 1, minimum: 1 },
};

/**
 * A small signing peer for real clients: verifies each request with our code, remembers the outcome,
 * and answers signed (an SOA for a QUERY, NOERROR for an UPDATE, a multi-message AXFR over TCP).
 */
const startPeer = async (
  keys: readonly TsigKey[],
  opts: { axfrMessages?: number; signWith?: TsigKey } = {},
): Promise<{ port: number; seen: VerifyResult[]; close: () => Promise<void> }> => {
  const seen: VerifyResult[] = [];
  const axfrMessages = opts.axfrMessages ?? 3;
  const byName = new Map(keys.map((k) => [k.name.toLowerCase(), k]));
  const handle = (msg: Buffer): Buffer[] => {
    const now = nowSec();
    const v = verifySignedRequest(msg, (n) => byName.get(n), { now });
    if (v.ok === 'unsigned') return [answer(msg, 5)];
    seen.push(v);
    if (!v.ok) {
      const base = parseTsig(msg);
      return [failureResponse(answer(base.kind === 'tsig' ? base.unsigned : msg, v.rcode), v, now)];
    }
    const q = dnsPacket.decode(v.unsigned).questions?.[0];
    if (q?.type === 'AXFR') {
      const signer = new TsigStreamSigner(opts.signWith ?? v.key, v.tsig.mac);
      const out: Buffer[] = [];
      for (let i = 0; i < axfrMessages; i++) {
        const recs: dnsPacket.Answer[] = Array.from({ length: 20 }, (_, j) => ({
          type: 'TXT',
          name: `r${i}-${j}.tsig.test`,
          ttl: 60,
          data: `message ${i} record ${j}`,
        }));
        if (i === 0) recs.unshift(soa);
        if (i === axfrMessages - 1) recs.push(soa);
        out.push(signer.sign(answer(v.unsigned, 0, recs), now));
      }
      return out;
    }
    return [signResponse(answer(v.unsigned, 0, q?.type === 'SOA' ? [soa] : []), opts.signWith ?? v.key, v.tsig.mac, { now }).message];
  };
  const port = await freePort();
  const udp = dgram.createSocket('udp4');
  udp.on('message', (m, rinfo) => {
    for (const r of handle(m)) udp.send(r, rinfo.port, rinfo.address);
  });
  await new Promise<void>((ok) => udp.bind(port, '127.0.0.1', () => ok()));
  const tcp = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    sock.on('error', () => undefined);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const m = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + m.length);
        for (const r of handle(Buffer.from(m))) {
          const len = Buffer.alloc(2);
          len.writeUInt16BE(r.length);
          sock.write(Buffer.concat([len, r]));
        }
      }
    });
  });
  await new Promise<void>((ok) => tcp.listen(port, '127.0.0.1', () => ok()));
  return {
    port,
    seen,
    close: async () => {
      await new Promise<void>((ok) => udp.close(() => ok()));
      await new Promise<void>((ok) => tcp.close(() => ok()));
    },
  };
};

/** Sends one request over TCP and collects answers until `done` says the stream is complete. */
const tcpExchange = (port: number, request: Buffer, done: (msgs: Buffer[]) => boolean): Promise<Buffer[]> =>
  new Promise((resolve, reject) => {
    const msgs: Buffer[] = [];
    let buf = Buffer.alloc(0);
    const sock = net.connect(port, '127.0.0.1', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(request.length);
      sock.write(Buffer.concat([len, request]));
    });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`TCP exchange timed out after ${msgs.length} messages`));
    }, 10_000);
    sock.on('error', reject);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        msgs.push(Buffer.from(buf.subarray(2, 2 + buf.readUInt16BE(0))));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
      }
      if (done(msgs)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(msgs);
      }
    });
  });

const yArg = (k: TsigKey, secret: Buffer = k.secret): string => `${k.algorithm}:${k.name}:${secret.toString('base64')}`;

describe('TSIG (RFC 8945)', () => {
  describe('against real clients: kdig and nsupdate sign, we verify; we sign, they verify', function () {
    this.timeout(30_000);
    const k256 = key('hmac-sha256');
    const k512 = key('hmac-sha512', 'Mixed-Case.Key.tsig.test');
    let peer: Awaited<ReturnType<typeof startPeer>>;
    before(async function () {
      requireTools(this, 'kdig', 'nsupdate');
      peer = await startPeer([k256, k512]);
    });
    after(async () => peer?.close());

    for (const k of [k256, k512]) {
      it(`a signed SOA query from kdig (${k.algorithm}) verifies, and kdig accepts our signed answer`, async () => {
        peer.seen.length = 0;
        const r = await run('kdig', ['@127.0.0.1', '-p', String(peer.port), '+time=2', '+retry=0', '-y', yArg(k), 'tsig.test', 'SOA']);
        expect(peer.seen.map((s) => s.ok)).to.deep.equal([true]);
        expect(r.out).to.match(/status: NOERROR/);
        expect(r.out).to.match(/ns1\.tsig\.test\./);
        expect(r.out).not.to.match(/BADSIG|BADKEY|failed|WARNING/i);
        expect(r.code).to.equal(0);
      });
    }

    it('kdig refuses an answer or a transfer signed with another secret (its check and ours can fail)', async () => {
      const liar = await startPeer([k256], { signWith: { ...k256, secret: randomBytes(32) } });
      try {
        const soaQuery = await run('kdig', [
          '@127.0.0.1',
          '-p',
          String(liar.port),
          '+time=2',
          '+retry=0',
          '-y',
          yArg(k256),
          'tsig.test',
          'SOA',
        ]);
        expect(soaQuery.out).to.match(/WARNING: reply verification .*failed to verify TSIG/);
        const axfr = await run('kdig', [
          '@127.0.0.1',
          '-p',
          String(liar.port),
          '+time=2',
          '+retry=0',
          '-y',
          yArg(k256),
          'tsig.test',
          'AXFR',
        ]);
        expect(axfr.out).to.match(/failed to verify TSIG/);
        expect(liar.seen.map((s) => s.ok)).to.deep.equal([true, true]);
      } finally {
        await liar.close();
      }
    });

    it('kdig with a wrong secret gets our unsigned BADSIG answer', async () => {
      peer.seen.length = 0;
      const r = await run('kdig', [
        '@127.0.0.1',
        '-p',
        String(peer.port),
        '+time=2',
        '+retry=0',
        '-y',
        yArg(k256, randomBytes(32)),
        'tsig.test',
        'SOA',
      ]);
      expect(peer.seen.map((s) => (s.ok ? 'ok' : s.error))).to.deep.equal([TSIG_ERROR.BADSIG]);
      expect(r.out).to.match(/status: BADSIG/);
      expect(r.out).to.match(/TSIG\s+hmac-sha256\. \d+ 300 0 \d+ BADSIG 0/);
    });

    for (const transport of ['udp', 'tcp'] as const) {
      it(`nsupdate -y over ${transport}: its UPDATE verifies and it accepts our signed NOERROR`, async () => {
        peer.seen.length = 0;
        const script = `server 127.0.0.1 ${peer.port}\nzone tsig.test\nupdate add a.tsig.test. 60 TXT "hello"\nsend\n`;
        const r = await run('nsupdate', [...(transport === 'tcp' ? ['-v'] : []), '-y', yArg(k512)], script);
        expect(peer.seen.map((s) => s.ok)).to.deep.equal([true]);
        expect(r.out).to.equal('');
        expect(r.code).to.equal(0);
      });
    }

    it('nsupdate with a wrong secret gets NOTAUTH(BADSIG) from our verifier', async () => {
      peer.seen.length = 0;
      const script = `server 127.0.0.1 ${peer.port}\nzone tsig.test\nupdate add a.tsig.test. 60 TXT "x"\nsend\n`;
      const r = await run('nsupdate', ['-y', yArg(k256, randomBytes(32))], script);
      expect(peer.seen.map((s) => (s.ok ? 'ok' : s.error))).to.deep.equal([TSIG_ERROR.BADSIG]);
      expect(r.out).to.match(/NOTAUTH\(BADSIG\)/);
      expect(r.code).to.equal(2);
    });

    it('nsupdate with an unknown key name gets NOTAUTH(BADKEY)', async () => {
      peer.seen.length = 0;
      const script = `server 127.0.0.1 ${peer.port}\nzone tsig.test\nupdate add a.tsig.test. 60 TXT "x"\nsend\n`;
      const r = await run('nsupdate', ['-y', `hmac-sha256:nobody.tsig.test:${randomBytes(32).toString('base64')}`], script);
      expect(peer.seen.map((s) => (s.ok ? 'ok' : s.error))).to.deep.equal([TSIG_ERROR.BADKEY]);
      expect(r.out).to.match(/NOTAUTH\(BADKEY\)/);
    });

    it('kdig -y AXFR accepts our multi-message signing (§5.3.1)', async () => {
      const r = await run('kdig', ['@127.0.0.1', '-p', String(peer.port), '+time=2', '+retry=0', '-y', yArg(k256), 'tsig.test', 'AXFR']);
      expect(r.out).not.to.match(/BADSIG|failed|WARNING/i);
      expect(r.out).to.match(/Received \d+ B \(3 messages, 62 records\)/);
      expect(r.out).to.match(/r2-19\.tsig\.test\./);
    });
  });

  describe('against Knot: our signed requests are accepted, its signed answers and AXFR stream verify', function () {
    this.timeout(30_000);
    const k = key('hmac-sha256', 'xfr.tsig.test');
    let knot: ReturnType<typeof runKnotd> | undefined;
    let port = 0;
    before(async function () {
      requireTools(this, 'knotd', 'knotc');
      const dir = mkdtempSync(join(tmpdir(), 'tsig-knot-'));
      port = await freePort();
      const records = Array.from({ length: 1500 }, (_, i) => `r${i} 60 TXT "record number ${i} of a zone too big for one message"`).join(
        '\n',
      );
      writeFileSync(
        join(dir, 'tsig.test.zone'),
        `$ORIGIN tsig.test.\n@ 300 SOA ns1 h 7 60 60 600 60\n@ 300 NS ns1\nns1 300 A 127.0.0.1\n${records}\n`,
      );
      writeFileSync(
        join(dir, 'knot.conf'),
        `server:\n    rundir: "${dir}"\n    listen: 127.0.0.1@${port}\ndatabase:\n    storage: "${dir}/db"\n` +
          `key:\n  - id: ${k.name}.\n    algorithm: ${k.algorithm}\n    secret: ${k.secret.toString('base64')}\n` +
          `acl:\n  - id: xfr\n    key: ${k.name}.\n    action: transfer\n` +
          `zone:\n  - domain: tsig.test\n    file: "${dir}/tsig.test.zone"\n    acl: xfr\n`,
      );
      knot = runKnotd(join(dir, 'knot.conf'));
      const up = await waitFor(
        async () =>
          (await run('kdig', ['@127.0.0.1', '-p', String(port), '+time=1', '+retry=0', 'tsig.test', 'SOA'])).out.includes('NOERROR'),
        10_000,
      );
      if (up === null) throw new Error(`knotd did not start: ${knot.log()}`);
    });
    after(async () => knot?.stop());

    it('a SOA query signed by us is answered signed, and the answer verifies with the request MAC', async () => {
      const now = nowSec();
      const signed = signRequest(query('tsig.test', 'SOA'), k, { now });
      const [reply] = await tcpExchange(port, signed.message, (m) => m.length >= 1);
      expect(reply!.readUInt16BE(2) & 0xf).to.equal(0);
      const v = verifyResponse(reply!, k, signed.mac, { now });
      expect(v).to.include({ ok: true });
      const other = verifyResponse(reply!, k, randomBytes(32), { now });
      expect(other).to.deep.include({ ok: false, error: TSIG_ERROR.BADSIG });
    });

    it('an AXFR signed by us streams back in several messages, each verified in order (§5.3.1)', async () => {
      const now = nowSec();
      const signed = signRequest(query('tsig.test', 'AXFR'), k, { now });
      let soas = 0;
      const msgs = await tcpExchange(port, signed.message, (m) => {
        soas = m.reduce((n, x) => n + (dnsPacket.decode(x).answers ?? []).filter((a) => a.type === 'SOA').length, 0);
        return soas >= 2;
      });
      expect(msgs.length).to.be.greaterThan(2);
      const verifier = new TsigStreamVerifier(k, signed.mac);
      for (const m of msgs) expect(verifier.verify(m, now)).to.include({ ok: true });
      expect(verifier.finish()).to.deep.equal({ ok: true });
      // Out of order, the chain of MACs breaks.
      const shuffled = new TsigStreamVerifier(k, signed.mac);
      expect(shuffled.verify(msgs[0]!, now)).to.include({ ok: true });
      expect(shuffled.verify(msgs[2]!, now)).to.deep.include({ ok: false, error: TSIG_ERROR.BADSIG });
    });

    it('Knot answers a request signed with a wrong secret NOTAUTH(BADSIG), unsigned', async () => {
      const signed = signRequest(query('tsig.test', 'SOA'), { ...k, secret: randomBytes(32) }, { now: nowSec() });
      const [reply] = await tcpExchange(port, signed.message, (m) => m.length >= 1);
      const p = parseTsig(reply!);
      expect(reply!.readUInt16BE(2) & 0xf).to.equal(9);
      expect(p.kind === 'tsig' && p.tsig.error).to.equal(TSIG_ERROR.BADSIG);
    });
  });

  describe('rules of verification', () => {
    const k = key('hmac-sha256', 'unit.tsig.test');
    const lookup = (n: string): TsigKey | undefined => (n === 'unit.tsig.test' ? k : undefined);
    const now = 1_800_000_000;
    const signed = (): Buffer => signRequest(query('tsig.test', 'SOA'), k, { now }).message;

    it('accepts a good signature, the key name in any case', () => {
      expect(verifySignedRequest(signed(), lookup, { now: now + 299 })).to.include({ ok: true });
      const upper = signRequest(query('tsig.test', 'SOA'), { ...k, name: 'UNIT.Tsig.TEST' }, { now }).message;
      expect(verifySignedRequest(upper, lookup, { now })).to.include({ ok: true });
    });

    it('BADSIG for a changed octet, BADKEY for an unknown key or another algorithm, unsigned for none', () => {
      const m = signed();
      m[15]! ^= 1; // inside the question
      expect(verifySignedRequest(m, lookup, { now })).to.include({ ok: false, error: TSIG_ERROR.BADSIG, rcode: 9 });
      expect(verifySignedRequest(signed(), () => undefined, { now })).to.include({ ok: false, error: TSIG_ERROR.BADKEY });
      expect(verifySignedRequest(signed(), () => ({ ...k, algorithm: 'hmac-sha512' }), { now })).to.include({
        ok: false,
        error: TSIG_ERROR.BADKEY,
      });
      expect(verifySignedRequest(query('tsig.test', 'SOA'), lookup, { now })).to.deep.equal({ ok: 'unsigned' });
    });

    it('BADTIME outside the fudge, answered signed with our time in Other Data', () => {
      const v = verifySignedRequest(signed(), lookup, { now: now + 301 });
      expect(v).to.include({ ok: false, error: TSIG_ERROR.BADTIME });
      if (v.ok !== false) throw new Error('expected a failure');
      const parsed = parseTsig(signed());
      if (parsed.kind !== 'tsig') throw new Error('expected a TSIG');
      const reply = failureResponse(answer(parsed.unsigned, 9), v, now + 301);
      const p = parseTsig(reply);
      expect(p.kind === 'tsig' && p.tsig.otherData.readUIntBE(0, 6)).to.equal(now + 301);
      expect(verifyResponse(reply, k, parsed.tsig.mac, { now: now + 301 })).to.deep.include({
        ok: false,
        error: TSIG_ERROR.BADTIME,
        reason: 'server answered BADTIME',
      });
    });

    it('a truncated MAC is refused (BADTRUNC), a too short one is FORMERR', () => {
      const m = signed();
      const p = parseTsig(m);
      if (p.kind !== 'tsig') throw new Error('expected a TSIG');
      const rebuild = (macLen: number): Buffer => {
        // Re-encode the TSIG RR with the MAC cut to macLen octets.
        const start = p.unsigned.length;
        const nameLen = 'unit.tsig.test'.length + 2;
        const algLen = 'hmac-sha256'.length + 2;
        const rd = start + nameLen + 10;
        const macSizeAt = rd + algLen + 8;
        const head = Buffer.from(m.subarray(0, macSizeAt + 2));
        head.writeUInt16BE(macLen, macSizeAt);
        const tail = m.subarray(macSizeAt + 2 + 32);
        const out = Buffer.concat([head, p.tsig.mac.subarray(0, macLen), tail]);
        out.writeUInt16BE(out.length - rd, rd - 2);
        return out;
      };
      expect(verifySignedRequest(rebuild(32), lookup, { now })).to.include({ ok: true });
      expect(verifySignedRequest(rebuild(16), lookup, { now })).to.include({ ok: false, error: TSIG_ERROR.BADTRUNC });
      expect(verifySignedRequest(rebuild(8), lookup, { now })).to.include({ ok: false, rcode: 1 });
    });

    it('a TSIG that is not the last record, or is malformed, is FORMERR', () => {
      const m = signed();
      const p = parseTsig(m);
      if (p.kind !== 'tsig') throw new Error('expected a TSIG');
      const tsigRr = m.subarray(p.unsigned.length);
      const opt = Buffer.from([0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0]);
      const misplaced = Buffer.concat([p.unsigned, tsigRr, opt]);
      misplaced.writeUInt16BE(2, 10);
      expect(verifySignedRequest(misplaced, lookup, { now })).to.include({ ok: false, rcode: 1 });
      expect(verifySignedRequest(m.subarray(0, m.length - 3), lookup, { now })).to.include({ ok: false, rcode: 1 });
    });

    it('a stream verifier takes up to 99 unsigned messages between signed ones, and needs the last signed', () => {
      const req = signRequest(query('tsig.test', 'AXFR'), k, { now });
      const msgs = [0, 1, 2, 3].map((i) =>
        answer(query('tsig.test', 'AXFR'), 0, [{ type: 'TXT', name: `m${i}.tsig.test`, ttl: 1, data: 'x' }]),
      );
      // Sign the first and the last; the two between go unsigned, covered by the last MAC.
      const signer = new TsigStreamSigner(k, req.mac);
      const first = signer.sign(msgs[0]!, now);
      const firstMac = parseTsig(first);
      if (firstMac.kind !== 'tsig') throw new Error('expected a TSIG');
      const lastSigner = new TsigStreamSigner(k, firstMac.tsig.mac);
      // A second signer primed past its first message signs "later" messages over prior MAC + messages + timers.
      (lastSigner as unknown as { first: boolean }).first = false;
      const last = lastSigner.sign(Buffer.concat([msgs[1]!, msgs[2]!, msgs[3]!]), now);
      const lastRr = last.subarray(msgs[1]!.length + msgs[2]!.length + msgs[3]!.length);
      const lastMsg = Buffer.concat([msgs[3]!, lastRr]);
      lastMsg.writeUInt16BE(msgs[3]!.readUInt16BE(10) + 1, 10);
      const v = new TsigStreamVerifier(k, req.mac);
      expect(v.verify(first, now)).to.include({ ok: true });
      expect(v.verify(msgs[1]!, now)).to.deep.equal({ ok: true, mac: null });
      expect(v.finish()).to.deep.include({ ok: false });
      expect(v.verify(msgs[2]!, now)).to.deep.equal({ ok: true, mac: null });
      expect(v.verify(lastMsg, now)).to.include({ ok: true });
      expect(v.finish()).to.deep.equal({ ok: true });

      const flood = new TsigStreamVerifier(k, req.mac);
      flood.verify(first, now);
      for (let i = 0; i < 99; i++) expect(flood.verify(msgs[1]!, now)).to.include({ ok: true });
      expect(flood.verify(msgs[1]!, now)).to.deep.include({ ok: false, reason: 'more than 99 unsigned messages in a row' });
    });
  });
});
