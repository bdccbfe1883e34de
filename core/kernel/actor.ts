import type { ApiKey } from './caller.js';
import type { Role } from './person.js';
import type { Environment } from './environment.js';

/**
 * Who acts on an operation: an API key, or a signed-in person in the console. Both go through the
 * same use cases and the same rules (no second copy of a business rule in the console).
 */
export type OperationActor =
  | { readonly kind: 'key'; readonly key: ApiKey }
  | {
      readonly kind: 'person';
      readonly personId: string;
      readonly accountId: string;
      readonly role: Role;
      /** The environment the console shows (requests and lists); confirm/cancel take the operation's own. */
      readonly environment?: Environment;
    };

export const accountOf = (a: OperationActor): string => (a.kind === 'key' ? a.key.accountId : a.accountId);

/** The person behind an actor: a key stands for the person who issued it. */
export const personOf = (a: OperationActor): string => (a.kind === 'key' ? a.key.createdBy : a.personId);
