import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { CertificateStatus } from './certificate.js';
import type { CertificateRepository } from './ports/certificate-repository.port.js';

export interface DomainCertificateStatus {
  domain: string;
  /** The newest certificate covering the domain, or null when none was ever requested. */
  certificate: {
    status: CertificateStatus;
    not_before: string | null;
    not_after: string | null;
    issuer: string | null;
    covers_wildcard: boolean;
  } | null;
}

/**
 * The certificate state of one domain, for the public read-only assistant tools to come: the latest
 * certificate's status, validity and issuer. It reveals no account data (no ids, names of other
 * hosts, keys, failures or who asked).
 */
export class CertificateStatusQuery {
  constructor(private readonly certificates: Pick<CertificateRepository, 'latestForDomain'>) {}

  async forDomain(domain: string, environment: Environment = 'live'): Promise<DomainCertificateStatus> {
    const name = normalizeDomain(domain);
    const c = await this.certificates.latestForDomain(environment, name);
    return {
      domain: name,
      certificate: c
        ? {
            status: c.status,
            not_before: c.notBefore?.toISOString() ?? null,
            not_after: c.notAfter?.toISOString() ?? null,
            issuer: c.issuer,
            covers_wildcard: c.names.includes(`*.${name}`),
          }
        : null,
    };
  }
}
