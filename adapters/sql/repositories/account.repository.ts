import type { Account, Person, Session } from '../../../core/kernel/person.js';
import type { AccountRepository, SessionRepository } from '../../../core/accounts/ports/account-repository.port.js';
import { date, dateOrNull, iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type PersonRow = {
  id: string; account_id: string; email: string; name: string; role: string; password_hash: string;
  totp_secret: string; totp_last_step: string | number | null; last_sign_in_at: string | null; created_at: string;
  two_factor_enabled?: boolean | number | null;
  totp_pending_secret?: string | null;
};

const toPerson = (r: PersonRow): Person => ({
  id: r.id, accountId: r.account_id, email: r.email, name: r.name, role: r.role as Person['role'],
  passwordHash: r.password_hash, totpSecret: r.totp_secret,
  totpLastStep: r.totp_last_step === null ? null : Number(r.totp_last_step),
  lastSignInAt: dateOrNull(r.last_sign_in_at), createdAt: date(r.created_at),
  twoFactorEnabled: r.two_factor_enabled === undefined || r.two_factor_enabled === null ? true : Boolean(r.two_factor_enabled),
  totpPendingSecret: r.totp_pending_secret ?? null,
});

/** People who can act: not removed, in an account that is not deleted (issue 10). */
const active = (q: import('knex').Knex.QueryBuilder) =>
  q.select('people.*').join('accounts', 'accounts.id', 'people.account_id').whereNull('people.removed_at').whereNull('accounts.deleted_at');

export class SqlAccountRepository implements AccountRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insertAccount(a: Account): Promise<void> {
    await this.uow.db()('accounts').insert({ id: a.id, name: a.name, created_at: iso(a.createdAt) });
  }

  async findAccount(id: string): Promise<Account | null> {
    const r = await this.uow.db()('accounts').where({ id }).first();
    return r ? { id: r.id, name: r.name, createdAt: date(r.created_at) } : null;
  }

  async insertPerson(p: Person): Promise<void> {
    await this.uow.db()('people').insert({
      id: p.id, account_id: p.accountId, email: p.email, name: p.name, role: p.role, password_hash: p.passwordHash,
      totp_secret: p.totpSecret, totp_last_step: p.totpLastStep, last_sign_in_at: p.lastSignInAt ? iso(p.lastSignInAt) : null,
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
    if (totpStep === null) return (await this.uow.db()('people').where({ id: personId }).update({ last_sign_in_at: iso(at) })) > 0;
    // Conditional: of two concurrent sign-ins with one code, only one records it (RFC 6238 §5.2).
    const n = await this.uow.db()('people').where({ id: personId })
      .andWhere((w) => w.whereNull('totp_last_step').orWhere('totp_last_step', '<', totpStep))
      .update({ last_sign_in_at: iso(at), totp_last_step: totpStep });
    return n > 0;
  }
}

export class SqlSessionRepository implements SessionRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(s: Session): Promise<void> {
    await this.uow.db()('sessions').insert({
      id: s.id, token_hash: s.tokenHash, person_id: s.personId, account_id: s.accountId, created_at: iso(s.createdAt),
      authenticated_at: iso(s.authenticatedAt), expires_at: iso(s.expiresAt), revoked_at: null, csrf_token: s.csrfToken ?? null,
    });
  }

  async findByTokenHash(tokenHash: string): Promise<Session | null> {
    const r = await this.uow.db()('sessions').where({ token_hash: tokenHash }).first();
    return r
      ? {
          id: r.id, personId: r.person_id, accountId: r.account_id, tokenHash: r.token_hash, createdAt: date(r.created_at),
          authenticatedAt: date(r.authenticated_at), expiresAt: date(r.expires_at), revokedAt: dateOrNull(r.revoked_at),
          csrfToken: r.csrf_token ?? null,
        }
      : null;
  }

  async revoke(id: string, at: Date): Promise<void> {
    await this.uow.db()('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: iso(at) });
  }
}
