import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MalformedCertificateInput } from '../../../core/certificates/ports/certificate-keys.port.js';
import { X509CertificateKeys, serialHex } from './index.js';
import { reqArgs } from '../../../test/support/openssl-req.js';

/** openssl with stdin; throws with its stderr when it fails. */
const openssl = (args: string[], input?: string): string => {
  const r = spawnSync('openssl', args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout + r.stderr;
};

const requireOpenssl = (ctx: Mocha.Context): void => {
  if (spawnSync('sh', ['-c', 'command -v openssl']).status === 0) return;
  if (process.env.CI) throw new Error('openssl missing');
  ctx.skip();
};

/** A copy of the PEM with one octet of its signature (the DER's last octet) changed. */
const tamperSignature = (pem: string): string => {
  const [, label, body] = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END/.exec(pem)!;
  const der = Buffer.from(body!.replace(/\s+/g, ''), 'base64');
  der[der.length - 1] = der[der.length - 1]! ^ 0x01;
  return `-----BEGIN ${label}-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----\n`;
};

const expectMalformed = async (p: Promise<unknown>, detail?: RegExp): Promise<MalformedCertificateInput> => {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected MalformedCertificateInput').to.be.instanceOf(MalformedCertificateInput);
  const err = caught as MalformedCertificateInput;
  expect(err.detail.length).to.be.within(1, 120);
  if (detail) expect(err.detail).to.match(detail);
  return err;
};

describe('X509CertificateKeys (adapters/crypto/x509)', () => {
  const keys = new X509CertificateKeys();
  let dir: string;
  let rsaCsr: string;
  let selfSigned: string;
  let otherCert: string;

  before(function () {
    requireOpenssl(this);
    dir = mkdtempSync(join(tmpdir(), 'x509-test-'));
    openssl(
      reqArgs({
        key: 'rsa:2048',
        keyout: join(dir, 'rsa.key'),
        out: join(dir, 'rsa.csr'),
        subj: '/CN=WWW.Example.COM',
        san: 'DNS:Example.com,DNS:www.example.com,DNS:example.com,IP:192.0.2.1',
      }),
    );
    rsaCsr = readFileSync(join(dir, 'rsa.csr'), 'utf8');
    openssl(
      reqArgs({
        x509: true,
        key: 'ec:P-384',
        keyout: join(dir, 'c.key'),
        out: join(dir, 'c.pem'),
        days: 30,
        extra: ['-set_serial', '0x8a0000000000000000000000000000ff'],
        subj: '/O=Test Org/CN=Test Issuer',
        san: 'DNS:a.example.org,DNS:*.a.example.org',
      }),
    );
    selfSigned = readFileSync(join(dir, 'c.pem'), 'utf8');
    openssl(
      reqArgs({ x509: true, key: 'rsa:2048', keyout: join(dir, 'o.key'), out: join(dir, 'o.pem'), days: 1, subj: '/CN=other.example.net' }),
    );
    otherCert = readFileSync(join(dir, 'o.pem'), 'utf8');
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  describe('generate', () => {
    it('makes an ECDSA P-256 PKCS#8 key and a CSR that OpenSSL verifies, with every name in the SAN', async () => {
      const g = await keys.generate(['*.shop.example.com', 'shop.example.com', 'www.shop.example.com']);
      expect(g.privateKeyPem).to.match(/^-----BEGIN PRIVATE KEY-----\n/);
      expect(openssl(['pkey', '-noout', '-text'], g.privateKeyPem)).to.match(/NIST CURVE: P-256/);
      expect(openssl(['pkey', '-noout', '-check'], g.privateKeyPem)).to.match(/valid/i);
      const text = openssl(['req', '-noout', '-text', '-verify'], g.csrPem);
      expect(text).to.match(/verify OK/i);
      expect(text).to.match(/Subject: CN\s?=\s?shop\.example\.com/);
      expect(text).to.include('DNS:*.shop.example.com, DNS:shop.example.com, DNS:www.shop.example.com');
      // The CSR carries the key's public half.
      const fromKey = openssl(['pkey', '-pubout'], g.privateKeyPem);
      const fromCsr = openssl(['req', '-noout', '-pubkey'], g.csrPem);
      expect(fromCsr).to.equal(fromKey);
    });

    it('CN is the first name when all are wildcards; no CN (and a critical SAN) when every name is over 64 characters', async () => {
      const w = await keys.generate(['*.a.example.com', '*.b.example.com']);
      expect(openssl(['req', '-noout', '-subject'], w.csrPem)).to.match(/CN\s?=\s?\*\.a\.example\.com/);
      const long = `${'x'.repeat(60)}.example.com`;
      const l = await keys.generate([long]);
      expect(openssl(['req', '-noout', '-subject'], l.csrPem).trim()).to.equal('subject=');
      expect(openssl(['req', '-noout', '-text'], l.csrPem)).to.match(/Subject Alternative Name: critical/);
      expect((await keys.inspectCsr(l.csrPem)).names).to.deep.equal([long]);
    });

    it('refuses an empty name list', async () => {
      let caught: unknown;
      await keys.generate([]).catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(Error);
    });
  });

  describe('inspectCsr', () => {
    it('reads its own requests back: names, "EC P-256", a valid signature', async () => {
      const g = await keys.generate(['example.com', '*.example.com']);
      expect(await keys.inspectCsr(g.csrPem)).to.deep.equal({
        names: ['example.com', '*.example.com'],
        otherNames: [],
        keyAlgorithm: 'EC P-256',
        signatureValid: true,
      });
    });

    it('an RSA request made by `openssl req`: SAN dNSNames lower-cased and deduplicated, the CN added, IPs reported apart', async () => {
      expect(await keys.inspectCsr(rsaCsr)).to.deep.equal({
        names: ['example.com', 'www.example.com'],
        otherNames: ['ip:192.0.2.1'],
        keyAlgorithm: 'RSA 2048',
        signatureValid: true,
      });
    });

    it('a CN that is a host name missing from the SAN is a name; a CN that is not a host name is not', async () => {
      const p = join(dir, 'cn.csr');
      openssl(reqArgs({ key: 'ec:P-384', keyout: join(dir, 'cn.key'), out: p, subj: '/CN=Only.Example.NET' }));
      expect(await keys.inspectCsr(readFileSync(p, 'utf8'))).to.deep.equal({
        names: ['only.example.net'],
        otherNames: [],
        keyAlgorithm: 'EC P-384',
        signatureValid: true,
      });
      openssl(reqArgs({ key: 'ec:P-256', keyout: join(dir, 'cn.key'), out: p, subj: '/CN=My Web Server', san: 'DNS:a.example.net' }));
      expect((await keys.inspectCsr(readFileSync(p, 'utf8'))).names).to.deep.equal(['a.example.net']);
    });

    it('an Ed25519 request made by openssl: named, "Ed25519", valid', async () => {
      const p = join(dir, 'ed.csr');
      openssl(['req', '-new', '-newkey', 'ed25519', '-nodes', '-keyout', join(dir, 'ed.key'), '-out', p, '-subj', '/CN=ed.example.com']);
      const info = await keys.inspectCsr(readFileSync(p, 'utf8'));
      expect(info).to.deep.equal({ names: ['ed.example.com'], otherNames: [], keyAlgorithm: 'Ed25519', signatureValid: true });
    });

    it('a request whose signature was altered parses but does not verify', async () => {
      const g = await keys.generate(['example.com']);
      const bad = await keys.inspectCsr(tamperSignature(g.csrPem));
      expect(bad).to.deep.equal({ names: ['example.com'], otherNames: [], keyAlgorithm: 'EC P-256', signatureValid: false });
      const rsaBad = await keys.inspectCsr(tamperSignature(rsaCsr));
      expect(rsaBad.signatureValid).to.equal(false);
      expect(openssl(['req', '-noout', '-verify'], tamperSignature(rsaCsr))).to.match(/verify failure/i);
    });

    it('accepts explanatory text around the block and the NEW CERTIFICATE REQUEST label', async () => {
      const g = await keys.generate(['example.com']);
      expect((await keys.inspectCsr(`Here is my request:\n${g.csrPem}\nthanks\n`)).names).to.deep.equal(['example.com']);
      expect((await keys.inspectCsr(g.csrPem.replace(/CERTIFICATE REQUEST/g, 'NEW CERTIFICATE REQUEST'))).signatureValid).to.equal(true);
    });

    it('refuses garbage, other PEM types, two requests, broken PEM and huge input with a short detail', async () => {
      const g = await keys.generate(['example.com']);
      await expectMalformed(keys.inspectCsr(''), /empty/);
      await expectMalformed(keys.inspectCsr('hello, world'), /not PEM/);
      await expectMalformed(
        keys.inspectCsr('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n'),
        /not a valid PKCS#10/,
      );
      await expectMalformed(
        keys.inspectCsr('-----BEGIN CERTIFICATE REQUEST-----\nnot base64 at all!\n-----END CERTIFICATE REQUEST-----\n'),
        /base64/,
      );
      await expectMalformed(keys.inspectCsr(g.csrPem.replace(/-----END CERTIFICATE REQUEST-----/, '')), /not closed/);
      await expectMalformed(keys.inspectCsr(g.csrPem.replace(/END CERTIFICATE REQUEST/, 'END CERTIFICATE')), /ends as/);
      await expectMalformed(keys.inspectCsr(g.csrPem + g.csrPem), /one PEM block, got 2/);
      await expectMalformed(keys.inspectCsr(selfSigned), /got CERTIFICATE$/);
      await expectMalformed(keys.inspectCsr(g.privateKeyPem), /got PRIVATE KEY/);
      await expectMalformed(keys.inspectCsr(g.csrPem + 'x'.repeat(64 * 1024)), /64 KiB/);
      // A certificate's DER under a request label.
      await expectMalformed(keys.inspectCsr(selfSigned.replace(/CERTIFICATE/g, 'CERTIFICATE REQUEST')), /not a valid PKCS#10/);
      await expectMalformed(keys.inspectCsr(42 as unknown as string), /empty/);
    });
  });

  describe('inspectCertificate', () => {
    it('reads names, validity, issuer and serial as OpenSSL prints them', async () => {
      const info = await keys.inspectCertificate(selfSigned);
      expect(info.names).to.deep.equal(['a.example.org', '*.a.example.org']);
      expect(info.issuer).to.equal('O=Test Org, CN=Test Issuer');
      expect(info.serial).to.equal('8a0000000000000000000000000000ff');
      const dates = openssl(['x509', '-noout', '-startdate', '-enddate'], selfSigned);
      expect(info.notBefore.getTime()).to.equal(new Date(/notBefore=(.*)/.exec(dates)![1]!).getTime());
      expect(info.notAfter.getTime()).to.equal(new Date(/notAfter=(.*)/.exec(dates)![1]!).getTime());
      expect(info.notAfter.getTime() - info.notBefore.getTime()).to.equal(30 * 24 * 3600_000);
      expect(openssl(['x509', '-noout', '-serial'], selfSigned).trim().toLowerCase()).to.equal(`serial=${info.serial}`);
    });

    it('takes the first certificate of a chain; a CN-only certificate is named by its CN', async () => {
      const info = await keys.inspectCertificate(`${otherCert}${selfSigned}`);
      expect(info.names).to.deep.equal(['other.example.net']);
      expect(info.issuer).to.equal('CN=other.example.net');
    });

    it('refuses garbage, a request, a chain holding a private key, and huge input', async () => {
      const g = await keys.generate(['example.com']);
      await expectMalformed(keys.inspectCertificate('garbage'), /not PEM/);
      await expectMalformed(keys.inspectCertificate(g.csrPem), /got CERTIFICATE REQUEST/);
      await expectMalformed(keys.inspectCertificate(selfSigned + g.privateKeyPem), /got PRIVATE KEY/);
      await expectMalformed(keys.inspectCertificate(g.csrPem.replace(/CERTIFICATE REQUEST/g, 'CERTIFICATE')), /not a valid X\.509/);
      await expectMalformed(keys.inspectCertificate(selfSigned.repeat(100)), /64 KiB/);
    });

    it('serials are lower-case hex without sign padding', () => {
      expect(serialHex('00FA01')).to.equal('fa01');
      expect(serialHex('0001')).to.equal('01');
      expect(serialHex('00')).to.equal('00');
      expect(serialHex('7F')).to.equal('7f');
    });
  });
});
