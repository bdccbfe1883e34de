import { expect } from 'chai';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { childZone, exampleZone } from './fixtures.js';
import { mutate, prng, randomQuery } from './packets.js';

const hex = (b: Buffer | undefined): string => (b ? b.toString('hex') : 'none');

/**
 * Small unsigned zones are held as their record sets while no query asks for them, and compiled again
 * when one does (embedded.adapter.ts, DormantZone): an account of 10 000 such zones must not cost a DNS
 * worker 10 KB of heap each. Whichever form a zone was in when asked, the answer is the same, octet for octet.
 */
describe('DNS server: small zones held dormant', () => {
  const server = async (awakeZones?: number): Promise<EmbeddedNameserver> => {
    const ns = new EmbeddedNameserver({
      host: '127.0.0.1',
      port: 0,
      axfrAllow: ['127.0.0.1'],
      secondaries: [],
      answerCache: false,
      ...(awakeZones ? { awakeZones } : {}),
    });
    await ns.publish(exampleZone());
    await ns.publish(childZone());
    // A new version of a zone put to sleep: its IXFR journal is made from the old version compiled again.
    await ns.publish(exampleZone(2026112101, [{ name: 'new.example.test', type: 'TXT', ttl: 60, values: ['v'] }]));
    return ns;
  };

  it('answers every query (UDP and TCP, transfers included) as a server that keeps every zone compiled, though its zones sleep and wake all the time', async () => {
    const sleepy = await server(1);
    const awake = await server();
    expect(sleepy.zoneForms()).to.deep.equal({ compiled: 0, dormant: 2, awake: 0 }); // published asleep
    const r = prng(20261127);
    const packets: Buffer[] = [];
    for (let i = 0; i < 3000; i++) packets.push(randomQuery(r));
    for (let i = 0; i < 1000; i++) packets.push(mutate(packets[i]!, r));
    let woken = 0;
    for (const transport of ['udp', 'tcp'] as const) {
      packets.forEach((p, i) => {
        const before = sleepy.zoneForms().awake;
        const a = sleepy.answer(p, transport, '127.0.0.1');
        const b = awake.answer(p, transport, '127.0.0.1');
        expect(a.map(hex), `${transport} packet ${i} ${p.toString('hex')}`).to.deep.equal(b.map(hex));
        if (sleepy.zoneForms().awake === before) woken++;
      });
    }
    expect(sleepy.zoneForms().awake).to.equal(1);
    expect(woken).to.be.greaterThan(0);
    expect(sleepy.journalSpan('example.test')).to.deep.equal(awake.journalSpan('example.test'));
  });

  it('holds each owner relative to the zone and gives back the names as published: written another way (case, a final dot, outside the zone) they answer as the plain names do', async () => {
    const plain = exampleZone();
    // The same zone with its owners written otherwise: compiling normalises them, so the answers are equal octet for octet.
    const odd = {
      ...plain,
      domain: 'Example.Test.',
      recordSets: [
        ...plain.recordSets.map((rs, i) => ({
          ...rs,
          name: i % 3 === 0 ? rs.name.toUpperCase() : i % 3 === 1 ? `${rs.name}.` : rs.name.replace('example.test', 'Example.Test'),
        })),
        { name: 'elsewhere.example.net', type: 'A' as const, ttl: 60, values: ['192.0.2.99'] }, // outside the zone: skipped, asleep or awake
      ],
    };
    const servers = await Promise.all(
      [plain, odd].map(async (zone) => {
        const ns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: ['127.0.0.1'], secondaries: [], answerCache: false });
        await ns.publish(zone);
        return ns;
      }),
    );
    const [a, b] = servers as [EmbeddedNameserver, EmbeddedNameserver];
    expect(b.zoneForms()).to.deep.equal({ compiled: 0, dormant: 1, awake: 0 });
    const r = prng(20261128);
    for (let i = 0; i < 2000; i++) {
      const p = randomQuery(r);
      for (const transport of ['udp', 'tcp'] as const)
        expect(b.answer(p, transport, '127.0.0.1').map(hex), `${transport} ${p.toString('hex')}`).to.deep.equal(
          a.answer(p, transport, '127.0.0.1').map(hex),
        );
    }
    expect(b.zoneForms().awake).to.equal(1);
  });
});
