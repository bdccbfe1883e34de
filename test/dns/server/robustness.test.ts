import net from 'node:net';
import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { exampleZone } from './fixtures.js';
import { dig, rawUdp, requireTools, startServer } from './tools.js';
import { prng } from '../../support/prng.js';
import { header } from './packets.js';

const query = (id: number, name = 'www.example.test', type: dnsPacket.RecordType = 'A'): Buffer =>
  dnsPacket.encode({ type: 'query', id, questions: [{ name, type, class: 'IN' }] });

const rcodeOf = (reply: Buffer): number => reply.readUInt16BE(2) & 0xf;
const FORMERR = 1;
const NOTIMP = 4;

/** "malformed packets get FORMERR or are dropped and never crash the process". */
describe('DNS server robustness: malformed input', () => {
  let ns: EmbeddedNameserver;
  let port: number;

  before(async function () {
    requireTools(this, 'dig');
    ({ ns, port } = await startServer([exampleZone()]));
  });
  after(async () => ns?.stop());

  const stillAnswers = async (): Promise<void> => {
    const r = await dig(port, 'www.example.test', 'A');
    expect(r.status).to.equal('NOERROR');
    expect(r.answer).to.have.length(2);
  };

  describe('over UDP (a raw socket)', () => {
    it('drops what has no full header: no reply to 0, 5 or 11 octets', async () => {
      for (const n of [0, 5, 11]) expect(await rawUdp(port, Buffer.alloc(n, 0x41)), `${n} octets`).to.equal(null);
      await stillAnswers();
    });

    it('drops responses (QR set): answering answers invites loops', async () => {
      const r = Buffer.from(query(7));
      r.writeUInt16BE(r.readUInt16BE(2) | 0x8000, 2);
      expect(await rawUdp(port, r)).to.equal(null);
    });

    // As Knot: a packet whose question cannot be read is dropped, so spoofed noise is not reflected 1:1.
    const dropped: Array<[string, () => Buffer]> = [
      ['a header promising a question that is not there', () => header(101, 0, 1)],
      [
        'two questions',
        () =>
          dnsPacket.encode({
            type: 'query',
            id: 103,
            questions: [
              { name: 'a.example.test', type: 'A' },
              { name: 'b.example.test', type: 'A' },
            ],
          }),
      ],
      ['a question cut short', () => query(104).subarray(0, 20)],
      [
        'a question name that is a compression pointer to itself',
        () => Buffer.concat([header(105, 0, 1), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])]),
      ],
      [
        'a label of 64 octets (reserved label type)',
        () => Buffer.concat([header(106, 0, 1), Buffer.from([0x40]), Buffer.alloc(64, 0x61), Buffer.from([0, 0, 1, 0, 1])]),
      ],
      [
        'a name over 255 octets',
        () =>
          Buffer.concat([
            header(107, 0, 1),
            ...Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([63]), Buffer.alloc(63, 0x61)])),
            Buffer.from([0, 0, 1, 0, 1]),
          ]),
      ],
      ['no question and octets that are no records', () => Buffer.concat([header(110, 0, 0), query(110).subarray(12)])],
    ];
    for (const [what, make] of dropped) {
      it(`regression: no reply to ${what} (as Knot)`, async () => {
        expect(await rawUdp(port, make())).to.equal(null);
      });
    }

    const formerr: Array<[string, () => Buffer]> = [
      ['no question at all', () => header(102, 0, 0)],
      [
        'answer records promised and missing',
        () => Buffer.concat([query(108).subarray(0, 2), Buffer.from([0, 0, 0, 1, 0, 50, 0, 0, 0, 0]), query(108).subarray(12)]),
      ],
      [
        'two OPT records',
        () =>
          dnsPacket.encode({
            type: 'query',
            id: 109,
            questions: [{ name: 'www.example.test', type: 'A' }],
            additionals: [
              { name: '.', type: 'OPT', udpPayloadSize: 1232, flags: 0, options: [] } as unknown as dnsPacket.Answer,
              { name: '.', type: 'OPT', udpPayloadSize: 1232, flags: 0, options: [] } as unknown as dnsPacket.Answer,
            ],
          }),
      ],
    ];
    for (const [what, make] of formerr) {
      it(`FORMERR for ${what}, with the query's ID`, async () => {
        const packet = make();
        const reply = await rawUdp(port, packet);
        expect(reply, 'a reply').to.not.equal(null);
        expect(reply!.readUInt16BE(0)).to.equal(packet.readUInt16BE(0));
        expect(reply!.readUInt16BE(2) & 0x8000, 'QR').to.equal(0x8000);
        expect(rcodeOf(reply!)).to.equal(FORMERR);
        // The question comes back when there was one (as Knot).
        expect(reply!.readUInt16BE(4)).to.equal(packet.readUInt16BE(4));
      });
    }

    it('NOTIMP for opcodes other than QUERY (NOTIFY, UPDATE)', async () => {
      for (const opcode of [4, 5]) {
        const q = Buffer.from(query(200 + opcode, 'example.test', 'SOA'));
        q.writeUInt16BE((opcode << 11) | q.readUInt16BE(2), 2);
        const reply = await rawUdp(port, q);
        expect(reply).to.not.equal(null);
        expect(rcodeOf(reply!)).to.equal(NOTIMP);
        expect((reply!.readUInt16BE(2) >> 11) & 0xf).to.equal(opcode);
      }
    });

    it('400 random packets: each gets a well-formed reply with its ID or none, and the server still answers', async () => {
      const rnd = prng(20261121);
      const packets = Array.from({ length: 400 }, () => {
        const len = 12 + Math.floor(rnd() * 100);
        const p = Buffer.from(Array.from({ length: len }, () => Math.floor(rnd() * 256)));
        p[2]! &= 0x7f; // a query, so that the header is worth answering
        return p;
      });
      // 50 at a time, each from its own socket: most get no reply now, and each silence is a wait.
      const replies: Array<Buffer | null> = [];
      for (let i = 0; i < packets.length; i += 50)
        replies.push(...(await Promise.all(packets.slice(i, i + 50).map((p) => rawUdp(port, p, 150)))));
      for (let i = 0; i < packets.length; i++) {
        const p = packets[i]!;
        const reply = replies[i];
        if (reply) {
          expect(reply.length, `packet ${i}`).to.be.at.least(12);
          expect(reply.readUInt16BE(0), `packet ${i}`).to.equal(p.readUInt16BE(0));
          expect(reply.readUInt16BE(2) & 0x8000, `packet ${i}`).to.equal(0x8000);
        }
      }
      await stillAnswers();
    });
  });

  describe('in process: 20 000 random packets through the handler', () => {
    it('never throws; every reply is a response to the same ID', () => {
      const rnd = prng(42);
      for (let i = 0; i < 20_000; i++) {
        // Half random bytes, half a real query with a few octets flipped.
        const p =
          i % 2
            ? Buffer.from(Array.from({ length: Math.floor(rnd() * 80) }, () => Math.floor(rnd() * 256)))
            : Buffer.from(query(i & 0xffff));
        if (i % 2 === 0) for (let k = 0; k < 3; k++) p[Math.floor(rnd() * p.length)] = Math.floor(rnd() * 256);
        for (const transport of ['udp', 'tcp'] as const) {
          const out = ns.answer(p, transport, '127.0.0.1');
          for (const r of out) {
            expect(r.readUInt16BE(0)).to.equal(p.readUInt16BE(0));
            expect(r.readUInt16BE(2) & 0x8000).to.equal(0x8000);
            if (transport === 'udp') expect(r.length).to.be.at.most(1232);
          }
        }
      }
    });

    it('refuses impossible record counts before decoding (1000 such packets well under a second)', () => {
      const p = Buffer.concat([header(5, 0, 1, 0xffff, 0xffff, 0xffff), query(5).subarray(12), Buffer.alloc(1000, 0xc0)]);
      const t0 = performance.now();
      for (let i = 0; i < 1000; i++) expect(rcodeOf(ns.answer(p, 'udp', '127.0.0.1')[0]!)).to.equal(FORMERR);
      expect(performance.now() - t0).to.be.below(500);
    });
  });

  describe('over TCP (RFC 7766 framing)', () => {
    const exchange = (chunks: Buffer[], expect: number, waitMs = 500): Promise<Buffer[]> =>
      new Promise((resolve, reject) => {
        const replies: Buffer[] = [];
        let pending = Buffer.alloc(0);
        const c = net.connect(port, '127.0.0.1');
        const timer = setTimeout(() => (c.destroy(), resolve(replies)), waitMs);
        c.on('error', reject);
        c.on('data', (d) => {
          pending = Buffer.concat([pending, d]);
          while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
            replies.push(pending.subarray(2, 2 + pending.readUInt16BE(0)));
            pending = pending.subarray(2 + pending.readUInt16BE(0));
          }
          if (replies.length >= expect) {
            clearTimeout(timer);
            c.destroy();
            resolve(replies);
          }
        });
        c.on('connect', async () => {
          for (const ch of chunks) {
            c.write(ch);
            await new Promise((r) => setTimeout(r, 10));
          }
        });
      });
    const frame = (b: Buffer): Buffer => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);

    it('answers pipelined queries sent in one write, in order', async () => {
      const replies = await exchange(
        [Buffer.concat([frame(query(1)), frame(query(2, 'nope.example.test')), frame(query(3, 'example.test', 'MX'))])],
        3,
      );
      expect(
        replies.map((r) => dnsPacket.decode(r) as dnsPacket.DecodedPacket & { rcode: string }).map((r) => [r.id, r.rcode]),
      ).to.deep.equal([
        [1, 'NOERROR'],
        [2, 'NXDOMAIN'],
        [3, 'NOERROR'],
      ]);
    });

    it('reassembles a query that arrives a few octets at a time', async () => {
      const f = frame(query(9));
      const replies = await exchange([f.subarray(0, 1), f.subarray(1, 5), f.subarray(5, 20), f.subarray(20)], 1);
      expect(dnsPacket.decode(replies[0]!).answers).to.have.length(2);
    });

    it('drops a runt frame, answers garbage after a good question with FORMERR, and goes on with the next query', async () => {
      const garbage = Buffer.concat([header(77, 0, 1, 1), query(77).subarray(12), Buffer.from([0xc0, 0x0c])]);
      const replies = await exchange([Buffer.concat([frame(Buffer.from([1, 2, 3])), frame(garbage), frame(query(78))])], 2);
      expect(replies.map((r) => [r.readUInt16BE(0), rcodeOf(r)])).to.deep.equal([
        [77, FORMERR],
        [78, 0],
      ]);
    });

    it('survives a client that hangs up mid-frame', async () => {
      await new Promise<void>((resolve) => {
        const c = net.connect(port, '127.0.0.1', () => {
          c.write(Buffer.from([0x00, 0x40, 0x12]));
          c.destroy();
          resolve();
        });
      });
      await stillAnswers();
    });
  });
});
