import type { Environment } from '../../kernel/environment.js';

/**
 * Where DNS-01 proofs go (lego's provider shape: Present, CleanUp). The DNS capability serves it by
 * writing into the account's own zones; certificates know nothing else of DNS.
 */
export interface Dns01Solver {
  /** Publishes `value` at `_acme-challenge.<host>` in `zone`; returns a handle for cleanUp. Additive:
   * other values at that name stay. Resolves once the value is committed and served. */
  present(
    scope: { accountId: string; environment: Environment },
    zone: string,
    host: string,
    value: string,
    actor: string,
  ): Promise<string>;
  /** Removes what `present` wrote; a value already gone is fine. */
  cleanUp(scope: { accountId: string; environment: Environment }, handle: string, actor: string): Promise<void>;
}
