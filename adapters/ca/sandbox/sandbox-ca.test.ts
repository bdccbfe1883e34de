import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AesGcmSecretBox } from '../../crypto/node/index.js';
import { X509CertificateKeys } from '../../crypto/x509/index.js';
import type { Clock } from '../../../core/kernel/clock.port.js';
import {
  certificateAuthorityContract,
  expectCaError,
  pemBlocks,
  SpySolver,
  type ChallengeDns,
} from '../../../test/contracts/certificate-authority.contract.js';
import {
  ISSUING_NAME,
  ROOT_NAME,
  SandboxCertificateAuthority,
  sandboxProof,
  type SandboxCaMaterial,
  type SandboxCaStore,
} from './index.js';
import { reqArgs } from '../../../test/support/openssl-req.js';

/** The SQL store's behaviour in memory: one row, first writer wins. */
class MemoryCaStore implements SandboxCaStore {
  material: SandboxCaMaterial | null = null;
  loads = 0;
  saves = 0;
  failNextLoad = false;

  async load(): Promise<SandboxCaMaterial | null> {
    this.loads++;
    await new Promise((r) => setTimeout(r, 5)); // a round trip, so concurrent callers interleave
    if (this.failNextLoad) {
      this.failNextLoad = false;
      throw new Error('database unavailable');
    }
    return this.material;
  }

  async saveIfAbsent(m: SandboxCaMaterial): Promise<SandboxCaMaterial> {
    this.saves++;
    this.material ??= m;
    return this.material;
  }
}

/** TXT values by name: what the solver publishes and what the sandbox CA looks up. */
class MemoryDns implements ChallengeDns {
  readonly txt = new Map<string, string[]>();

  async add(name: string, value: string): Promise<void> {
    this.txt.set(name, [...(this.txt.get(name) ?? []), value]);
  }

  async remove(name: string, value: string): Promise<void> {
    const left = (this.txt.get(name) ?? []).filter((v) => v !== value);
    if (left.length) this.txt.set(name, left);
    else this.txt.delete(name);
  }

  lookup = async (name: string): Promise<readonly string[]> => this.txt.get(name) ?? [];
}

const box = new AesGcmSecretBox(randomBytes(32));
const clock: Clock = { now: () => new Date() };
let hostCounter = 0;
const freshHost = (): string => `h${++hostCounter}-${process.pid}.sandbox-test.example`;

