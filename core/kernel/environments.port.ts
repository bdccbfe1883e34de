import type { Environment } from './environment.js';

/**
 * The adapters that differ between environments (design card: the test environment is just another
 * adapter set). A `test` key is served by the sandbox set, a `live` key by the live set. Each
 * capability names only the adapters it uses (`Environments<{ registrar: Registrar }>`), so the kernel
 * knows none of them and one composed set serves every capability.
 */
export interface Environments<Adapters> {
  /** The adapter set, or DomainError `environment_unavailable` when it is not configured. */
  get(environment: Environment): Adapters;
  isAvailable(environment: Environment): boolean;
}
