import { token } from './token.js';
import type { Certificates } from '../../core/certificates/certificates.use-case.js';
import type { CertificateIssuance } from '../../core/certificates/certificate-issuance.use-case.js';
import type { CertificateStatusQuery } from '../../core/certificates/certificate-status.use-case.js';
import type { CertificateKeys } from '../../core/certificates/ports/certificate-keys.port.js';
import type { InProcessIssuanceQueue } from '../issuance-queue.js';

/** Injection tokens of the certificates capability (src/ binds them by explicit token; core/ has no decorators). */
export const CERTIFICATES_TOKENS = {
  CertificateKeys: token<CertificateKeys>('CertificateKeys'),
  Certificates: token<Certificates>('Certificates'),
  CertificateIssuance: token<CertificateIssuance>('CertificateIssuance'),
  CertificateStatusQuery: token<CertificateStatusQuery>('CertificateStatusQuery'),
  IssuanceQueue: token<InProcessIssuanceQueue>('IssuanceQueue'),
} as const;
