import type { RecordingDeps } from '../kernel/recording-deps.js';
import { requireOwner, requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { RegistrarEnvironments } from './ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import { requireCapability } from './capabilities.js';
import type { DomainRepository } from './ports/domain-repository.port.js';

/** What RevealTransferCode is built from (one object, named, instead of positions). */
export interface RevealTransferCodeDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly environments: RegistrarEnvironments;
}

/**
 * Reveal the transfer (auth) code — a human-only action (seed A6, A7): an owner, signed in again within
 * the last 5 minutes. Every reveal is an event and a notice to every owner.
 */
export class RevealTransferCode {
  constructor(private readonly deps: RevealTransferCodeDeps) {}

  async execute(human: HumanContext, environment: Environment, name: string): Promise<{ domain: string; transferCode: string }> {
    requireOwner(human.actor, 'transfer_code');
    requireRecentSignIn(human.session, this.deps.clock.now());
    const domainName = normalizeDomain(name);
    const domain = await this.deps.domains.find(human.actor.accountId, environment, domainName);
    if (!domain) throw new DomainError('domain_not_found', { domain: domainName });
    const registrar = requireCapability(this.deps.environments.get(environment).registrar, 'transfer_code');
    const transferCode = await registrar.transferCode(domainName);
    const at = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      await this.deps.events.record(
        'domain.transfer_code_revealed',
        { accountId: domain.accountId, environment, subject: `domain:${domainName}`, actor: `person:${human.person.id}`, occurredAt: at },
        { domain: domainName, actor_email: human.person.email },
      );
    });
    return { domain: domainName, transferCode };
  }
}
