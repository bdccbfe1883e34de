import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { AnswerCache } from '../../../adapters/dns/embedded/answer-cache.js';
import { childZone, exampleZone } from './fixtures.js';
import { dig, kdig, rdata, requireTools, startServer } from './tools.js';
import { mutate, NAMES, option, packet, prng, randomCase, randomQuery, type Edns } from './packets.js';

/**
 * The UDP answer cache (adapters/dns/embedded/answer-cache.ts) must never change an answer: every reply
 * it gives is byte for byte the reply the long way (dns-packet decode, resolve, lay out) gives to the
 * same packet. Checked differentially against a server with the cache off, over queries of every kind
 * the suite knows, in every header/EDNS variant, and over random mutations of them.
 */

const hex = (b: Buffer | undefined): string => (b ? b.toString('hex') : 'none');

describe('DNS server UDP answer cache', () => {
  const server = async (answerCache: boolean): Promise<EmbeddedNameserver> => {
    const ns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: ['127.0.0.1'], secondaries: [], answerCache });
    await ns.publish(exampleZone());
    await ns.publish(childZone());
    return ns;
  };

  for (const slots of [1 << 16, 2]) {
    it(`answers every query byte for byte as the long way does: 6000 varied queries, 6000 mutations and 6000 of them in other case, ID, RD and CD, each asked four times (${slots} slots)`, async () => {
      const cached = await server(true);
      // Two slots, one set: questions collide all the time, so a key compared short of whole would show.
      if (slots !== 1 << 16) (cached as unknown as { cache: AnswerCache }).cache = new AnswerCache(slots);
      const plain = await server(false);
      const r = prng(20261121);
      const packets: Buffer[] = [];
      for (let i = 0; i < 6000; i++) packets.push(randomQuery(r));
      for (let i = 0; i < 6000; i++) packets.push(mutate(packets[i]!, r));
      // The same questions again in other case, ID and RD/CD: these are the cache's hits.
      for (let i = 0; i < 6000; i++) {
        const p = Buffer.from(packets[i]!);
        p.writeUInt16BE(Math.floor(r() * 0x10000), 0);
        p[2] = (p[2]! & 0xfe) | (r() < 0.5 ? 1 : 0);
        p[3] = (p[3]! & 0xef) | (r() < 0.5 ? 0x10 : 0);
        for (let j = 13; j < p.length && j < 60; j++) if (/[a-z]/i.test(String.fromCharCode(p[j]!)) && r() < 0.5) p[j] = p[j]! ^ 0x20;
        packets.push(p);
      }
      for (const pass of [1, 2]) {
        packets.forEach((p, i) => {
          const b = plain.answer(p, 'udp', '127.0.0.1');
          // Twice in a row: the second is a hit even when slots are few.
          for (const a of [cached.answer(p, 'udp', '127.0.0.1'), cached.answer(p, 'udp', '127.0.0.1')]) {
            expect(a.length, `pass ${pass}, packet ${i} ${p.toString('hex')}`).to.equal(b.length);
            expect(hex(a[0]), `pass ${pass}, packet ${i} ${p.toString('hex')}`).to.equal(hex(b[0]));
          }
        });
      }
      const stats = cached.answerCacheStats()!;
      expect(stats.hits, 'queries answered from the cache').to.be.greaterThan(slots > 2 ? 10_000 : 5000);
      expect(plain.answerCacheStats()).to.equal(null);
    });
  }

  it("one set of two slots, the same questions in every EDNS variant one after another: a variant never gets another variant's reply", async () => {
    const cached = await server(true);
    (cached as unknown as { cache: AnswerCache }).cache = new AnswerCache(2);
    const plain = await server(false);
    const r = prng(7);
    const none = Buffer.alloc(0);
    const variants: Array<Edns | undefined> = [
      undefined,
      { payload: 512, version: 0, dnssecOk: false, options: none },
      { payload: 700, version: 0, dnssecOk: false, options: none },
      { payload: 1232, version: 0, dnssecOk: false, options: none },
      { payload: 1232, version: 0, dnssecOk: true, options: none },
      { payload: 4096, version: 0, dnssecOk: false, options: option(10, Buffer.alloc(8, 1)) },
      { payload: 1232, version: 1, dnssecOk: false, options: none },
    ];
    let n = 0;
    for (const name of NAMES) {
      for (const qtype of [1, 2, 6, 16, 28, 65, 255, 0x0141]) {
        for (const edns of [...variants, ...variants.reverse()]) {
          const p = packet({
            id: n++,
            flags: r() < 0.5 ? 0x0100 : 0x0010,
            name: randomCase(name, r),
            qtype,
            qclass: 1,
            ...(edns ? { edns } : {}),
          });
          const b = plain.answer(p, 'udp', '127.0.0.1');
          for (const a of [cached.answer(p, 'udp', '127.0.0.1'), cached.answer(p, 'udp', '127.0.0.1')])
            expect(hex(a[0]), p.toString('hex')).to.equal(hex(b[0]));
        }
      }
    }
    expect(cached.answerCacheStats()!.hits).to.be.greaterThan(n / 2);
  });

  it('a publish or withdraw is seen by the very next query, though the old answer was cached', async () => {
    const ns = await server(true);
    const ask = (name: string, type: dnsPacket.RecordType): { rcode: string; texts: string[] } => {
      const p = dnsPacket.decode(
        ns.answer(
          dnsPacket.encode({ type: 'query', id: 1, flags: 0x100, questions: [{ name, type, class: 'IN' }] }),
          'udp',
          '127.0.0.1',
        )[0]!,
      );
      return { rcode: (p as { rcode?: string }).rcode ?? '', texts: (p.answers ?? []).map((a) => String((a as { data?: unknown }).data)) };
    };
    for (let i = 0; i < 3; i++) expect(ask('fresh.example.test', 'TXT').rcode).to.equal('NXDOMAIN');
    await ns.publish(exampleZone(2026112101, [{ name: 'fresh.example.test', type: 'TXT', ttl: 60, values: ['v1'] }]));
    expect(ask('fresh.example.test', 'TXT').texts).to.deep.equal(['v1']);
    expect(ask('fresh.example.test', 'TXT').texts).to.deep.equal(['v1']);
    await ns.publish(exampleZone(2026112102, [{ name: 'fresh.example.test', type: 'TXT', ttl: 60, values: ['v2'] }]));
    expect(ask('fresh.example.test', 'TXT').texts).to.deep.equal(['v2']);
    // An older serial is ignored: the cached answer stays right.
    await ns.publish(exampleZone(2026112100));
    expect(ask('fresh.example.test', 'TXT').texts).to.deep.equal(['v2']);
    await ns.withdraw('example.test');
    expect(ask('fresh.example.test', 'TXT').rcode).to.equal('REFUSED');
    expect(ask('www.child.example.test', 'A').rcode).to.equal('NOERROR');
  });

  it('a publish outdates only the replies of the zone it changes: the other zones stay cached; a new zone outdates the replies of the names below it', async () => {
    const ns = await server(true);
    const ask = (name: string, type: dnsPacket.RecordType): { rcode: string; texts: string[] } => {
      const p = dnsPacket.decode(
        ns.answer(
          dnsPacket.encode({ type: 'query', id: 1, flags: 0x100, questions: [{ name, type, class: 'IN' }] }),
          'udp',
          '127.0.0.1',
        )[0]!,
      );
      return { rcode: (p as { rcode?: string }).rcode ?? '', texts: (p.answers ?? []).map((a) => String((a as { data?: unknown }).data)) };
    };
    const hits = (): number => ns.answerCacheStats()!.hits;
    ask('www.child.example.test', 'A');
    ask('www.example.test', 'A');
    ask('x.grand.child.example.test', 'TXT');
    ask('www.other.test', 'A');
    let before = hits();
    await ns.publish(exampleZone(2026112101, [{ name: 'www.example.test', type: 'TXT', ttl: 60, values: ['v1'] }]));
    expect(ask('www.child.example.test', 'A').rcode).to.equal('NOERROR');
    expect(hits(), 'the child zone, untouched, answered from the cache').to.equal(before + 1);
    expect(ask('www.example.test', 'TXT').texts).to.deep.equal(['v1']);
    expect(hits(), 'the changed zone asked again').to.equal(before + 1);
    ask('www.example.test', 'A'); // cached again, at the new version
    // A new zone below a served one, and one where no zone was: the replies of the names below them change.
    expect(ask('x.grand.child.example.test', 'TXT').rcode).to.equal('NXDOMAIN');
    expect(ask('www.other.test', 'A').rcode).to.equal('REFUSED');
    before = hits();
    await ns.publish({
      domain: 'grand.child.example.test',
      serial: 1,
      recordSets: [
        ...childZone(1)
          .recordSets.filter((r) => r.type !== 'A')
          .map((r) => ({ ...r, name: 'grand.child.example.test' })),
        { name: 'x.grand.child.example.test', type: 'TXT', ttl: 60, values: ['grand'] },
      ],
    });
    expect(ask('x.grand.child.example.test', 'TXT').texts).to.deep.equal(['grand']);
    expect(hits()).to.equal(before);
    await ns.publish({
      domain: 'other.test',
      serial: 1,
      recordSets: [
        ...childZone(1)
          .recordSets.filter((r) => r.type !== 'A')
          .map((r) => ({ ...r, name: 'other.test' })),
        { name: 'www.other.test', type: 'A', ttl: 60, values: ['192.0.2.5'] },
      ],
    });
    expect(ask('www.other.test', 'A').texts).to.deep.equal(['192.0.2.5']);
    expect(ask('www.example.test', 'A').rcode).to.equal('NOERROR');
    expect(hits(), 'example.test still cached').to.equal(before + 1);
  });

  it('dig and kdig (EDNS with a cookie, DO, a 512 buffer, no EDNS) get the same answer from the cache as the first time, in the case they asked', async function () {
    requireTools(this, 'dig', 'kdig');
    const { ns, port } = await startServer([exampleZone()]);
    try {
      for (const tool of [dig, kdig]) {
        for (const flags of [[], ['+noedns'], ['+dnssec'], ['+bufsize=512']]) {
          const first = await tool(port, 'wWw.Example.TEST', 'A', ...flags);
          const again = await tool(port, 'WWW.example.test', 'A', ...flags);
          expect(first.status).to.equal('NOERROR');
          expect(again.status).to.equal(first.status);
          expect(again.flags).to.deep.equal(first.flags);
          // dig sends the name as typed and shows it as received; kdig lowers it before sending.
          expect(again.answer.map((a) => a.name)).to.deep.equal(
            tool === dig ? ['WWW.example.test.', 'WWW.example.test.'] : ['www.example.test.', 'www.example.test.'],
          );
          expect(again.question).to.equal(tool === dig ? 'WWW.example.test.' : 'www.example.test.');
          expect(rdata(again.answer)).to.deep.equal(rdata(first.answer));
          expect(again.ednsUdp).to.equal(first.ednsUdp);
          expect(again.ednsFlags).to.deep.equal(first.ednsFlags);
        }
      }
      expect(ns.answerCacheStats()!.hits).to.be.greaterThanOrEqual(8);
    } finally {
      await ns.stop();
    }
  });

  describe('the table', () => {
    const q = (name: string, id = 1, flags = 0x0100): Buffer => packet({ id, flags, name, qtype: 1, qclass: 1 });
    const reply = (query: Buffer, fill: number): Buffer => {
      const r = Buffer.concat([query, Buffer.alloc(16, fill)]);
      r.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0110), 2);
      return r;
    };

    it('patches the ID, RD, CD and the question case into a held reply, and hands out a new buffer each time', () => {
      const c = new AnswerCache(16);
      const first = q('Www.Example.Test', 7, 0x0100);
      expect(c.lookup(first)).to.equal(null);
      expect(c.cacheable).to.equal(true);
      c.store(reply(first, 0xab));
      const hit = c.lookup(q('wWW.eXAMPLE.tEST', 9, 0x0010))!;
      expect(hit.readUInt16BE(0)).to.equal(9);
      expect(hit.readUInt16BE(2)).to.equal(0x8410); // RD clear, CD set, as asked
      expect(hit.subarray(12, 12 + 18).toString('latin1')).to.include('eXAMPLE');
      expect(hit.subarray(-16)).to.deep.equal(Buffer.alloc(16, 0xab));
      const again = c.lookup(q('www.example.test', 10))!;
      expect(again).to.not.equal(hit);
      expect(hit.readUInt16BE(0)).to.equal(9);
      expect(c.stats()).to.include({ replies: 1, hits: 2 });
    });

    it('leaves to the long way what is not a plain query', () => {
      const c = new AnswerCache(16);
      const plain = q('www.example.test');
      const cases: Array<[string, Buffer]> = [
        ['a response', Buffer.from(plain).fill(0x81, 2, 3)],
        ['opcode NOTIFY', Buffer.from(plain).fill(0x20, 2, 3)],
        ['two questions', Buffer.from(plain).fill(2, 5, 6)],
        ['an answer record', Buffer.from(plain).fill(1, 7, 8)],
        ['a trailing octet', Buffer.concat([plain, Buffer.from([0])])],
        ['a compressed name', Buffer.concat([plain.subarray(0, 12), Buffer.from([0xc0, 12, 0, 1, 0, 1])])],
        ['class CH', packet({ id: 1, flags: 0, name: 'www.example.test', qtype: 1, qclass: 3 })],
        ['AXFR', packet({ id: 1, flags: 0, name: 'example.test', qtype: 252, qclass: 1 })],
        [
          'EDNS version 1',
          packet({
            id: 1,
            flags: 0,
            name: 'www.example.test',
            qtype: 1,
            qclass: 1,
            edns: { payload: 1232, version: 1, dnssecOk: false, options: Buffer.alloc(0) },
          }),
        ],
        [
          'an ECS option',
          packet({
            id: 1,
            flags: 0,
            name: 'www.example.test',
            qtype: 1,
            qclass: 1,
            edns: { payload: 1232, version: 0, dnssecOk: false, options: option(8, Buffer.from([0, 1, 24, 0, 192, 0, 2])) },
          }),
        ],
        [
          'an option running past the OPT',
          packet({
            id: 1,
            flags: 0,
            name: 'www.example.test',
            qtype: 1,
            qclass: 1,
            edns: { payload: 1232, version: 0, dnssecOk: false, options: option(10, Buffer.alloc(8)).subarray(0, 10) },
          }),
        ],
        ['a truncated question', plain.subarray(0, plain.length - 2)],
      ];
      for (const [what, p] of cases) {
        expect(c.lookup(p), what).to.equal(null);
        expect(c.cacheable, what).to.equal(false);
      }
    });

    it('tells EDNS variants apart: none, DO, and each size limit (≥ 1232 is one)', () => {
      const c = new AnswerCache(1 << 10);
      const v = (edns?: Edns): Buffer =>
        packet({ id: 1, flags: 0, name: 'www.example.test', qtype: 1, qclass: 1, ...(edns ? { edns } : {}) });
      const e = (payload: number, dnssecOk = false): Edns => ({ payload, version: 0, dnssecOk, options: Buffer.alloc(0) });
      const variants = [v(), v(e(512)), v(e(700)), v(e(1232)), v(e(1232, true))];
      variants.forEach((p, i) => {
        expect(c.lookup(p), `variant ${i}`).to.equal(null);
        c.store(reply(p, i));
      });
      variants.forEach((p, i) => expect(c.lookup(p)!.subarray(-16), `variant ${i}`).to.deep.equal(Buffer.alloc(16, i)));
      expect(c.lookup(v(e(4096)))!.subarray(-16)).to.deep.equal(Buffer.alloc(16, 3)); // capped at 1232, as the long way does
      expect(c.lookup(v(e(100)))!.subarray(-16)).to.deep.equal(Buffer.alloc(16, 1)); // below 512 counts as 512
    });

    it('stays within its octet budget and forgets everything on clear()', () => {
      const c = new AnswerCache(1 << 12, 64 * 1024);
      for (let i = 0; i < 4000; i++) {
        const p = q(`h${i}.example.test`);
        c.lookup(p);
        c.store(reply(p, 1));
        expect(c.stats().bytes).to.be.at.most(64 * 1024);
      }
      expect(c.stats().replies).to.be.greaterThan(0);
      c.clear();
      expect(c.stats()).to.include({ replies: 0, bytes: 0 });
      expect(c.lookup(q('h3999.example.test'))).to.equal(null);
    });
  });
});
