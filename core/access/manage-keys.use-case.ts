import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { Actor } from '../kernel/person.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { viewKey, type KeyView } from './key-view.js';
import type { KeyRepository } from './ports/key-repository.port.js';

/** DESIGN: owners list and revoke any key of the account; members only their own. */
export class ListKeys {
  constructor(
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, opts: { cursor?: string; limit?: number }): Promise<Page<KeyView>> {
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const rows = await this.keys.list({
      accountId: actor.accountId,
      ...(actor.role === 'member' ? { createdBy: actor.personId } : {}),
      ...(after !== undefined ? { after } : {}),
      limit: limit + 1,
    });
    const now = this.clock.now();
    const page = rows.slice(0, limit);
    return { data: page.map((k) => viewKey(k, now)), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null };
  }
}

/** What RevokeKey is built from (one object, named, instead of positions). */
export interface RevokeKeyDeps extends RecordingDeps {
  readonly keys: KeyRepository;
}

export class RevokeKey {
  constructor(private readonly deps: RevokeKeyDeps) {}

  async execute(actor: Actor, keyId: string): Promise<KeyView> {
    return this.deps.uow.transaction(async () => {
      const key = await this.deps.keys.findById(keyId);
      // A key of another account, or a member's view of someone else's key, is simply not found.
      if (!key || key.accountId !== actor.accountId || (actor.role === 'member' && key.createdBy !== actor.personId)) {
        throw new DomainError('key_not_found', { key_id: keyId });
      }
      const now = this.deps.clock.now();
      if (!key.revokedAt) {
        await this.deps.keys.revoke(key.id, now, actor.personId);
        await this.deps.events.record(
          'key.revoked',
          {
            accountId: actor.accountId,
            environment: key.environment,
            subject: `key:${key.id}`,
            actor: `person:${actor.personId}`,
            occurredAt: now,
          },
          { key_id: key.id },
        );
      }
      const after = await this.deps.keys.findById(key.id);
      return viewKey(after!, now);
    });
  }
}
