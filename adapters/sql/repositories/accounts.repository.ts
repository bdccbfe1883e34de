import type { Account, Person, Session, Role } from '../../../core/kernel/person.js';
import type { AccountRepository, SessionRepository } from '../../../core/accounts/ports/account-repository.port.js';
import { date, dateOrNull, iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { Invitation, InvitationRepository, PeopleRepository, RevokedKey } from '../../../core/accounts/ports/people.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { DangerClass } from '../../../core/kernel/rights.js';

type PersonRow = {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: string;
  password_hash: string;
  totp_secret: string;
  totp_last_step: string | number | null;
  last_sign_in_at: string | null;
  created_at: string;
  two_factor_enabled?: boolean | number | null;
  totp_pending_secret?: string | null;
};

const toPerson = (r: PersonRow): Person => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  name: r.name,
  role: r.role as Person['role'],
  passwordHash: r.password_hash,
  totpSecret: r.totp_secret,
  totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
  lastSignInAt: dateOrNull(r.last_sign_in_at),
  createdAt: date(r.created_at),
  twoFactorEnabled: r.two_factor_enabled === undefined || r.two_factor_enabled === null ? true : Boolean(r.two_factor_enabled),
  totpPendingSecret: r.totp_pending_secret ?? null,
});

/** People who can act: not removed, in an account that is not deleted. */
const active = (q: import('knex').Knex.QueryBuilder) =>
  q.select('people.*').join('accounts', 'accounts.id', 'people.account_id').whereNull('people.removed_at').whereNull('accounts.deleted_at');

export class SqlAccountRepository implements AccountRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insertAccount(a: Account): Promise<void> {
    await this.uow
      .db()('accounts')
      .insert({ id: a.id, name: a.name, created_at: iso(a.createdAt) });
  }

  async findAccount(id: string): Promise<Account | null> {
    const r = await this.uow.db()('accounts').where({ id }).first();
    return r ? { id: r.id, name: r.name, createdAt: date(r.created_at) } : null;
  }

  async insertPerson(p: Person): Promise<void> {
    await this.uow
      .db()('people')
      .insert({
        id: p.id,
        account_id: p.accountId,
        email: p.email,
        name: p.name,
        role: p.role,
        password_hash: p.passwordHash,
        totp_secret: p.totpSecret,
        totp_last_step: p.totpLastStep,
        last_sign_in_at: p.lastSignInAt ? iso(p.lastSignInAt) : null,
        created_at: iso(p.createdAt),
      });
  }

  async findPersonByEmail(email: string): Promise<Person | null> {
    const r = await active(this.uow.db()('people')).where('people.email', email).first();
    return r ? toPerson(r) : null;
  }

  async findPerson(id: string): Promise<Person | null> {
    const r = await active(this.uow.db()('people')).where('people.id', id).first();
    return r ? toPerson(r) : null;
  }

  async owners(accountId: string): Promise<Person[]> {
    const rows = await this.uow.db()('people').where({ account_id: accountId, role: 'owner' }).whereNull('removed_at').orderBy('id');
    return rows.map(toPerson);
  }

  async recordSignIn(personId: string, at: Date, totpStep: number | null): Promise<boolean> {
    // Two-factor checks switched off: no step to record.
    if (totpStep === null)
      return (
        (await this.uow
          .db()('people')
          .where({ id: personId })
          .update({ last_sign_in_at: iso(at) })) > 0
      );
    // Conditional: of two concurrent sign-ins with one code, only one records it (RFC 6238 §5.2).
    const n = await this.uow
      .db()('people')
      .where({ id: personId })
      .andWhere((w) => w.whereNull('totp_last_step').orWhere('totp_last_step', '<', totpStep))
      .update({ last_sign_in_at: iso(at), totp_last_step: totpStep });
    return n > 0;
  }
}

export class SqlSessionRepository implements SessionRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(s: Session): Promise<void> {
    await this.uow
      .db()('sessions')
      .insert({
        id: s.id,
        token_hash: s.tokenHash,
        person_id: s.personId,
        account_id: s.accountId,
        created_at: iso(s.createdAt),
        authenticated_at: iso(s.authenticatedAt),
        expires_at: iso(s.expiresAt),
        revoked_at: null,
        csrf_token: s.csrfToken ?? null,
      });
  }

  async findByTokenHash(tokenHash: string): Promise<Session | null> {
    const r = await this.uow.db()('sessions').where({ token_hash: tokenHash }).first();
    return r
      ? {
          id: r.id,
          personId: r.person_id,
          accountId: r.account_id,
          tokenHash: r.token_hash,
          createdAt: date(r.created_at),
          authenticatedAt: date(r.authenticated_at),
          expiresAt: date(r.expires_at),
          revokedAt: dateOrNull(r.revoked_at),
          csrfToken: r.csrf_token ?? null,
        }
      : null;
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.uow
      .db()('sessions')
      .where({ id })
      .whereNull('revoked_at')
      .update({ revoked_at: iso(at) });
  }
}

