import { requireCapability } from '../domains/capabilities.js';
import { isHosted } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import type { Environment } from '../kernel/environment.js';
import type { DnssecState } from './dnssec-state.js';

/** What reading the parent's DS needs: the account's domains and their registries. */
export interface ParentDsDeps {
  readonly domains: Pick<DomainRepository, 'find'>;
  readonly registrars: RegistrarEnvironments;
}

/**
 * The DS records the registry holds for a domain registered through us ("<tag> <alg> <digest type> <HEX>"):
 * the registry, not our record of what we sent it, is what validators follow. Null when it cannot tell: a
 * hosted domain (its registry is not ours to ask), a registrar without DS records (ds_set), or a registry
 * that does not answer now — the caller then goes by what we recorded.
 */
export const parentDs = async (
  deps: ParentDsDeps,
  accountId: string,
  environment: Environment,
  domain: string,
  /** Shown, not acted on (GET …/dnssec): a recent read will do (the registrar port's `recent`). */
  recent = false,
): Promise<string[] | null> => {
  const registered = await deps.domains.find(accountId, environment, domain);
  if (!registered || isHosted(registered)) return null;
  const registrar = deps.registrars.get(environment).registrar;
  if (!registrar.capabilities.has('ds_set')) return null;
  try {
    const held = await requireCapability(registrar, 'ds_set').dsRecords(domain, undefined, recent ? { recent } : undefined);
    return held.map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`.toUpperCase());
  } catch {
    // A registry that does not answer: what we recorded stands (the caller's fallback), not an error to the person.
    return null;
  }
};

/** Our keys' DS that may be at the parent (every key still in the zone), upper case. */
export const ourDs = (state: Pick<DnssecState, 'keys'> | null): string[] =>
  (state?.keys ?? []).filter((k) => k.state !== 'retired').map((k) => k.ds.toUpperCase());

/**
 * Whether the parent holds a DS that matters for the zone: with DNSSEC on, one of ours (the zone is then
 * validated, and must stay signed until it has gone); with DNSSEC off, any — an unsigned zone under a DS is
 * bogus to validators (RFC 4035 §5.2), whoever's key it names. Without the registry's answer: our record.
 */
export const dsAtParentOf = (state: Pick<DnssecState, 'keys' | 'dsAtParent'> | null, held: readonly string[] | null): boolean => {
  if (held === null) return state?.dsAtParent ?? false;
  if (!state) return held.length > 0;
  const ours = new Set(ourDs(state));
  return held.some((d) => ours.has(d.toUpperCase()));
};
