// @peculiar/x509 2.x needs a Reflect metadata polyfill loaded before it (its README, "Reflect Polyfill Required").
import 'reflect-metadata';
import {
  Pkcs10CertificateRequest,
  Pkcs10CertificateRequestGenerator,
  SubjectAlternativeNameExtension,
  X509Certificate,
  PemConverter,
  type Extension,
} from '@peculiar/x509';
import { createPublicKey, webcrypto } from 'node:crypto';
import {
  MalformedCertificateInput,
  type CertificateInfo,
  type CertificateKeys,
  type CsrInfo,
  type GeneratedKey,
} from '../../../core/certificates/ports/certificate-keys.port.js';

const crypto = webcrypto as unknown as Crypto;

/** Inputs above this are refused before any parsing: a CSR is ~0.5–1.5 KiB, a chain a few KiB. */
export const MAX_PEM_BYTES = 64 * 1024;
/** X.520 ub-common-name (RFC 5280 Appendix A): a longer first name is left out of the subject. */
const MAX_CN = 64;
const SAN_OID = '2.5.29.17';

/** RFC 7468 labels we read; "NEW CERTIFICATE REQUEST" is what Windows certreq and keytool write. */
const CSR_LABELS = ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'];

/** A host name (LDH labels, at least two, optional leading `*.`): only such a CN counts as a name. */
const HOSTNAME = /^(\*\.)?(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

interface PemBlock {
  readonly label: string;
  readonly der: Uint8Array<ArrayBuffer>;
}

/**
 * The PEM blocks of `text` (RFC 7468): explanatory text around blocks is allowed, headers and anything
 * but base64 inside a block are not, and every BEGIN needs its END.
 */
const pemBlocks = (text: string, what: string): PemBlock[] => {
  if (typeof text !== 'string' || text.trim() === '') throw new MalformedCertificateInput(`${what}: empty input`);
  if (Buffer.byteLength(text, 'utf8') > MAX_PEM_BYTES) throw new MalformedCertificateInput(`${what}: larger than 64 KiB`);
  const blocks: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]{1,40})-----([\s\S]*?)-----END ([A-Z0-9 ]{1,40})-----/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== m[3]) throw new MalformedCertificateInput(`${what}: PEM block "${m[1]}" ends as "${m[3]}"`);
    const body = m[2]!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || body.length % 4 !== 0) {
      throw new MalformedCertificateInput(`${what}: PEM block "${m[1]}" is not plain base64`);
    }
    blocks.push({ label: m[1]!, der: new Uint8Array(Buffer.from(body, 'base64')) });
  }
  const begins = text.match(/-----BEGIN /g)?.length ?? 0;
  if (begins === 0) throw new MalformedCertificateInput(`${what}: not PEM (no -----BEGIN line)`);
  if (begins !== blocks.length) throw new MalformedCertificateInput(`${what}: a PEM block is not closed`);
  return blocks;
};

const dnsNames = (ext: Extension | null): string[] => {
  if (!ext) return [];
  const san = ext instanceof SubjectAlternativeNameExtension ? ext : new SubjectAlternativeNameExtension(ext.rawData);
  return san.names.items.filter((n) => n.type === 'dns').map((n) => n.value);
};

/** SAN entries of other types than dNSName, as "type:value". */
const nonDnsNames = (ext: Extension | null): string[] => {
  if (!ext) return [];
  const san = ext instanceof SubjectAlternativeNameExtension ? ext : new SubjectAlternativeNameExtension(ext.rawData);
  return san.names.items.filter((n) => n.type !== 'dns').map((n) => `${n.type}:${n.value}`);
};

/** SAN dNSNames, plus the CN when it is a host name they lack; lower-case, first occurrence kept. */
const namesOf = (san: readonly string[], commonNames: readonly string[]): string[] => {
  const out: string[] = [];
  for (const n of san.map((s) => s.toLowerCase())) if (!out.includes(n)) out.push(n);
  const cn = commonNames[0]?.toLowerCase();
  if (cn && HOSTNAME.test(cn) && cn.length <= 253 && !out.includes(cn)) out.push(cn);
  return out;
};

