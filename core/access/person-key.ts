import type { ApiKey } from '../kernel/caller.js';
import type { Environment } from '../kernel/environment.js';
import type { Actor } from '../kernel/person.js';
import { RIGHT_NAMES, RIGHTS, type DangerClass, type RightName } from '../kernel/rights.js';

/**
 * The one place of the rule "members up to class 1, owners for class 2 and 3": the highest class of a key
 * a person may issue (IssueKey), of what they may do in the console (the transient person key below), and
 * of the templates the key wizard offers them — so the console never lets a person do more than a key of
 * theirs could.
 */
export const maxClassOf = (actor: Pick<Actor, 'role'>): DangerClass => (actor.role === 'owner' ? 3 : 1);

/** Whether the person's role allows a right at all (the console hides what it would refuse). */
export const personMay = (actor: Pick<Actor, 'role'>, right: RightName): boolean => RIGHTS[right].class <= maxClassOf(actor);

/**
 * The console calls the same use cases as the API; they take a key. A signed-in person acts through this
 * transient key, never stored and holding no secret: every right their role allows over the domains
 * named (the account's domains, plus a name being registered), no address condition and no spend limit
 * (the balance still limits every charge). It is marked `person`, so the events name the person who acted
 * (actorOf: `person:<id>`), not this key that no one can look up.
 */
export const personKey = (args: {
  readonly actor: Actor;
  readonly environment: Environment;
  readonly domains: readonly string[];
  /** Labels a domain registered with this key carries: a domain.register policy selecting each (the
   * rule a label-scoped key registers by), so only a person who may register can label that way. */
  readonly registerLabels?: readonly string[];
  readonly today: string;
  readonly now: Date;
}): ApiKey => {
  const rights = RIGHT_NAMES.filter((r) => personMay(args.actor, r) && (!RIGHTS[r].testOnly || args.environment === 'test'));
  const domains = [...new Set(args.domains)];
  return {
    id: args.actor.personId.slice(-12),
    accountId: args.actor.accountId,
    environment: args.environment,
    name: 'console',
    createdBy: args.actor.personId,
    policies: [
      ...rights.map((right) => ({ right, resources: { domains } })),
      ...(rights.includes('domain.register')
        ? (args.registerLabels ?? []).map((label) => ({ right: 'domain.register' as const, resources: { label } }))
        : []),
    ],
    conditions: { cidr: null, expiresOn: args.today, spendLimit: null },
    class: maxClassOf(args.actor),
    secretHash: '',
    createdAt: args.now,
    lastUsedAt: null,
    revokedAt: null,
    revokedBy: null,
    person: true,
  };
};
