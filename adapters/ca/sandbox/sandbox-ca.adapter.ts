import 'reflect-metadata';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  Pkcs10CertificateRequest,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import { createHash, createPublicKey } from 'node:crypto';
import { baseHost } from '../../../core/certificates/certificate-names.js';
import {
  CertificateAuthorityError,
  type CertificateAuthority,
  type IssueOrder,
  type IssuedCertificate,
} from '../../../core/certificates/ports/certificate-authority.port.js';
import type { Clock } from '../../../core/kernel/clock.port.js';
import type { SecretBox } from '../../../core/kernel/secret-box.port.js';
import { createMaterial, crypto, openMaterial, pem, randomSerial, type SandboxCa, type SandboxCaStore } from './material.js';

const ACME = 'urn:ietf:params:acme:error:';
const DAY = 24 * 3600_000;
/** Like Let's Encrypt: 90 days, backdated a little for clocks that run behind. */
const LEAF_LIFETIME_MS = 90 * DAY;
const BACKDATE_MS = 60_000;
const MAX_CSR_BYTES = 64 * 1024;
/** RFC 5280 §5.3.1 reason codes (7 is unused). */
const REVOCATION_REASONS = new Set([0, 1, 2, 3, 4, 5, 6, 8, 9, 10]);
const HOSTNAME = /^(\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export interface SandboxCertificateAuthorityOptions {
  /** Keeps the root and intermediate across restarts and processes. */
  readonly store: SandboxCaStore;
  /** Seals their private keys in the store. */
  readonly box: SecretBox;
  /** Dates the root and intermediate when they are first made (leaves are dated from `order.at`); default: the system clock. */
  readonly clock?: Clock;
  /**
   * Optional: the TXT values our own DNS serves at a name. When given, the sandbox checks each proof it
   * asked the solver to present, as a CA would, and fails the order like one when it is missing.
   */
  readonly lookupTxt?: (name: string) => Promise<readonly string[]>;
}

const refuse = (type: string, detail: string, retryable = false): CertificateAuthorityError =>
  new CertificateAuthorityError(`${ACME}${type}: ${detail}`, retryable, `${ACME}${type}`);

/** The DNS-01 value the sandbox asks for at `host`: deterministic, shaped like a real one (43 base64url). */
export const sandboxProof = (host: string): string => createHash('sha256').update(`domivka-sandbox-ca:${host}`).digest('base64url');

/** CA/B Forum BR §6.1.5 and Let's Encrypt's policy: RSA 2048–4096 (multiple of 8), ECDSA P-256/P-384. */
const keyProblem = (spki: ArrayBuffer): string | null => {
  let key;
  try {
    key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
  } catch {
    return 'the public key cannot be read';
  }
  const d = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec') {
    return d.namedCurve === 'prime256v1' || d.namedCurve === 'secp384r1'
      ? null
      : `ECDSA curve ${d.namedCurve} is not accepted (P-256 or P-384)`;
  }
  if (key.asymmetricKeyType === 'rsa') {
    const bits = d.modulusLength ?? 0;
    return bits >= 2048 && bits <= 4096 && bits % 8 === 0 ? null : `an RSA key of ${bits} bits is not accepted (2048 to 4096)`;
  }
  return `${key.asymmetricKeyType ?? 'this'} keys are not accepted (ECDSA P-256/P-384 or RSA)`;
};

/** Parses and checks the request like a CA's finalize (RFC 8555 §7.4): signature, key, exactly the order's names. */
const checkCsr = async (csrPem: string, names: readonly string[]): Promise<Pkcs10CertificateRequest> => {
  let csr: Pkcs10CertificateRequest;
  let csrNames: string[];
  try {
    if (typeof csrPem !== 'string' || csrPem.length > MAX_CSR_BYTES || !/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(csrPem))
      throw new Error();
    csr = new Pkcs10CertificateRequest(csrPem);
    const san = csr.getExtension('2.5.29.17');
    csrNames = san
      ? new SubjectAlternativeNameExtension(san.rawData).names.items.filter((n) => n.type === 'dns').map((n) => n.value.toLowerCase())
      : [];
    const cn = csr.subjectName.getField('CN')[0]?.toLowerCase();
    if (cn && HOSTNAME.test(cn)) csrNames.push(cn);
  } catch {
    throw refuse('badCSR', 'the CSR is not a PKCS#10 request in PEM');
  }
  const valid = await csr.verify(crypto).catch(() => false);
  if (!valid) throw refuse('badCSR', 'the CSR signature does not verify');
  const problem = keyProblem(csr.publicKey.rawData);
  if (problem) throw refuse('badCSR', problem);
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const got = new Set(csrNames);
  if (got.size !== wanted.size || [...got].some((n) => !wanted.has(n))) {
    throw refuse(
      'badCSR',
      `the CSR names (${[...got].sort().join(', ') || 'none'}) differ from the order's (${[...wanted].sort().join(', ')})`,
    );
  }
  return csr;
};

/**
 * The test environment's CA: issues real X.509 certificates at once, under a "Domivka Sandbox
 * Root CA" users may add to a trust store, through the same DNS-01 motions as the live CA (a value per
 * distinct base host presented, optionally checked, then cleaned up). Root and intermediate are made on
 * first use and kept in the store; revocation status is the use case's record, not this adapter's.
 */
