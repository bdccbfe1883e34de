// @peculiar/x509 2.x needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';
import type { SecretBox } from '../../../core/kernel/secret-box.port.js';

export const crypto = webcrypto as unknown as Crypto;

export const ROOT_NAME = 'CN=Domivka Sandbox Root CA';
export const ISSUING_NAME = 'CN=Domivka Sandbox Issuing CA';
const DAY = 24 * 3600_000;
const CA_LIFETIME_MS = 3652 * DAY; // 10 years

/**
 * What the sandbox CA keeps between restarts and shares between processes: its two certificates and
 * their PKCS#8 private keys sealed by the SecretBox (never stored in clear).
 */
export interface SandboxCaMaterial {
  readonly rootCertificatePem: string;
  readonly rootKeySealed: string;
  readonly intermediateCertificatePem: string;
  readonly intermediateKeySealed: string;
}

/** Where the material lives (a one-row table in production; an object in tests). */
export interface SandboxCaStore {
  load(): Promise<SandboxCaMaterial | null>;
  /**
   * Stores `material` unless some material is already stored, and returns what is stored now: when two
   * processes create a CA at once, both end up using the winner's.
   */
  saveIfAbsent(material: SandboxCaMaterial): Promise<SandboxCaMaterial>;
}

/** The opened material: parsed certificates and signing keys. */
export interface SandboxCa {
  readonly root: X509Certificate;
  readonly rootPem: string;
  readonly issuing: X509Certificate;
  readonly issuingPem: string;
  readonly issuingKey: CryptoKey;
}

/** CA/B Forum BR §7.1: at least 64 bits of CSPRNG output; we take 127 bits, positive, 16 octets. */
export const randomSerial = (): string => {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f || 0x01;
  return b.toString('hex');
};

export const pem = (cert: X509Certificate): string => `${cert.toString('pem').trim()}\n`;

const ecKeys = async (namedCurve: 'P-256' | 'P-384'): Promise<CryptoKeyPair> =>
  (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, true, ['sign', 'verify'])) as CryptoKeyPair;

const sealKey = async (box: SecretBox, key: CryptoKey): Promise<string> =>
  box.seal(PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY'));

/**
 * A new root (ECDSA P-384, self-signed) and issuing intermediate (ECDSA P-256, pathlen 0), both valid
 * ten years from a day before `now`. RFC 5280 §4.2.1.9/§4.2.1.3: CA:TRUE and keyCertSign, both critical.
 */
export const createMaterial = async (box: SecretBox, now: Date): Promise<SandboxCaMaterial> => {
  const notBefore = new Date(now.getTime() - DAY);
  const notAfter = new Date(now.getTime() + CA_LIFETIME_MS);
  const rootKeys = await ecKeys('P-384');
  const root = await X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: ROOT_NAME,
      notBefore,
      notAfter,
      keys: rootKeys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-384' },
      extensions: [
        new BasicConstraintsExtension(true, undefined, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        await SubjectKeyIdentifierExtension.create(rootKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const issuingKeys = await ecKeys('P-256');
  const issuing = await X509CertificateGenerator.create(
    {
      serialNumber: randomSerial(),
      subject: ISSUING_NAME,
      issuer: root.subjectName,
      notBefore,
      notAfter,
      publicKey: issuingKeys.publicKey,
      signingKey: rootKeys.privateKey,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-384' },
      extensions: [
        new BasicConstraintsExtension(true, 0, true),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign | KeyUsageFlags.digitalSignature, true),
        new ExtendedKeyUsageExtension([ExtendedKeyUsage.serverAuth, ExtendedKeyUsage.clientAuth]),
        await SubjectKeyIdentifierExtension.create(issuingKeys.publicKey, false, crypto),
        await AuthorityKeyIdentifierExtension.create(rootKeys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return {
    rootCertificatePem: pem(root),
    rootKeySealed: await sealKey(box, rootKeys.privateKey),
    intermediateCertificatePem: pem(issuing),
    intermediateKeySealed: await sealKey(box, issuingKeys.privateKey),
  };
};

/** Parses stored material and imports the issuing key (the root key stays sealed: nothing is signed with it). */
export const openMaterial = async (box: SecretBox, m: SandboxCaMaterial): Promise<SandboxCa> => {
  const root = new X509Certificate(m.rootCertificatePem);
  const issuing = new X509Certificate(m.intermediateCertificatePem);
  const curve = (issuing.publicKey.algorithm as EcKeyAlgorithm).namedCurve;
  const issuingKey = await crypto.subtle.importKey(
    'pkcs8',
    PemConverter.decodeFirst(box.open(m.intermediateKeySealed)),
    { name: 'ECDSA', namedCurve: curve },
    false,
    ['sign'],
  );
  return { root, rootPem: pem(root), issuing, issuingPem: pem(issuing), issuingKey };
};