/** "EC P-256", "RSA 2048", "Ed25519"… from the SubjectPublicKeyInfo, through OpenSSL (node:crypto). */
export const keyAlgorithmOf = (spki: ArrayBuffer): string => {
  try {
    const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    const d = key.asymmetricKeyDetails ?? {};
    switch (key.asymmetricKeyType) {
      case 'ec':
        return `EC ${CURVES[d.namedCurve ?? ''] ?? d.namedCurve ?? 'unknown curve'}`;
      case 'rsa':
        return `RSA ${d.modulusLength}`;
      case 'rsa-pss':
        return `RSA-PSS ${d.modulusLength}`;
      case 'ed25519':
        return 'Ed25519';
      case 'ed448':
        return 'Ed448';
      default:
        return `${(key.asymmetricKeyType ?? 'unknown').toUpperCase()}${d.modulusLength ? ` ${d.modulusLength}` : ''}`;
    }
  } catch {
    return 'unknown';
  }
};

/** Lower-case hex of the serial's value: no sign-padding zero octets, never empty. */
export const serialHex = (hex: string): string => hex.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, '') || '00';

/**
 * Keys, PKCS#10 requests and certificate inspection on @peculiar/x509 (WebCrypto) and node:crypto;
 * no hand-written ASN.1. Implements core/certificates/ports/certificate-keys.port.ts.
 */
export class X509CertificateKeys implements CertificateKeys {
  /** ECDSA P-256 (PKCS#8) and a request for `names` (SAN dNSNames; CN = first non-wildcard name). */
  async generate(names: readonly string[]): Promise<GeneratedKey> {
    if (names.length === 0) throw new Error('a certificate request needs at least one name');
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const cn = [...names.filter((n) => !n.startsWith('*.')), ...names].find((n) => n.length <= MAX_CN);
    const csr = await Pkcs10CertificateRequestGenerator.create(
      {
        ...(cn ? { name: [{ CN: [cn] }] } : {}),
        keys,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        // RFC 5280 §4.2.1.6: with an empty subject the SAN is critical.
        extensions: [
          new SubjectAlternativeNameExtension(
            names.map((value) => ({ type: 'dns' as const, value })),
            !cn,
          ),
        ],
      },
      crypto,
    );
    const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
    return { privateKeyPem: PemConverter.encode(pkcs8, 'PRIVATE KEY'), csrPem: csr.toString('pem') };
  }

  async inspectCsr(pem: string): Promise<CsrInfo> {
    const blocks = pemBlocks(pem, 'CSR');
    if (blocks.length !== 1) throw new MalformedCertificateInput(`CSR: expected one PEM block, got ${blocks.length}`);
    const block = blocks[0]!;
    if (!CSR_LABELS.includes(block.label)) throw new MalformedCertificateInput(`CSR: expected a CERTIFICATE REQUEST, got ${block.label}`);
    let csr: Pkcs10CertificateRequest;
    let names: string[];
    let otherNames: string[];
    try {
      csr = new Pkcs10CertificateRequest(block.der);
      names = namesOf(dnsNames(csr.getExtension(SAN_OID)), csr.subjectName.getField('CN'));
      otherNames = nonDnsNames(csr.getExtension(SAN_OID));
    } catch {
      throw new MalformedCertificateInput('CSR: not a valid PKCS#10 request');
    }
    let signatureValid = false;
    try {
      signatureValid = await csr.verify(crypto);
    } catch {
      // An algorithm WebCrypto does not know cannot be verified: the request is not usable.
    }
    return { names, otherNames, keyAlgorithm: keyAlgorithmOf(csr.publicKey.rawData), signatureValid };
  }

  async inspectCertificate(pem: string): Promise<CertificateInfo> {
    const blocks = pemBlocks(pem, 'certificate');
    const other = blocks.find((b) => b.label !== 'CERTIFICATE');
    if (other) throw new MalformedCertificateInput(`certificate: expected only CERTIFICATE blocks, got ${other.label}`);
    try {
      const cert = new X509Certificate(blocks[0]!.der);
      return {
        names: namesOf(dnsNames(cert.getExtension(SAN_OID)), cert.subjectName.getField('CN')),
        notBefore: cert.notBefore,
        notAfter: cert.notAfter,
        issuer: cert.issuer,
        serial: serialHex(cert.serialNumber),
      };
    } catch {
      throw new MalformedCertificateInput('certificate: not a valid X.509 certificate');
    }
  }
}
