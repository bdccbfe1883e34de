import { RIGHT_NAMES } from '../kernel/rights.js';
import { EVERY_DOMAIN, type Visibility } from '../kernel/visibility.port.js';
import { DomainError } from '../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { accountOf, type OperationActor } from '../kernel/actor.js';
import type { OperationAccess } from './operation-access.js';
import { viewOperation, type OperationStatus, type OperationView } from './operation.js';
import type { OperationListQuery, OperationRepository } from './ports/operation-repository.port.js';

/** GET /v1/operations/{id}: an operation on a domain the key's policies reach (else 404, never 403). */
export class GetOperation {
  constructor(
    private readonly operations: OperationRepository,
    private readonly access: OperationAccess,
  ) {}

  async execute(actor: OperationActor, id: string): Promise<OperationView> {
    return viewOperation(await this.access.visible(actor, await this.operations.find(accountOf(actor), id), id));
  }
}

/**
 * GET /v1/operations: newest first, cursor pages, filtered by domain and status; a key sees only
 * operations on domains its policies reach (any right), a person those of the environment shown.
 */
export class ListOperations {
  constructor(
    private readonly operations: OperationRepository,
    private readonly visibility: Visibility,
  ) {}

  async execute(
    actor: OperationActor,
    opts: { domain?: string; status?: OperationStatus; cursor?: string; limit?: number },
  ): Promise<Page<OperationView>> {
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    let before: OperationListQuery['before'];
    if (after !== undefined) {
      const [createdAt, id] = after.split('|');
      if (!createdAt || !id) throw new DomainError('cursor_invalid');
      before = { createdAt, id };
    }
    // Any right on a domain shows its operations; what each one may do is checked when it acts.
    const scope = actor.kind === 'key' ? this.visibility.scope(actor.key, RIGHT_NAMES) : EVERY_DOMAIN;
    const rows = await this.operations.list({
      accountId: accountOf(actor),
      environment: actor.kind === 'key' ? actor.key.environment : (actor.environment ?? 'test'),
      scope,
      ...(opts.domain !== undefined ? { domain: normalizeDomain(opts.domain) } : {}),
      ...(opts.status !== undefined ? { status: opts.status } : {}),
      ...(before ? { before } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page.map(viewOperation),
      next_cursor: rows.length > limit && last ? encodeCursor(`${last.createdAt.toISOString()}|${last.id}`) : null,
    };
  }
}
