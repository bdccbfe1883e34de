export { AcmeCertificateAuthority, type AcmeCertificateAuthorityConfig, type AcmeTimeouts } from './acme-ca.adapter.js';
