import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { childZone, exampleZone, LONG_TXT } from './fixtures.js';
import { dig, kdig, rdata, requireTools, startServer } from './tools.js';

/** Issue 4, "The authoritative DNS server": what it answers, asked by dig and kdig. */
describe('DNS server answers (dig and kdig as clients)', () => {
  let ns: EmbeddedNameserver;
  let port: number;

  before(async function () {
    requireTools(this, 'dig', 'kdig');
    ({ ns, port } = await startServer([exampleZone(), childZone()]));
  });
  after(async () => ns?.stop());

  describe('authoritative data, with AA', () => {
    it('A: every value of the set, AA set, no RA (we do not recurse)', async () => {
      const r = await dig(port, 'www.example.test', 'A');
      expect(r.status).to.equal('NOERROR');
      expect(r.flags).to.include.members(['qr', 'aa']).and.not.include('ra');
      expect(rdata(r.answer, 'A')).to.have.members(['192.0.2.1', '192.0.2.2']);
      expect(r.answer[0]).to.include({ name: 'www.example.test.', ttl: 300, class: 'IN' });
    });

    it('AAAA (kdig)', async () => {
      const r = await kdig(port, 'www.example.test', 'AAAA');
      expect(r.status).to.equal('NOERROR');
      expect(r.flags).to.include('aa');
      expect(rdata(r.answer, 'AAAA')).to.deep.equal(['2001:db8::1']);
    });

    it('MX at the apex', async () => {
      const r = await dig(port, 'example.test', 'MX');
      expect(rdata(r.answer, 'MX')).to.have.members(['10 mail.example.test.', '20 mx2.example.net.']);
    });

    it('TXT longer than 255 octets comes back as ≤ 255-octet strings that join to the stored text', async () => {
      const r = await dig(port, 'long.example.test', 'TXT');
      const strings = [...r.answer[0]!.data.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
      expect(strings.length).to.equal(Math.ceil(LONG_TXT.length / 255));
      for (const s of strings) expect(s.length).to.be.at.most(255);
      expect(strings.join('')).to.equal(LONG_TXT);
    });

    it('CAA (kdig)', async () => {
      const r = await kdig(port, 'example.test', 'CAA');
      expect(rdata(r.answer, 'CAA')).to.have.members(['0 issue "letsencrypt.org"', '0 iodef "mailto:security@example.test"']);
    });

    it('SRV', async () => {
      const r = await dig(port, '_sip._tcp.example.test', 'SRV');
      expect(rdata(r.answer, 'SRV')).to.deep.equal(['10 60 5060 sip.example.test.']);
    });

    it('SOA and NS at the apex belong to the service', async () => {
      const soa = await dig(port, 'example.test', 'SOA');
      expect(rdata(soa.answer, 'SOA')).to.deep.equal(['ns1.domivka.net. hostmaster.domivka.net. 2026112100 3600 600 1209600 300']);
      const nsr = await kdig(port, 'example.test', 'NS');
      expect(rdata(nsr.answer, 'NS')).to.have.members(['ns1.domivka.net.', 'ns2.domivka.net.']);
      expect(nsr.flags).to.include('aa');
    });
  });

  describe('negative answers carry the SOA (RFC 2308), its TTL min(SOA TTL, MINIMUM)', () => {
    it('NXDOMAIN for a name that does not exist', async () => {
      const r = await dig(port, 'nope.example.test', 'A');
      expect(r.status).to.equal('NXDOMAIN');
      expect(r.flags).to.include('aa');
      expect(r.answer).to.be.empty;
      expect(r.authority).to.have.length(1);
      expect(r.authority[0]).to.include({ name: 'example.test.', type: 'SOA', ttl: 300 });
    });

    it('NODATA: the name exists, the type does not', async () => {
      for (const r of [await dig(port, 'www.example.test', 'MX'), await kdig(port, 'www.example.test', 'TYPE65')]) {
        expect(r.status).to.equal('NOERROR');
        expect(r.flags).to.include('aa');
        expect(r.answer).to.be.empty;
        expect(r.authority.map((a) => a.type)).to.deep.equal(['SOA']);
        expect(r.authority[0]!.ttl).to.equal(300);
      }
    });
  });

  describe('names that are not ours', () => {
    it('REFUSED, without AA, for a name outside every zone', async () => {
      for (const r of [await dig(port, 'example.org', 'A'), await kdig(port, 'test', 'SOA')]) {
        expect(r.status).to.equal('REFUSED');
        expect(r.flags).not.to.include('aa');
        expect(r.answer).to.be.empty;
      }
    });

    it('REFUSED for a class other than IN (CH version.bind)', async () => {
      expect((await dig(port, 'version.bind', 'CH', 'TXT')).status).to.equal('REFUSED');
    });
  });

  describe('wildcards (RFC 4592)', () => {
    it('synthesizes the answer under the query name, one label or several below the wildcard', async () => {
      for (const name of ['foo.wild.example.test', 'x.y.wild.example.test']) {
        const r = await dig(port, name, 'A');
        expect(r.status).to.equal('NOERROR');
        expect(r.flags).to.include('aa');
        expect(r.answer).to.deep.equal([{ name: `${name}.`, ttl: 300, class: 'IN', type: 'A', data: '192.0.2.50' }]);
      }
      expect(rdata((await kdig(port, 'bar.wild.example.test', 'TXT')).answer)).to.deep.equal(['"from the wildcard"']);
    });

    it('NODATA for a type the wildcard does not have', async () => {
      const r = await dig(port, 'foo.wild.example.test', 'AAAA');
      expect(r.status).to.equal('NOERROR');
      expect(r.answer).to.be.empty;
      expect(r.authority.map((a) => a.type)).to.deep.equal(['SOA']);
    });

    it('an empty non-terminal exists (NODATA) and blocks the wildcard for the names below it (NXDOMAIN)', async () => {
      const ent = await dig(port, 'b.wild.example.test', 'A');
      expect(ent.status).to.equal('NOERROR');
      expect(ent.answer).to.be.empty;
      const below = await dig(port, 'x.b.wild.example.test', 'A');
      expect(below.status).to.equal('NXDOMAIN');
      expect(below.authority.map((a) => a.type)).to.deep.equal(['SOA']);
      expect(rdata((await dig(port, 'a.b.wild.example.test', 'A')).answer)).to.deep.equal(['192.0.2.51']);
    });

    it('the wildcard name itself is an ordinary name', async () => {
      const r = await dig(port, '*.wild.example.test', 'A');
      expect(r.answer).to.deep.equal([{ name: '*.wild.example.test.', ttl: 300, class: 'IN', type: 'A', data: '192.0.2.50' }]);
    });

    it('a wildcard CNAME is synthesized and chased', async () => {
      const r = await dig(port, 'anything.alias.example.test', 'AAAA');
      expect(r.answer.map((a) => `${a.name} ${a.type} ${a.data}`)).to.deep.equal([
        'anything.alias.example.test. CNAME www.example.test.',
        'www.example.test. AAAA 2001:db8::1',
      ]);
    });
  });

  describe('CNAME, chased inside the zone', () => {
    it('follows a chain to the data, in order', async () => {
      const r = await dig(port, 'c1.example.test', 'A');
      expect(r.status).to.equal('NOERROR');
      expect(r.flags).to.include('aa');
      expect(r.answer.map((a) => `${a.name} ${a.type} ${a.data}`)).to.deep.equal([
        'c1.example.test. CNAME c2.example.test.',
        'c2.example.test. CNAME www.example.test.',
        'www.example.test. A 192.0.2.1',
        'www.example.test. A 192.0.2.2',
      ]);
    });

    it('a CNAME query gets the CNAME only', async () => {
      const r = await kdig(port, 'c1.example.test', 'CNAME');
      expect(r.answer.map((a) => a.type)).to.deep.equal(['CNAME']);
    });

    it('stops at a loop, each CNAME once', async () => {
      const r = await dig(port, 'loop1.example.test', 'A');
      expect(r.status).to.equal('NOERROR');
      expect(r.answer.map((a) => a.name)).to.deep.equal(['loop1.example.test.', 'loop2.example.test.']);
    });

    it('stops where the chain leaves the zone', async () => {
      const r = await dig(port, 'out.example.test', 'A');
      expect(r.status).to.equal('NOERROR');
      expect(r.answer.map((a) => a.data)).to.deep.equal(['www.example.net.']);
      expect(r.authority).to.be.empty;
    });

    it('a chain ending at a missing name is NXDOMAIN with the CNAME and the SOA (RFC 6604)', async () => {
      const r = await dig(port, 'dangling.example.test', 'A');
      expect(r.status).to.equal('NXDOMAIN');
      expect(r.answer.map((a) => a.type)).to.deep.equal(['CNAME']);
      expect(r.authority.map((a) => a.type)).to.deep.equal(['SOA']);
    });
  });

  describe('DNAME (RFC 6672)', () => {
    it('answers the DNAME and a synthesized CNAME, then chases it', async () => {
      const r = await dig(port, 'www.old.example.test', 'A');
      expect(r.answer.map((a) => `${a.name} ${a.type} ${a.data}`)).to.deep.equal([
        'old.example.test. DNAME example.test.',
        'www.old.example.test. CNAME www.example.test.',
        'www.example.test. A 192.0.2.1',
        'www.example.test. A 192.0.2.2',
      ]);
    });
  });

  describe('delegations', () => {
    it('a name below a cut gets a referral: no AA, NS in authority, glue in additional', async () => {
      const r = await dig(port, 'host.sub.example.test', 'A');
      expect(r.status).to.equal('NOERROR');
      expect(r.flags).not.to.include('aa');
      expect(r.answer).to.be.empty;
      expect(rdata(r.authority, 'NS')).to.have.members(['ns1.sub.example.test.', 'ns.example.net.']);
      expect(r.authority.every((a) => a.name === 'sub.example.test.')).to.equal(true);
      expect(r.additional.map((a) => `${a.name} ${a.type} ${a.data}`)).to.have.members([
        'ns1.sub.example.test. A 192.0.2.53',
        'ns1.sub.example.test. AAAA 2001:db8::53',
      ]);
    });

    it('the cut itself is a referral too (kdig)', async () => {
      const r = await kdig(port, 'sub.example.test', 'NS');
      expect(r.flags).not.to.include('aa');
      expect(r.answer).to.be.empty;
      expect(rdata(r.authority, 'NS')).to.have.length(2);
    });

    it('DS at a cut is the parent side: authoritative NODATA (we hold no DS)', async () => {
      const r = await dig(port, 'sub.example.test', 'DS');
      expect(r.flags).to.include('aa');
      expect(r.authority.map((a) => a.type)).to.deep.equal(['SOA']);
    });

    it('a child zone we also serve answers for itself (longest match), not the parent referral', async () => {
      const r = await dig(port, 'www.child.example.test', 'A');
      expect(r.flags).to.include('aa');
      expect(rdata(r.answer)).to.deep.equal(['192.0.2.77']);
      const nx = await dig(port, 'nope.child.example.test', 'A');
      expect(nx.status).to.equal('NXDOMAIN');
      expect(nx.authority[0]!.name).to.equal('child.example.test.');
    });
  });

  describe('ANY (RFC 8482: minimal)', () => {
    it('answers one RRset of the name, not all of them', async () => {
      const r = await dig(port, 'www.example.test', 'ANY');
      expect(r.status).to.equal('NOERROR');
      expect(new Set(r.answer.map((a) => a.type)).size).to.equal(1);
      expect(r.answer.map((a) => a.type)[0]).to.equal('A');
    });

    it('a missing name is still NXDOMAIN', async () => {
      expect((await dig(port, 'nope.example.test', 'ANY')).status).to.equal('NXDOMAIN');
    });
  });

  describe('case-insensitive names (RFC 4343)', () => {
    it('matches whatever the case and answers with the question as asked', async () => {
      for (const r of [await dig(port, 'WwW.ExAmPlE.TeSt', 'A'), await kdig(port, 'WWW.EXAMPLE.TEST', 'A')]) {
        expect(r.status).to.equal('NOERROR');
        expect(rdata(r.answer)).to.have.members(['192.0.2.1', '192.0.2.2']);
      }
      const r = await dig(port, 'WwW.ExAmPlE.TeSt', 'A');
      expect(r.question).to.equal('WwW.ExAmPlE.TeSt.');
      expect(r.answer[0]!.name).to.equal('WwW.ExAmPlE.TeSt.');
      expect((await dig(port, 'NoPe.Example.Test', 'A')).authority[0]!.name.toLowerCase()).to.equal('example.test.');
    });
  });
});
