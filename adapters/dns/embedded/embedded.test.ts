import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import { hasZoneTransfers } from '../../../core/dns/ports/nameserver.port.js';
import { soaValue, type RecordSet } from '../../../core/dns/zone/record-set.js';
import { compileZone } from './compiled-zone.js';
import { allowed, validateConfig } from './config.js';
import { EmbeddedNameserver } from './index.js';
import { encodeValue, normaliseName } from './rdata.js';
import { NameWriter, wireName } from './wire.js';

/** Config validation and the encoding of presentation values; the behaviour on the wire is tested with dig in test/dns-server/. */
describe('EmbeddedNameserver', () => {
  const ok = {
    host: '127.0.0.1',
    port: 5353,
    axfrAllow: ['127.0.0.1', '10.0.0.0/8', '::1', '2001:db8::/32'],
    secondaries: [{ host: '127.0.0.1', port: 5399 }],
  };

  describe('config', () => {
    it('accepts IP hosts, ports 0–65535, addresses and networks in axfrAllow', () => {
      expect(() => new EmbeddedNameserver(ok)).not.to.throw();
      expect(() => new EmbeddedNameserver({ ...ok, host: '::', port: 0, axfrAllow: [], secondaries: [] })).not.to.throw();
    });

    it('refuses a host name, a bad port, a bad allow entry or secondary', () => {
      const bad: Array<[string, object]> = [
        ['host', { host: 'localhost' }],
        ['host', { host: '' }],
        ['port', { port: 65536 }],
        ['port', { port: -1 }],
        ['port', { port: 53.5 }],
        ['axfrAllow', { axfrAllow: ['10.0.0.0/33'] }],
        ['axfrAllow', { axfrAllow: ['010.0.0.1'] }], // octal in some stacks
        ['axfrAllow', { axfrAllow: ['example.com'] }],
        ['axfrAllow', { axfrAllow: '127.0.0.1' }],
        ['secondaries', { secondaries: [{ host: 'knot.example', port: 53 }] }],
        ['secondaries', { secondaries: [{ host: '127.0.0.1', port: 0 }] }],
        ['notify.attempts', { notify: { attempts: 0 } }],
        ['answerCache', { answerCache: 'yes' }],
      ];
      for (const [field, patch] of bad) {
        expect(() => new EmbeddedNameserver({ ...ok, ...patch } as never), JSON.stringify(patch)).to.throw(
          TypeError,
          new RegExp(`nameserver config: ${field.replace('.', '\\.')}`),
        );
      }
    });

    it('matches peers against the allow list, IPv4-mapped IPv6 included', () => {
      const { axfrAllow } = validateConfig(ok);
      expect(allowed(axfrAllow, '127.0.0.1')).to.equal(true);
      expect(allowed(axfrAllow, '::ffff:127.0.0.1')).to.equal(true);
      expect(allowed(axfrAllow, '10.200.1.1')).to.equal(true);
      expect(allowed(axfrAllow, '2001:db8:1::5')).to.equal(true);
      expect(allowed(axfrAllow, '127.0.0.2')).to.equal(false);
      expect(allowed(axfrAllow, '192.0.2.1')).to.equal(false);
      expect(allowed(axfrAllow, 'garbage')).to.equal(false);
    });

    it('declares the zone_transfers capability', () => {
      expect(hasZoneTransfers(new EmbeddedNameserver(ok))).to.equal(true);
    });

    it('start reports its port; stop releases it', async () => {
      const ns = new EmbeddedNameserver({ ...ok, port: 0 });
      await ns.start();
      const { port } = ns.address();
      expect(port).to.be.above(0);
      await ns.stop();
      expect(() => ns.address()).to.throw(/not started/);
      const again = new EmbeddedNameserver({ ...ok, port });
      await again.start();
      await again.stop();
    });
  });

  describe('presentation values → wire (decoded back by dns-packet)', () => {
    /** The tail behind a root owner is a whole record again, for dns-packet's decoder. */
    const roundTrip = (type: RecordSet['type'], value: string): dnsPacket.Answer =>
      (dnsPacket as unknown as { answer: { decode(b: Buffer): dnsPacket.Answer } }).answer.decode(
        Buffer.concat([Buffer.from([0]), encodeValue(type, 300, value).tail]),
      );

    it('MX, SRV, CAA, SOA', () => {
      expect(roundTrip('MX', '10 Mail.Example.TEST.')).to.deep.include({
        type: 'MX',
        ttl: 300,
        data: { preference: 10, exchange: 'mail.example.test' },
      });
      expect(roundTrip('MX', '0 .')).to.deep.include({ data: { preference: 0, exchange: '.' } });
      expect(roundTrip('SRV', '10 60 5060 sip.example.test.')).to.deep.include({
        data: { priority: 10, weight: 60, port: 5060, target: 'sip.example.test' },
      });
      expect(roundTrip('CAA', '128 issue "ca.example; account=\\"1\\""')).to.deep.include({
        data: { flags: 128, tag: 'issue', value: 'ca.example; account="1"', issuerCritical: true },
      });
      expect(roundTrip('SOA', soaValue(7))).to.deep.nested.include({
        'data.serial': 7,
        'data.minimum': 300,
        'data.mname': 'ns1.domivka.net',
      });
    });

    it('TXT: UTF-8 text split into ≤ 255-octet strings, never inside a character (as the export splits); SPF is type 99', () => {
      const text = 'ї'.repeat(300); // 600 octets
      const r = roundTrip('TXT', text) as dnsPacket.TxtAnswer;
      const strings = r.data as Buffer[];
      expect(strings.map((b) => b.length)).to.deep.equal([254, 254, 92]);
      for (const s of strings) expect(new TextDecoder('utf-8', { fatal: true }).decode(s)).to.match(/^ї+$/);
      expect(Buffer.concat(strings).toString('utf8')).to.equal(text);
      expect(encodeValue('SPF', 60, 'v=spf1 -all').tail.readUInt16BE(0)).to.equal(99);
    });

    it('refuses what cannot go on the wire', () => {
      for (const [type, value] of [
        ['A', '2001:db8::1'],
        ['AAAA', '192.0.2.1'],
        ['MX', '70000 mx.example.'],
        ['MX', 'mx.example.'],
        ['CNAME', `${'a'.repeat(64)}.example.`],
        ['CNAME', 'a..example.'],
        ['CAA', '0 issue "unterminated'],
        ['SRV', '1 2 3'],
      ] as const) {
        expect(() => encodeValue(type, 60, value), `${type} ${value}`).to.throw();
      }
      expect(() => normaliseName(`${'abcdefghij.'.repeat(25)}example.`)).to.throw(/octets on the wire/);
    });
  });

  describe('compiling a zone', () => {
    const zone = (recordSets: RecordSet[]) => ({
      domain: 'example.test',
      serial: 1,
      recordSets: [{ name: 'example.test', type: 'SOA' as const, ttl: 3600, values: [soaValue(1)] }, ...recordSets],
    });

    it('creates empty non-terminals between the apex and every owner', () => {
      const z = compileZone(zone([{ name: 'a.b.c.example.test', type: 'A', ttl: 60, values: ['192.0.2.1'] }]), () => {});
      expect([...z.nodes.keys()]).to.have.members(['example.test', 'a.b.c.example.test', 'b.c.example.test', 'c.example.test']);
      expect(z.nodes.get('c.example.test')!.order).to.be.empty;
    });

    it('takes the negative TTL from min(SOA TTL, MINIMUM) and drops duplicate values', () => {
      const z = compileZone(zone([{ name: 'x.example.test', type: 'A', ttl: 60, values: ['192.0.2.1', '192.0.2.1'] }]), () => {});
      expect(z.negativeSoa.ttl).to.equal(300);
      expect(z.nodes.get('x.example.test')!.sets.get(1)!.tails).to.have.length(1);
    });

    it('marks cuts and collects their glue, in-domain glue as required', () => {
      const z = compileZone(
        zone([
          { name: 'sub.example.test', type: 'NS', ttl: 60, values: ['ns.sub.example.test.', 'ns.other.example.test.'] },
          { name: 'ns.sub.example.test', type: 'A', ttl: 60, values: ['192.0.2.1'] },
          { name: 'ns.other.example.test', type: 'A', ttl: 60, values: ['192.0.2.2'] },
        ]),
        () => {},
      );
      const cut = z.nodes.get('sub.example.test')!;
      expect(cut.cut).to.equal(true);
      expect(cut.glue.map((g) => [g.owner, g.required ?? null])).to.deep.equal([
        ['sub.example.test', null],
        ['ns.sub.example.test', true],
        ['ns.other.example.test', false],
      ]);
    });
  });

  describe('name compression (NameWriter, RFC 1035 §4.1.4)', () => {
    it('points at the longest suffix already written, and forgets what a rollback removed', () => {
      const w = new NameWriter();
      w.start([], []);
      w.at = 12;
      w.name(wireName('ns1.wide.example.test')); // 12: written whole
      const whole = w.at;
      expect(whole - 12).to.equal(23);
      w.name(wireName('ns2.wide.example.test')); // "ns2" + pointer to "wide.example.test" at 16
      expect(w.at - whole).to.equal(4 + 2);
      expect(w.buf.readUInt16BE(w.at - 2)).to.equal(0xc000 | 16);
      const mark = w.mark();
      w.name(wireName('mail.other.test'));
      w.rollback(mark);
      w.name(wireName('x.other.test')); // "other.test" was rolled back: "x", "other", then a pointer to "test"
      expect(w.at - mark[0]).to.equal(2 + 6 + 2);
      const msg = Buffer.alloc(w.at);
      w.buf.copy(msg, 0, 0, w.at);
      // Pointers decode back to the names (dns-packet's name decoder follows them).
      const decode = (dnsPacket as unknown as { name: { decode(b: Buffer, off: number): string } }).name.decode;
      expect(decode(msg, whole)).to.equal('ns2.wide.example.test');
      expect(decode(msg, mark[0])).to.equal('x.other.test');
    });

    it('compresses names inside NS, MX and SOA data but writes SRV targets whole (RFC 2782)', () => {
      const zone = compileZone(
        {
          id: 'z',
          domain: 'example.test',
          serial: 1,
          recordSets: [
            { name: 'example.test', type: 'SOA', ttl: 3600, values: [soaValue(1)] },
            { name: 'example.test', type: 'MX', ttl: 300, values: ['10 mail.example.test.'] },
            { name: '_s._tcp.example.test', type: 'SRV', ttl: 300, values: ['1 1 1 sip.example.test.'] },
          ],
        } as never,
        () => undefined,
      );
      const mx = zone.apexNode.sets.get(15)!;
      const srv = zone.nodes.get('_s._tcp.example.test')!.sets.get(33)!;
      expect(mx.layouts, 'MX laid out for compression').to.have.length(1);
      expect(srv.layouts, 'SRV is not').to.equal(undefined);
    });
  });
});
