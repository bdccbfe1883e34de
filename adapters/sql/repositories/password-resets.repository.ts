import type { PasswordResetRequest, PasswordResets } from '../../../core/accounts/ports/password-resets.port.js';
import { date, dateOrNull, iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = { id: string; person_id: string; token_hash: string; created_at: string; expires_at: string; used_at: string | null };
const toRequest = (r: Row): PasswordResetRequest => ({
  id: r.id,
  personId: r.person_id,
  tokenHash: r.token_hash,
  createdAt: date(r.created_at),
  expiresAt: date(r.expires_at),
  usedAt: dateOrNull(r.used_at),
});

export class SqlPasswordResets implements PasswordResets {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(r: PasswordResetRequest): Promise<void> {
    await this.uow
      .db()('password_resets')
      .insert({
        id: r.id,
        person_id: r.personId,
        token_hash: r.tokenHash,
        created_at: iso(r.createdAt),
        expires_at: iso(r.expiresAt),
        used_at: null,
      });
  }

  async findByTokenHash(tokenHash: string): Promise<PasswordResetRequest | null> {
    const r: Row | undefined = await this.uow.db()('password_resets').where({ token_hash: tokenHash }).first();
    return r ? toRequest(r) : null;
  }

  async consume(id: string, personId: string, at: Date): Promise<boolean> {
    const db = this.uow.db();
    const n = await db('password_resets')
      .where({ id })
      .whereNull('used_at')
      .where('expires_at', '>', iso(at))
      .update({ used_at: iso(at) });
    if (n === 0) return false;
    // Every other open link of the person ends with this one.
    await db('password_resets')
      .where({ person_id: personId })
      .whereNull('used_at')
      .update({ used_at: iso(at) });
    return true;
  }

  async setPassword(personId: string, passwordHash: string): Promise<void> {
    await this.uow.db()('people').where({ id: personId }).update({ password_hash: passwordHash });
  }
}

/** The e-mail outbox read back (the in-app outbox of a server without a mail server). */
export class SqlMailbox {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async to(address: string, limit: number): Promise<Array<{ id: string; subject: string; body: string; createdAt: Date }>> {
    const rows: Array<{ id: string; subject: string; body: string; created_at: string }> = await this.uow
      .db()('notice_deliveries')
      .where({ address: address.trim().toLowerCase() })
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .select('id', 'subject', 'body', 'created_at');
    return rows.map((r) => ({ id: r.id, subject: r.subject, body: r.body, createdAt: date(r.created_at) }));
  }
}
