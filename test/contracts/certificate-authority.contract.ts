import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509CertificateKeys } from '../../adapters/crypto/x509/index.js';
import {
  CertificateAuthorityError,
  type CertificateAuthority,
  type DnsChallengeSolver,
  type IssuedCertificate,
} from '../../core/certificates/ports/certificate-authority.port.js';
import { reqArgs } from '../support/openssl-req.js';

/**
 * The certificate-authority port's contract (STYLE 5). Every CA adapter runs it: the sandbox CA with an
 * in-memory DNS it checks, the ACME adapter against a real Pebble validating through our own DNS server.
 * The subject supplies where proofs get published; the contract builds spy solvers on top of it, so it
 * can tell what was presented and whether all of it was cleaned up.
 */
export interface ChallengeDns {
  /** Adds one TXT value at `name` (`_acme-challenge.<host>`) where the CA looks; resolves once served. */
  add(name: string, value: string): Promise<void>;
  /** Removes one TXT value at `name`; a value already gone is fine. */
  remove(name: string, value: string): Promise<void>;
}

export interface CertificateAuthoritySubject {
  readonly ca: CertificateAuthority;
  readonly dns: ChallengeDns;
  /** A host the DNS can publish under and the CA accepts, different on every call (no authorisation reuse). */
  freshHost(): string;
  /** The root issued chains must verify against. */
  trustAnchorPem(): Promise<string>;
  /** Whether the CA holds the certificate as revoked, where it keeps that (Pebble does; the sandbox CA
   * keeps no revocation list, so it leaves this out and the contract checks what revoking can show). */
  isRevoked?(certificatePem: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

export type MakeCertificateAuthoritySubject = () => CertificateAuthoritySubject | Promise<CertificateAuthoritySubject>;

interface Presented {
  readonly handle: string;
  readonly host: string;
  readonly value: string;
}

/**
 * A DNS-01 solver over the subject's DNS that records every call. `publish` writes what it is given;
 * `silent` writes nothing; `wrong` writes another value; `failSecond` fails on its second present.
 */
export class SpySolver implements DnsChallengeSolver {
  readonly presented: Presented[] = [];
  readonly cleaned: string[] = [];
  private n = 0;

  constructor(
    private readonly dns: ChallengeDns,
    private readonly mode: 'publish' | 'silent' | 'wrong' | 'failSecond' = 'publish',
  ) {}

  async present(host: string, value: string): Promise<string> {
    if (this.mode === 'failSecond' && this.presented.length === 1) throw new Error('the zone commit failed (spy)');
    const published = this.mode === 'wrong' ? `${value[0] === 'A' ? 'B' : 'A'}${value.slice(1)}` : value;
    if (this.mode !== 'silent') await this.dns.add(`_acme-challenge.${host}`, published);
    const handle = `spy-${++this.n}`;
    this.presented.push({ handle, host, value: published });
    return handle;
  }

  async cleanup(handle: string): Promise<void> {
    const p = this.presented.find((x) => x.handle === handle);
    if (!p) throw new Error(`cleanup of an unknown handle ${handle}`);
    if (this.mode !== 'silent') await this.dns.remove(`_acme-challenge.${p.host}`, p.value);
    this.cleaned.push(handle);
  }

  /** Handles presented and not cleaned up. */
  outstanding(): string[] {
    return this.presented.map((p) => p.handle).filter((h) => !this.cleaned.includes(h));
  }
}

/** A copy of a PEM block with the last octet of its DER (inside the signature) flipped. */
export const tamperSignature = (pem: string): string => {
  const [, label, body] = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END/.exec(pem)!;
  const der = Buffer.from(body!.replace(/\s+/g, ''), 'base64');
  der[der.length - 1] = der[der.length - 1]! ^ 0x01;
  return `-----BEGIN ${label}-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----\n`;
};

export const pemBlocks = (text: string): string[] => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

const openssl = (args: string[], input?: string): { ok: boolean; out: string } => {
  const r = spawnSync('openssl', args, { input, encoding: 'utf8' });
  return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
};

/** Awaits a promise that must reject with a CertificateAuthorityError; returns it. */
export const expectCaError = async (p: Promise<unknown>): Promise<CertificateAuthorityError> => {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected CertificateAuthorityError, got ${caught === undefined ? 'no error' : String(caught)}`).to.be.instanceOf(
    CertificateAuthorityError,
  );
  const err = caught as CertificateAuthorityError;
  expect(err.reason).to.be.a('string').and.not.equal('');
  return err;
};

export const certificateAuthorityContract = (name: string, makeSubject: MakeCertificateAuthoritySubject): void => {
  describe(`certificate authority contract: ${name}`, () => {
    const keys = new X509CertificateKeys();
    let subject: CertificateAuthoritySubject;
    let ca: CertificateAuthority;
    let dir: string;

    before(async function () {
      if (spawnSync('sh', ['-c', 'command -v openssl']).status !== 0) {
        if (process.env.CI) throw new Error('openssl missing');
        this.skip();
      }
      dir = mkdtempSync(join(tmpdir(), 'ca-contract-'));
      subject = await makeSubject();
      ca = subject.ca;
    });
    after(async () => {
      await subject?.cleanup();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('has kind "sandbox" or "acme"', () => {
      expect(['sandbox', 'acme']).to.include(ca.kind);
    });

    describe('an order for x and *.x', () => {
      let host: string;
      let names: string[];
      let csrPem: string;
      let solver: SpySolver;
      let issued: IssuedCertificate;

      before(async () => {
        host = subject.freshHost();
        names = [host, `*.${host}`];
        csrPem = (await keys.generate(names)).csrPem;
        solver = new SpySolver(subject.dns);
        issued = await ca.issue({ names, csrPem, solver, at: new Date() });
      });

      it("is one certificate whose SAN holds exactly those names, for the CSR's key", async () => {
        const leaf = await keys.inspectCertificate(issued.certificatePem);
        expect([...leaf.names].sort()).to.deep.equal([...names].sort());
        const fromCsr = openssl(['req', '-noout', '-pubkey'], csrPem).out;
        const fromCert = openssl(['x509', '-noout', '-pubkey'], issued.certificatePem).out;
        expect(fromCert)
          .to.equal(fromCsr)
          .and.match(/BEGIN PUBLIC KEY/);
      });

      it("reports the leaf's own dates, issuer and serial; notBefore < notAfter", async () => {
        const leaf = await keys.inspectCertificate(issued.certificatePem);
        expect(issued.notBefore.getTime()).to.equal(leaf.notBefore.getTime());
        expect(issued.notAfter.getTime()).to.equal(leaf.notAfter.getTime());
        expect(issued.notBefore.getTime()).to.be.lessThan(issued.notAfter.getTime());
        expect(issued.notBefore.getTime()).to.be.at.most(Date.now() + 60_000);
        expect(issued.issuer).to.equal(leaf.issuer).and.match(/CN=/);
        expect(issued.serial)
          .to.equal(leaf.serial)
          .and.match(/^[0-9a-f]+$/);
        expect(openssl(['x509', '-noout', '-serial'], issued.certificatePem).out.trim().toLowerCase()).to.equal(`serial=${issued.serial}`);
      });

      it('chainPem is the leaf then its intermediates, and verifies to the trust anchor for TLS servers (openssl verify)', async () => {
        const chain = pemBlocks(issued.chainPem);
        expect(chain.length).to.be.at.least(2);
        expect(chain[0]!.trim()).to.equal(issued.certificatePem.trim());
        const anchor = await subject.trustAnchorPem();
        for (const c of chain) expect(c.trim()).to.not.equal(anchor.trim());
        writeFileSync(join(dir, 'root.pem'), anchor);
        writeFileSync(join(dir, 'inter.pem'), chain.slice(1).join(''));
        writeFileSync(join(dir, 'leaf.pem'), chain[0]!);
        const v = openssl([
          'verify',
          '-x509_strict',
          '-purpose',
          'sslserver',
          '-CAfile',
          join(dir, 'root.pem'),
          '-untrusted',
          join(dir, 'inter.pem'),
          join(dir, 'leaf.pem'),
        ]);
        expect(v.out).to.include(`${join(dir, 'leaf.pem')}: OK`);
        expect(v.ok, v.out).to.equal(true);
        // Not against some other root.
        openssl(
          reqArgs({
            x509: true,
            key: 'ec:P-256',
            keyout: join(dir, 'o.key'),
            out: join(dir, 'other.pem'),
            days: 1,
            subj: '/CN=Other Root',
          }),
        );
        const other = openssl(['verify', '-CAfile', join(dir, 'other.pem'), '-untrusted', join(dir, 'inter.pem'), join(dir, 'leaf.pem')]);
        expect(other.ok).to.equal(false);
      });

      it('presented one proof per name at its base host (RFC 8555 §8.4) and cleaned every one up', () => {
        expect(solver.presented.length).to.be.within(1, names.length);
        for (const p of solver.presented) {
          expect(p.host).to.equal(host);
          expect(p.value).to.match(/^[A-Za-z0-9_-]{43}$/);
        }
        expect(solver.outstanding()).to.deep.equal([]);
      });

      it('rootPem() is null (a public CA) or the trust anchor', async () => {
        const root = await ca.rootPem();
        if (root !== null) expect(root.trim()).to.equal((await subject.trustAnchorPem()).trim());
      });

      it('revokes the issued certificate: the CA then holds it as revoked; revoking it again is not an error', async () => {
        if (subject.isRevoked) expect(await subject.isRevoked(issued.certificatePem), 'before revoking').to.equal(false);
        await ca.revoke(issued.certificatePem, 4 /* superseded */);
        if (subject.isRevoked) expect(await subject.isRevoked(issued.certificatePem), 'after revoking').to.equal(true);
        await ca.revoke(issued.certificatePem, 4);
        if (!subject.isRevoked) {
          // No revocation list to read: at least the request is judged, not ignored (7 is no RFC 5280 reason).
          const err = await expectCaError(ca.revoke(issued.certificatePem, 7));
          expect(err.retryable).to.equal(false);
        }
      });
    });

    it('refuses to revoke a certificate it did not issue', async () => {
      openssl(
        reqArgs({
          x509: true,
          key: 'ec:P-256',
          keyout: join(dir, 'f.key'),
          out: join(dir, 'f.pem'),
          days: 1,
          subj: `/CN=${subject.freshHost()}`,
        }),
      );
      const err = await expectCaError(ca.revoke(readFileSync(join(dir, 'f.pem'), 'utf8')));
      expect(err.retryable).to.equal(false);
    });

    it('a CSR whose names differ from the order: CertificateAuthorityError, not retryable; nothing left published', async () => {
      const host = subject.freshHost();
      const csrPem = (await keys.generate([host, `www.${host}`])).csrPem;
      const solver = new SpySolver(subject.dns);
      const err = await expectCaError(ca.issue({ names: [host, `*.${host}`], csrPem, solver, at: new Date() }));
      expect(err.retryable).to.equal(false);
      expect(solver.outstanding()).to.deep.equal([]);
    });

    it('a CSR whose signature does not verify: CertificateAuthorityError, not retryable; nothing left published', async () => {
      const host = subject.freshHost();
      const csrPem = tamperSignature((await keys.generate([host])).csrPem);
      expect((await keys.inspectCsr(csrPem)).signatureValid).to.equal(false);
      const solver = new SpySolver(subject.dns);
      const err = await expectCaError(ca.issue({ names: [host], csrPem, solver, at: new Date() }));
      expect(err.retryable).to.equal(false);
      expect(solver.outstanding()).to.deep.equal([]);
    });

    for (const mode of ['silent', 'wrong'] as const) {
      it(`a proof ${mode === 'silent' ? 'that is never published' : 'published with a wrong value'} fails validation: the CA's reason, not retryable, every proof cleaned up`, async () => {
        const host = subject.freshHost();
        const names = [host, `*.${host}`];
        const solver = new SpySolver(subject.dns, mode);
        const err = await expectCaError(ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }));
        expect(err.retryable, err.reason).to.equal(false);
        expect(err.reason).to.include(`_acme-challenge.${host}`);
        expect(solver.presented.length).to.be.at.least(1);
        expect(solver.outstanding()).to.deep.equal([]);
      });
    }

    it('a solver that fails: its error comes through and what was presented before is cleaned up', async () => {
      const host = subject.freshHost();
      const names = [host, `a.${host}`];
      const solver = new SpySolver(subject.dns, 'failSecond');
      let caught: unknown;
      await ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }).catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(Error);
      expect((caught as Error).message).to.include('zone commit failed');
      expect(solver.presented).to.have.length(1);
      expect(solver.outstanding()).to.deep.equal([]);
    });
  });
};
