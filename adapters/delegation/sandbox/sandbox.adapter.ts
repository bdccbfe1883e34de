import type {
  DelegationLookup,
  DelegationQuery,
  DelegationResolver,
  SimulatedParents,
} from '../../../core/domains/ports/delegation-resolver.port.js';

/** Where the sandbox's simulated holder published the TXT proof before it switched the delegation to us. */
export const SANDBOX_PREVIOUS_NAMESERVERS = ['ns1.previous-provider.sandbox', 'ns2.previous-provider.sandbox'];

/**
 * The sandbox's parents (DESIGN: hosted domains). A name is delegated to our nameservers, and its simulated
 * holder served the TXT proof on its previous nameservers, so it verifies at once — except names whose first
 * label starts with `undelegated-`, which no parent delegates. POST /v1/sandbox/delegations/{domain}
 * {"delegated": bool} sets what the parent says for one account's claim.
 */
export class SandboxDelegationResolver implements DelegationResolver {
  constructor(private readonly parents: SimulatedParents) {}

  async lookup(q: DelegationQuery): Promise<DelegationLookup> {
    const set = await this.parents.delegated(q.accountId, q.domain);
    const delegated = set ?? !q.domain.split('.')[0]!.startsWith('undelegated-');
    if (!delegated) return { kind: 'not_delegated' };
    return { kind: 'delegated', nameservers: [...q.ours], txt: [q.expected], askedNameservers: SANDBOX_PREVIOUS_NAMESERVERS };
  }
}
