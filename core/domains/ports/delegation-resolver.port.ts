/**
 * What the parent zone says about a domain, found the way the world finds it (from the root down), and
 * the TXT proof the delegated nameservers serve. A live environment asks the real DNS (an iterative
 * resolver with configurable root hints); the sandbox simulates parents.
 */
export type DelegationLookup =
  /** The parent says the name does not exist, or has no NS set for it. */
  | { readonly kind: 'not_delegated' }
  | {
      readonly kind: 'delegated';
      /** The parent's NS set for the domain: lower-case host names, no trailing dot. */
      readonly nameservers: readonly string[];
      /** The TXT values at the challenge name, asked of the delegated nameservers that are not `ours`
       * (empty when none of them serves it, or when every delegated nameserver is ours). */
      readonly txt: readonly string[];
      /** The outside nameservers that answered the TXT question. */
      readonly askedNameservers: readonly string[];
    };

export interface DelegationQuery {
  readonly accountId: string;
  readonly domain: string;
  readonly challenge: string;
  /** The value the claim expects (only the sandbox uses it: its simulated holder publishes it). */
  readonly expected: string;
  /** Our nameservers: never asked for the proof (their answer proves nothing). */
  readonly ours: readonly string[];
}

export interface DelegationResolver {
  /** Throws DelegationLookupError when the lookup could not be finished (timeouts, SERVFAIL, no servers). */
  lookup(q: DelegationQuery): Promise<DelegationLookup>;
}

/** The lookup did not finish: nothing is known (a check never changes what is served on this alone). */
export class DelegationLookupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DelegationLookupError';
  }
}

/** The sandbox's simulated parent zones (POST /v1/sandbox/delegations/{domain}): null when never set. */
export interface SimulatedParents {
  delegated(accountId: string, domain: string): Promise<boolean | null>;
  set(accountId: string, domain: string, delegated: boolean): Promise<void>;
}