export class SqlPeopleRepository implements PeopleRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    /** Revokes one key the way the key repository does: its cached lookups are dropped in this process at
     * once and in every other process on commit (DESIGN: revocation effective at once). */
    private readonly revokeKey: ((id: string, at: Date, by: string) => Promise<boolean>) | null = null,
  ) {}

  async list(accountId: string): Promise<Person[]> {
    return (await this.uow.db()('people').where({ account_id: accountId }).whereNull('removed_at').orderBy('created_at').orderBy('id')).map(
      toPerson,
    );
  }

  async lockAccount(accountId: string): Promise<void> {
    // An UPDATE takes the row lock on Postgres until the transaction ends; SQLite has one writer anyway.
    await this.uow
      .db()('accounts')
      .where({ id: accountId })
      .update({ name: this.uow.db().raw('name') });
  }

  async setRole(personId: string, role: Role): Promise<void> {
    await this.uow.db()('people').where({ id: personId }).update({ role });
  }

  async remove(personId: string, at: Date): Promise<void> {
    const r = await this.uow.db()('people').where({ id: personId }).first();
    if (!r) return;
    await this.uow
      .db()('people')
      .where({ id: personId })
      .update({ removed_at: iso(at), email: `removed:${personId}:${r.email}`.slice(0, 320) });
  }

  async setTwoFactor(personId: string, enabled: boolean): Promise<void> {
    await this.uow.db()('people').where({ id: personId }).update({ two_factor_enabled: enabled });
  }

  async setPendingTotp(personId: string, sealedSecret: string): Promise<boolean> {
    const n = await this.uow
      .db()('people')
      .where({ id: personId, two_factor_enabled: false })
      .update({ totp_pending_secret: sealedSecret });
    return n > 0;
  }

  async confirmPendingTotp(personId: string, sealedSecret: string, step: number): Promise<boolean> {
    // One conditional UPDATE: of two concurrent confirmations only one matches (Postgres re-checks the WHERE
    // after the first commits; SQLite has one writer).
    const n = await this.uow
      .db()('people')
      .where({ id: personId, two_factor_enabled: false, totp_pending_secret: sealedSecret })
      .update({ totp_secret: sealedSecret, two_factor_enabled: true, totp_pending_secret: null, totp_last_step: step });
    return n > 0;
  }

  async markAccountDeleted(accountId: string, at: Date): Promise<void> {
    await this.uow
      .db()('accounts')
      .where({ id: accountId })
      .update({ deleted_at: iso(at) });
  }

  async reauthenticated(sessionId: string, at: Date): Promise<void> {
    await this.uow
      .db()('sessions')
      .where({ id: sessionId })
      .update({ authenticated_at: iso(at) });
  }

  async revokeSessions(scope: { personId: string } | { accountId: string }, at: Date): Promise<void> {
    const where = 'personId' in scope ? { person_id: scope.personId } : { account_id: scope.accountId };
    await this.uow
      .db()('sessions')
      .where(where)
      .whereNull('revoked_at')
      .update({ revoked_at: iso(at) });
  }

  async revokeKeys(
    scope: { createdBy: string; minClass?: DangerClass } | { accountId: string },
    at: Date,
    by: string,
  ): Promise<RevokedKey[]> {
    const where = 'createdBy' in scope ? { created_by: scope.createdBy } : { account_id: scope.accountId };
    const q = this.uow.db()('api_keys').where(where).whereNull('revoked_at');
    if ('createdBy' in scope && scope.minClass !== undefined) q.andWhere('class', '>=', scope.minClass);
    const rows: Array<{ id: string; environment: Environment; class: number }> = await q.select('id', 'environment', 'class').orderBy('id');
    const out: RevokedKey[] = [];
    // One by one through the key repository, so cached lookups of these keys die with them.
    for (const r of rows) {
      const done = this.revokeKey
        ? await this.revokeKey(r.id, at, by)
        : (await this.uow
            .db()('api_keys')
            .where({ id: r.id })
            .whereNull('revoked_at')
            .update({ revoked_at: iso(at), revoked_by: by })) > 0;
      if (done) out.push({ id: r.id, environment: r.environment, class: Number(r.class) as DangerClass });
    }
    return out;
  }

  async countDomains(accountId: string): Promise<number> {
    const r = await this.uow.db()('domains').where({ account_id: accountId }).count({ n: '*' }).first();
    return Number((r as { n: number | string } | undefined)?.n ?? 0);
  }
}

type InvitationRow = {
  id: string;
  account_id: string;
  email: string;
  role: string;
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
};
const toInvitation = (r: InvitationRow): Invitation => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  role: r.role as Role,
  tokenHash: r.token_hash,
  invitedBy: r.invited_by,
  createdAt: date(r.created_at),
  expiresAt: date(r.expires_at),
  acceptedAt: dateOrNull(r.accepted_at),
  revokedAt: dateOrNull(r.revoked_at),
});

export class SqlInvitationRepository implements InvitationRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(i: Invitation): Promise<void> {
    await this.uow
      .db()('invitations')
      .insert({
        id: i.id,
        account_id: i.accountId,
        email: i.email,
        role: i.role,
        token_hash: i.tokenHash,
        invited_by: i.invitedBy,
        created_at: iso(i.createdAt),
        expires_at: iso(i.expiresAt),
        accepted_at: null,
        revoked_at: null,
      });
  }

  async findByTokenHash(tokenHash: string): Promise<Invitation | null> {
    const r = await this.uow.db()('invitations').where({ token_hash: tokenHash }).first();
    return r ? toInvitation(r) : null;
  }

  async pending(accountId: string, now: Date): Promise<Invitation[]> {
    const rows = await this.uow
      .db()('invitations')
      .where({ account_id: accountId })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', iso(now))
      .orderBy('created_at');
    return rows.map(toInvitation);
  }

  async accept(id: string, at: Date): Promise<boolean> {
    const n = await this.uow
      .db()('invitations')
      .where({ id })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .where('expires_at', '>', iso(at))
      .update({ accepted_at: iso(at) });
    return n > 0;
  }

  async revoke(id: string, accountId: string, at: Date): Promise<boolean> {
    const n = await this.uow
      .db()('invitations')
      .where({ id, account_id: accountId })
      .whereNull('accepted_at')
      .whereNull('revoked_at')
      .update({ revoked_at: iso(at) });
    return n > 0;
  }
}
