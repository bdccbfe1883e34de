import { labelsOf, normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { CertificateStatus } from './certificate.js';
import type { CertificateRepository } from './ports/certificate-repository.port.js';

export interface DomainCertificateStatus {
  /** The name asked about (A-labels). */
  domain: string;
  /** The newest certificate whose names cover that name, or null when none was ever requested. */
  certificate: {
    status: CertificateStatus;
    not_before: string | null;
    not_after: string | null;
    issuer: string | null;
    /** Whether the certificate also covers every name one label below (`*.` + the name). */
    covers_wildcard: boolean;
  } | null;
}

/**
 * Whether a certificate name covers a host name (RFC 6125 §6.4.3): equal, or `*.` + the host's parent —
 * a wildcard stands for exactly one left-most label (`*.x` covers `www.x`, not `x` nor `a.b.x`).
 */
export const nameCovers = (certName: string, host: string): boolean =>
  certName === host || (certName.startsWith('*.') && host.includes('.') && host.slice(host.indexOf('.') + 1) === certName.slice(2));

/** How many of the newest certificates of a name's domains are looked through for one covering it. */
const SCAN = 200;

/**
 * The certificate state of one host name, for the public read-only assistant tools: the newest
 * certificate covering that very name (its own names, wildcards included), with status, validity and
 * issuer. It reveals no account data (no ids, names of other hosts, keys, failures or who asked).
 */
export class CertificateStatusQuery {
  constructor(private readonly certificates: Pick<CertificateRepository, 'newestForDomains'>) {}

  async forDomain(domain: string, environment: Environment = 'live'): Promise<DomainCertificateStatus> {
    const name = normalizeDomain(domain);
    // The registered domain the name falls under is one of its suffixes (certificates are linked to it).
    const labels = labelsOf(name);
    const suffixes = labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
    const candidates = await this.certificates.newestForDomains(environment, suffixes, SCAN);
    const c = candidates.find((x) => x.names.some((n) => nameCovers(n, name))) ?? null;
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
