// @peculiar/x509 2.x needs a Reflect metadata polyfill loaded before it.
import 'reflect-metadata';
import { Pkcs10CertificateRequest, SubjectAlternativeNameExtension, X509Certificate } from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import type { IssuedCertificate } from '../../../core/certificates/ports/certificate-authority.port.js';

const crypto = webcrypto as unknown as Crypto;
const MAX_CSR_BYTES = 64 * 1024;
const HOSTNAME = /^(\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why the request cannot finalize this order, or null: checked before any order or DNS motion. */
export const csrProblem = async (csrPem: string, names: readonly string[]): Promise<string | null> => {
  let csr: Pkcs10CertificateRequest;
  const got = new Set<string>();
  try {
    if (typeof csrPem !== 'string' || csrPem.length > MAX_CSR_BYTES || !/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(csrPem))
      throw new Error();
    csr = new Pkcs10CertificateRequest(csrPem);
    const san = csr.getExtension('2.5.29.17');
    if (san)
      for (const n of new SubjectAlternativeNameExtension(san.rawData).names.items) if (n.type === 'dns') got.add(n.value.toLowerCase());
    const cn = csr.subjectName.getField('CN')[0]?.toLowerCase();
    if (cn && HOSTNAME.test(cn)) got.add(cn);
  } catch {
    return 'the CSR is not a PKCS#10 request in PEM';
  }
  if (!(await csr.verify(crypto).catch(() => false))) return 'the CSR signature does not verify';
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  if (got.size !== wanted.size || [...got].some((n) => !wanted.has(n))) {
    return `the CSR names (${[...got].sort().join(', ') || 'none'}) differ from the order's (${[...wanted].sort().join(', ')})`;
  }
  return null;
};

/** The issued chain as the port reports it: leaf first (RFC 8555 §7.4.2), with the leaf's facts. */
export const issuedFrom = (chain: string): IssuedCertificate => {
  const blocks = chain.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('the CA sent no certificate');
  const certificatePem = `${blocks[0]}\n`;
  const leaf = new X509Certificate(certificatePem);
  return {
    certificatePem,
    chainPem: blocks.map((b) => `${b}\n`).join(''),
    notBefore: leaf.notBefore,
    notAfter: leaf.notAfter,
    issuer: leaf.issuer,
    serial: leaf.serialNumber.toLowerCase().replace(/^(00)+(?=[0-9a-f]{2})/, ''),
  };
};