export class SandboxCertificateAuthority implements CertificateAuthority {
  readonly kind = 'sandbox' as const;
  private ca: Promise<SandboxCa> | null = null;

  constructor(private readonly options: SandboxCertificateAuthorityOptions) {
    if (!options?.store || !options.box) throw new Error('sandbox CA: store and box are required');
  }

  async issue(order: IssueOrder): Promise<IssuedCertificate> {
    if (order.names.length === 0) throw refuse('malformed', 'an order needs at least one identifier');
    const bad = order.names.find((n) => !HOSTNAME.test(n) || n.length > 253);
    if (bad !== undefined) throw refuse('rejectedIdentifier', `${JSON.stringify(bad)} is not a host name or a *. wildcard of one`);
    const csr = await checkCsr(order.csrPem, order.names);
    const ca = await this.material();
    await this.validate(order);
    return this.sign(ca, csr, order);
  }

  async revoke(certificatePem: string, reason?: number): Promise<void> {
    if (reason !== undefined && !REVOCATION_REASONS.has(reason))
      throw refuse('badRevocationReason', `reason code ${reason} is not an RFC 5280 reason`);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(certificatePem);
    } catch {
      throw refuse('malformed', 'not a PEM certificate');
    }
    const ca = await this.material();
    // Every deployment's sandbox CA has the same names: the signature tells ours from another's.
    const ours =
      cert.issuer === ca.issuing.subject &&
      (await cert.verify({ publicKey: ca.issuing.publicKey, signatureOnly: true }, crypto).catch(() => false));
    if (!ours) throw refuse('unauthorized', 'the certificate was not issued by this sandbox CA');
  }

  async rootPem(): Promise<string> {
    return (await this.material()).rootPem;
  }

  /** Lazy and memoised; a failed load is forgotten so the next call tries again. */
  private material(): Promise<SandboxCa> {
    if (!this.ca) {
      this.ca = (async () => {
        const { store, box, clock } = this.options;
        const now = clock ? clock.now() : new Date();
        const stored = (await store.load()) ?? (await store.saveIfAbsent(await createMaterial(box, now)));
        return openMaterial(box, stored);
      })();
      this.ca.catch(() => (this.ca = null));
    }
    return this.ca;
  }

  /** The DNS motions of a live order, cheaply: one proof per distinct base host, all presented before any check. */
  private async validate(order: IssueOrder): Promise<void> {
    const hosts = [...new Set(order.names.map((n) => baseHost(n.toLowerCase())))];
    const handles: string[] = [];
    try {
      for (const host of hosts) handles.push(await order.solver.present(host, sandboxProof(host)));
      if (!this.options.lookupTxt) return;
      for (const host of hosts) {
        const name = `_acme-challenge.${host}`;
        const found = await this.options.lookupTxt(name);
        if (!found.includes(sandboxProof(host))) {
          // Let's Encrypt's wording for the same failure.
          throw refuse(
            'unauthorized',
            found.length ? `Incorrect TXT record "${found[0]}" found at ${name}` : `No TXT record found at ${name}`,
          );
        }
      }
    } finally {
      // Best effort, like a live client: a leftover proof is harmless and expires with its challenge.
      for (const h of handles) await order.solver.cleanup(h).catch(() => undefined);
    }
  }

  private async sign(ca: SandboxCa, csr: Pkcs10CertificateRequest, order: IssueOrder): Promise<IssuedCertificate> {
    const names = order.names.map((n) => n.toLowerCase());
    const notBefore = new Date(order.at.getTime() - BACKDATE_MS);
    const notAfter = new Date(order.at.getTime() + LEAF_LIFETIME_MS);
    const rsa = csr.publicKey.algorithm.name.startsWith('RSA');
    const cn = [...names.filter((n) => !n.startsWith('*.')), ...names].find((n) => n.length <= 64);
    const leaf = await X509CertificateGenerator.create(
      {
        serialNumber: randomSerial(),
        subject: cn ? [{ CN: [cn] }] : [],
        issuer: ca.issuing.subjectName,
        notBefore,
        notAfter,
        publicKey: csr.publicKey,
        signingKey: ca.issuingKey,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions: [
          new SubjectAlternativeNameExtension(
            names.map((value) => ({ type: 'dns' as const, value })),
            !cn,
          ),
          // RSA keys may still do TLS 1.2 RSA key exchange, which needs keyEncipherment (RFC 5246 §7.4.2).
          new KeyUsagesExtension(KeyUsageFlags.digitalSignature | (rsa ? KeyUsageFlags.keyEncipherment : 0), true),
          new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth]),
          new BasicConstraintsExtension(false, undefined, true),
          await SubjectKeyIdentifierExtension.create(csr.publicKey, false, crypto),
          await AuthorityKeyIdentifierExtension.create(ca.issuing.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    const certificatePem = pem(leaf);
    return {
      certificatePem,
      chainPem: certificatePem + ca.issuingPem,
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
      issuer: leaf.issuer,
      serial: leaf.serialNumber.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, ''),
    };
  }
}
