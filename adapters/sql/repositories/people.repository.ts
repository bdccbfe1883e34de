import type { Person, Role } from '../../../core/kernel/person.js';
import type { Invitation, InvitationRepository, PeopleRepository } from '../../../core/accounts/ports/people.port.js';
import { date, dateOrNull, iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

const toPerson = (r: Record<string, any>): Person => ({
  id: r.id, accountId: r.account_id, email: r.email, name: r.name, role: r.role as Role,
  passwordHash: r.password_hash, totpSecret: r.totp_secret, totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
  lastSignInAt: dateOrNull(r.last_sign_in_at), createdAt: date(r.created_at),
  twoFactorEnabled: r.two_factor_enabled === null || r.two_factor_enabled === undefined ? true : Boolean(r.two_factor_enabled),
  totpPendingSecret: r.totp_pending_secret ?? null,
});

export class SqlPeopleRepository implements PeopleRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    /** Revokes one key the way the key repository does: its cached lookups are dropped in this process at
     * once and in every other process on commit (DESIGN: revocation effective at once). */
    private readonly revokeKey: ((id: string, at: Date, by: string) => Promise<boolean>) | null = null,
  ) {}

  async list(accountId: string): Promise<Person[]> {
    return (await this.uow.db()('people').where({ account_id: accountId }).whereNull('removed_at').orderBy('created_at').orderBy('id')).map(toPerson);
  }

  async lockAccount(accountId: string): Promise<void> {
    // An UPDATE takes the row lock on Postgres until the transaction ends; SQLite has one writer anyway.
    await this.uow.db()('accounts').where({ id: accountId }).update({ name: this.uow.db().raw('name') });
  }

  async setRole(personId: string, role: Role): Promise<void> {
    await this.uow.db()('people').where({ id: personId }).update({ role });
  }

  async remove(personId: string, at: Date): Promise<void> {
    const r = await this.uow.db()('people').where({ id: personId }).first();
    if (!r) return;
    await this.uow.db()('people').where({ id: personId }).update({ removed_at: iso(at), email: `removed:${personId}:${r.email}`.slice(0, 320) });
  }

  async setTwoFactor(personId: string, enabled: boolean): Promise<void> {
    await this.uow.db()('people').where({ id: personId }).update({ two_factor_enabled: enabled });
  }

  async setPendingTotp(personId: string, sealedSecret: string): Promise<boolean> {
    const n = await this.uow.db()('people').where({ id: personId, two_factor_enabled: false }).update({ totp_pending_secret: sealedSecret });
    return n > 0;
  }

  async confirmPendingTotp(personId: string, sealedSecret: string, step: number): Promise<boolean> {
    // One conditional UPDATE: of two concurrent confirmations only one matches (Postgres re-checks the WHERE
    // after the first commits; SQLite has one writer).
    const n = await this.uow.db()('people').where({ id: personId, two_factor_enabled: false, totp_pending_secret: sealedSecret })
      .update({ totp_secret: sealedSecret, two_factor_enabled: true, totp_pending_secret: null, totp_last_step: step });
    return n > 0;
  }

  async markAccountDeleted(accountId: string, at: Date): Promise<void> {
    await this.uow.db()('accounts').where({ id: accountId }).update({ deleted_at: iso(at) });
  }

  async reauthenticated(sessionId: string, at: Date): Promise<void> {
    await this.uow.db()('sessions').where({ id: sessionId }).update({ authenticated_at: iso(at) });
  }

  async revokeSessions(scope: { personId: string } | { accountId: string }, at: Date): Promise<void> {
    const where = 'personId' in scope ? { person_id: scope.personId } : { account_id: scope.accountId };
    await this.uow.db()('sessions').where(where).whereNull('revoked_at').update({ revoked_at: iso(at) });
  }

  async revokeKeys(scope: { createdBy: string } | { accountId: string }, at: Date, by: string): Promise<number> {
    const where = 'createdBy' in scope ? { created_by: scope.createdBy } : { account_id: scope.accountId };
    if (!this.revokeKey) return this.uow.db()('api_keys').where(where).whereNull('revoked_at').update({ revoked_at: iso(at), revoked_by: by });
    // One by one through the key repository, so cached lookups of these keys die with them.
    const ids: string[] = (await this.uow.db()('api_keys').where(where).whereNull('revoked_at').select('id')).map((r: { id: string }) => r.id);
    let n = 0;
    for (const id of ids) if (await this.revokeKey(id, at, by)) n++;
    return n;
  }

  async countDomains(accountId: string): Promise<number> {
    const r = await this.uow.db()('domains').where({ account_id: accountId }).count({ n: '*' }).first();
    return Number((r as { n: number | string } | undefined)?.n ?? 0);
  }
}

type InvitationRow = {
  id: string; account_id: string; email: string; role: string; token_hash: string; invited_by: string;
  created_at: string; expires_at: string; accepted_at: string | null; revoked_at: string | null;
};
const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id, accountId: r.account_id, email: r.email, role: r.role as Role, tokenHash: r.token_hash, invitedBy: r.invited_by,
  createdAt: date(r.created_at), expiresAt: date(r.expires_at), acceptedAt: dateOrNull(r.accepted_at), revokedAt: dateOrNull(r.revoked_at),
});

export class SqlInvitationRepository implements InvitationRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(i: Invitation): Promise<void> {
    await this.uow.db()('invitations').insert({
      id: i.id, account_id: i.accountId, email: i.email, role: i.role, token_hash: i.tokenHash, invited_by: i.invitedBy,
      created_at: iso(i.createdAt), expires_at: iso(i.expiresAt), accepted_at: null, revoked_at: null,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    const r = await this.uow.db()('invitations').where({ token_hash: tokenHash }).first();
    return r ? toInvitation(r) : null;
  }

  async pending(accountId: string, now: Date): Promise<Invitation[]> {
    const rows = await this.uow.db()('invitations').where({ account_id: accountId }).whereNull('accepted_at').whereNull('revoked_at')
      .where('expires_at', '>', iso(now)).orderBy('created_at');
    return rows.map(toInvitation);
  }

  async accept(id: string, at: Date): Promise<boolean> {
    const n = await this.uow.db()('invitations').where({ id }).whereNull('accepted_at').whereNull('revoked_at')
      .where('expires_at', '>', iso(at)).update({ accepted_at: iso(at) });
    return n > 0;
  }

  async revoke(id: string, accountId: string, at: Date): Promise<boolean> {
    const n = await this.uow.db()('invitations').where({ id, account_id: accountId }).whereNull('accepted_at').whereNull('revoked_at').update({ revoked_at: iso(at) });
    return n > 0;
  }
}