const openssl = (args: string[], input?: string): string => {
  const r = spawnSync('openssl', args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
};

describe('sandbox CA (adapters/ca/sandbox)', () => {
  certificateAuthorityContract('sandbox', () => {
    const dns = new MemoryDns();
    const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box, clock, lookupTxt: dns.lookup });
    return {
      ca,
      dns,
      freshHost,
      trustAnchorPem: async () => (await ca.rootPem())!,
      cleanup: async () => {
        expect([...dns.txt.keys()], 'proofs left in DNS').to.deep.equal([]);
      },
    };
  });

  describe('sandbox specifics', () => {
    const keys = new X509CertificateKeys();
    let dir: string;

    before(function () {
      if (spawnSync('sh', ['-c', 'command -v openssl']).status !== 0) {
        if (process.env.CI) throw new Error('openssl missing');
        this.skip();
      }
      dir = mkdtempSync(join(tmpdir(), 'sandbox-ca-'));
    });
    after(() => dir && rmSync(dir, { recursive: true, force: true }));

    const issueFor = async (ca: SandboxCertificateAuthority, names: string[], at = new Date(), csrPem?: string) =>
      ca.issue({ names, csrPem: csrPem ?? (await keys.generate(names)).csrPem, solver: new SpySolver(new MemoryDns()), at });

    /** `openssl verify` of a chain against a root, at a given time. */
    const verify = (rootPem: string, chainPem: string, at?: Date): string => {
      const [leaf, ...inter] = pemBlocks(chainPem);
      writeFileSync(join(dir, 'r.pem'), rootPem);
      writeFileSync(join(dir, 'i.pem'), inter.join(''));
      writeFileSync(join(dir, 'l.pem'), leaf!);
      const attime = at ? ['-attime', String(Math.floor(at.getTime() / 1000))] : [];
      return openssl([
        'verify',
        '-x509_strict',
        '-purpose',
        'sslserver',
        ...attime,
        '-CAfile',
        join(dir, 'r.pem'),
        '-untrusted',
        join(dir, 'i.pem'),
        join(dir, 'l.pem'),
      ]);
    };

    it('leaf profile: 90 days from order.at (backdated 1 min), random positive 16-octet serial, CN = first non-wildcard name, serverAuth, CA:FALSE, SKI/AKI', async () => {
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box, clock });
      const at = new Date('2027-03-01T12:00:00Z');
      const issued = await issueFor(ca, ['*.shop.example.com', 'shop.example.com'], at);
      expect(issued.notBefore.toISOString()).to.equal('2027-03-01T11:59:00.000Z');
      expect(issued.notAfter.toISOString()).to.equal('2027-05-30T12:00:00.000Z');
      expect(issued.issuer).to.equal(ISSUING_NAME);
      expect(issued.serial).to.match(/^[0-7][0-9a-f]{31}$/);
      const text = openssl(['x509', '-noout', '-text'], issued.certificatePem);
      expect(text).to.match(/Subject: CN\s?=\s?shop\.example\.com/);
      expect(text).to.match(/X509v3 Key Usage: critical\s+Digital Signature\n/);
      expect(text).to.match(/X509v3 Extended Key Usage: \s*TLS Web Server Authentication\n/);
      expect(text).to.match(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
      expect(text).to.match(/Signature Algorithm: ecdsa-with-SHA256/);
      const aki = /X509v3 Authority Key Identifier: \s*(?:keyid:)?([0-9A-F:]+)/.exec(text)![1];
      const inter = openssl(['x509', '-noout', '-text'], pemBlocks(issued.chainPem)[1]);
      expect(inter).to.match(/CA:TRUE, pathlen:0/);
      expect(/X509v3 Subject Key Identifier: \s*([0-9A-F:]+)/.exec(inter)![1]).to.equal(aki);
      expect(text).to.match(/X509v3 Subject Key Identifier:/);
      expect(verify((await ca.rootPem())!, issued.chainPem, new Date('2027-04-01T00:00:00Z'))).to.match(/: OK/);
      // Two issuances never share a serial.
      const again = await issueFor(ca, ['shop.example.com'], at);
      expect(again.serial).to.not.equal(issued.serial);
    });

    it('root: self-signed ECDSA P-384 "Domivka Sandbox Root CA", CA:TRUE, valid ten years', async () => {
      const now = new Date();
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box, clock: { now: () => now } });
      const root = (await ca.rootPem())!;
      const info = await keys.inspectCertificate(root);
      expect(info.issuer).to.equal(ROOT_NAME);
      expect(info.notAfter.getTime() - now.getTime()).to.be.closeTo(3652 * 86_400_000, 1000);
      const text = openssl(['x509', '-noout', '-text'], root);
      expect(text).to.match(/NIST CURVE: P-384/);
      expect(text).to.match(/Basic Constraints: critical\s+CA:TRUE/);
      expect(text).to.match(/Key Usage: critical\s+Certificate Sign, CRL Sign/);
      writeFileSync(join(dir, 'root.pem'), root);
      expect(openssl(['verify', '-x509_strict', '-CAfile', join(dir, 'root.pem'), join(dir, 'root.pem')])).to.match(/: OK/);
    });

    it('an RSA 2048 request made by openssl is signed for that key, with keyEncipherment too', async () => {
      openssl(
        reqArgs({
          key: 'rsa:2048',
          keyout: join(dir, 'rsa.key'),
          out: join(dir, 'rsa.csr'),
          subj: '/CN=rsa.example.com',
          san: 'DNS:rsa.example.com',
        }),
      );
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      const issued = await issueFor(ca, ['rsa.example.com'], new Date(), readFileSync(join(dir, 'rsa.csr'), 'utf8'));
      expect(openssl(['x509', '-noout', '-text'], issued.certificatePem)).to.match(
        /Key Usage: critical\s+Digital Signature, Key Encipherment/,
      );
      expect(openssl(['x509', '-noout', '-pubkey'], issued.certificatePem)).to.equal(
        openssl(['req', '-noout', '-pubkey', '-in', join(dir, 'rsa.csr')]),
      );
      expect(verify((await ca.rootPem())!, issued.chainPem)).to.match(/: OK/);
    });

    it('refuses keys a public CA refuses (RSA 1024, Ed25519) and names that are not host names', async () => {
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      for (const newkey of ['rsa:1024', 'ed25519'] as const) {
        openssl(reqArgs({ key: newkey, keyout: join(dir, 'w.key'), out: join(dir, 'w.csr'), subj: '/CN=weak.example.com' }));
        const err = await expectCaError(issueFor(ca, ['weak.example.com'], new Date(), readFileSync(join(dir, 'w.csr'), 'utf8')));
        expect(err.problemType).to.equal('urn:ietf:params:acme:error:badCSR');
        expect(err.retryable).to.equal(false);
      }
      const bad = await expectCaError(issueFor(ca, ['a.*.example.com'], new Date(), (await keys.generate(['x.example.com'])).csrPem));
      expect(bad.problemType).to.equal('urn:ietf:params:acme:error:rejectedIdentifier');
      const garbage = await expectCaError(issueFor(ca, ['x.example.com'], new Date(), 'garbage'));
      expect(garbage.problemType).to.equal('urn:ietf:params:acme:error:badCSR');
    });

    it('presents one deterministic proof per distinct base host, all before any check, then cleans up', async () => {
      const dns = new MemoryDns();
      const seen: string[] = [];
      const ca = new SandboxCertificateAuthority({
        store: new MemoryCaStore(),
        box,
        lookupTxt: async (name) => {
          seen.push(`lookup ${name} with ${[...dns.txt.keys()].length} names published`);
          return dns.lookup(name);
        },
      });
      const solver = new SpySolver(dns);
      const names = ['a.example.com', '*.a.example.com', 'b.example.com'];
      await ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() });
      expect(solver.presented.map((p) => [p.host, p.value])).to.deep.equal([
        ['a.example.com', sandboxProof('a.example.com')],
        ['b.example.com', sandboxProof('b.example.com')],
      ]);
      expect(seen).to.deep.equal([
        'lookup _acme-challenge.a.example.com with 2 names published',
        'lookup _acme-challenge.b.example.com with 2 names published',
      ]);
      expect(solver.outstanding()).to.deep.equal([]);
      expect(dns.txt.size).to.equal(0);
    });

    it('without lookupTxt it only goes through the motions: a silent solver still gets a certificate', async () => {
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      const solver = new SpySolver(new MemoryDns(), 'silent');
      await ca.issue({ names: ['quiet.example.com'], csrPem: (await keys.generate(['quiet.example.com'])).csrPem, solver, at: new Date() });
      expect(solver.presented).to.have.length(1);
      expect(solver.outstanding()).to.deep.equal([]);
    });

    it('root and intermediate persist: a new instance (a restart, another process) signs under the same root', async () => {
      const store = new MemoryCaStore();
      const first = new SandboxCertificateAuthority({ store, box });
      const root = (await first.rootPem())!;
      const second = new SandboxCertificateAuthority({ store, box });
      const issued = await issueFor(second, ['persist.example.com']);
      expect(await second.rootPem()).to.equal(root);
      expect(verify(root, issued.chainPem)).to.match(/: OK/);
      expect(store.saves).to.equal(1);
    });

    it('private keys are stored sealed: no PEM key in the store, and another data key cannot open them', async () => {
      const store = new MemoryCaStore();
      await new SandboxCertificateAuthority({ store, box }).rootPem();
      const m = store.material!;
      expect(JSON.stringify(m)).to.not.include('PRIVATE KEY');
      expect(box.open(m.rootKeySealed)).to.match(/^-----BEGIN PRIVATE KEY-----/);
      expect(box.open(m.intermediateKeySealed)).to.match(/^-----BEGIN PRIVATE KEY-----/);
      let caught: unknown;
      await new SandboxCertificateAuthority({ store, box: new AesGcmSecretBox(randomBytes(32)) })
        .rootPem()
        .catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(Error);
    });

    it('two processes racing to create the CA both end up with the stored winner', async () => {
      const store = new MemoryCaStore();
      const a = new SandboxCertificateAuthority({ store, box });
      const b = new SandboxCertificateAuthority({ store, box });
      const [ra, rb] = await Promise.all([a.rootPem(), b.rootPem()]);
      expect(store.saves).to.equal(2);
      expect(ra).to.equal(rb).and.equal(store.material!.rootCertificatePem);
      const issued = await issueFor(a, ['race.example.com']);
      expect(verify(rb!, issued.chainPem)).to.match(/: OK/);
    });

    it('is lazy and memoised; a failed load is retried on the next call', async () => {
      const store = new MemoryCaStore();
      const ca = new SandboxCertificateAuthority({ store, box });
      expect(store.loads).to.equal(0);
      store.failNextLoad = true;
      let caught: unknown;
      await ca.rootPem().catch((e: unknown) => (caught = e));
      expect((caught as Error).message).to.equal('database unavailable');
      await Promise.all([ca.rootPem(), ca.rootPem(), issueFor(ca, ['lazy.example.com'])]);
      expect(store.loads).to.equal(2);
      expect(store.saves).to.equal(1);
    });

    it('revoke: only its own certificates (the signature decides, not the shared name), RFC 5280 reasons only', async () => {
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      const issued = await issueFor(ca, ['revoke.example.com']);
      await ca.revoke(issued.certificatePem);
      await ca.revoke(issued.chainPem, 1);
      const other = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      const foreign = await issueFor(other, ['revoke.example.com']);
      expect(foreign.issuer).to.equal(issued.issuer);
      expect((await expectCaError(ca.revoke(foreign.certificatePem))).problemType).to.equal('urn:ietf:params:acme:error:unauthorized');
      expect((await expectCaError(ca.revoke(issued.certificatePem, 7))).problemType).to.equal(
        'urn:ietf:params:acme:error:badRevocationReason',
      );
      expect((await expectCaError(ca.revoke('not a certificate'))).problemType).to.equal('urn:ietf:params:acme:error:malformed');
    });

    it('follows a sandbox clock years ahead: the chain verifies at that time', async () => {
      const ca = new SandboxCertificateAuthority({ store: new MemoryCaStore(), box });
      const at = new Date(Date.now() + 3 * 365 * 86_400_000);
      const issued = await issueFor(ca, ['later.example.com'], at);
      const root = (await ca.rootPem())!;
      expect(verify(root, issued.chainPem, new Date(at.getTime() + 86_400_000))).to.match(/: OK/);
      expect(() => verify(root, issued.chainPem)).to.throw(/not yet valid/);
    });
  });
});
