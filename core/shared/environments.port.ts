import type { Registrar } from '../domains/ports/registrar.port.js';
import type { Environment } from './environment.js';
import type { Payments } from '../billing/ports/payments.port.js';
import type { CertificateAuthority } from '../certificates/ports/certificate-authority.port.js';

/**
 * The adapters that differ between environments (design card: the test environment is just another
 * adapter set). A `test` key is served by the sandbox set, a `live` key by the live set.
 */
export interface EnvironmentAdapters {
  readonly registrar: Registrar;
  readonly payments: Payments;
  /** The sandbox CA for test, an ACME CA (Let's Encrypt by default) for live. */
  readonly ca: CertificateAuthority;
}

export interface Environments {
  /** The adapter set, or DomainError `environment_unavailable` when it is not configured. */
  get(environment: Environment): EnvironmentAdapters;
  isAvailable(environment: Environment): boolean;
}
