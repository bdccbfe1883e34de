import { expect } from 'chai';
import { startServer } from '../../../test/dns/server/tools.js';
import { IterativeDelegationResolver, parseRootHints } from './index.js';

/**
 * The resolver against our own embedded server standing in for every level: the server is authoritative for
 * the domain itself (its NS set comes in the answer section), and the TXT proof is too long for a 512-octet
 * UDP answer, so it must be asked again over TCP (RFC 7766). The chain with referrals is
 * test/domains/hosted-delegation-chain.test.ts (knotd).
 */
describe('adapters/delegation/iterative', () => {
  it('parses root hints: host[@port], comma-separated, default port', () => {
    expect(parseRootHints('127.0.0.2@5300, 198.41.0.4', 53)).to.deep.equal([
      { host: '127.0.0.2', port: 5300 },
      { host: '198.41.0.4', port: 53 },
    ]);
  });

  it('reads the NS set and a TXT proof that only fits over TCP; our nameservers are never asked', async () => {
    const long = ['domivka-verify=abc', ...Array.from({ length: 6 }, (_, i) => `${'x'.repeat(200)}${i}`)];
    const { ns, port } = await startServer([
      {
        domain: 'tcp-proof.example',
        serial: 1,
        recordSets: [
          { name: 'tcp-proof.example', type: 'SOA', ttl: 60, values: ['ns1.tcp-proof.example. h.tcp-proof.example. 1 3600 600 86400 60'] },
          { name: 'tcp-proof.example', type: 'NS', ttl: 60, values: ['ns1.tcp-proof.example.', 'ns1.domivka.net.'] },
          { name: 'ns1.tcp-proof.example', type: 'A', ttl: 60, values: ['127.0.0.1'] },
          { name: '_domivka-challenge.tcp-proof.example', type: 'TXT', ttl: 60, values: long },
        ],
      },
    ]);
    try {
      const resolver = new IterativeDelegationResolver({ roots: [{ host: '127.0.0.1', port }], port, timeoutMs: 1000 });
      const r = await resolver.lookup({
        accountId: 'a',
        domain: 'tcp-proof.example',
        challenge: '_domivka-challenge.tcp-proof.example',
        expected: 'unused by the live resolver',
        ours: ['ns1.domivka.net', 'ns2.domivka.net'],
      });
      expect(r.kind).to.equal('delegated');
      if (r.kind !== 'delegated') return;
      expect(r.nameservers).to.deep.equal(['ns1.domivka.net', 'ns1.tcp-proof.example']);
      expect(r.askedNameservers).to.deep.equal(['ns1.tcp-proof.example']);
      expect(r.txt).to.include('domivka-verify=abc');
      expect(r.txt).to.have.length(long.length);
      const gone = await resolver.lookup({
        accountId: 'a',
        domain: 'absent.tcp-proof.example',
        challenge: '_domivka-challenge.absent.tcp-proof.example',
        expected: '',
        ours: [],
      });
      expect(gone.kind).to.equal('not_delegated');
    } finally {
      await ns.stop();
    }
  });
});
