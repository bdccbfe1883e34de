import type { Account, Person, Session } from '../../kernel/person.js';

export interface AccountRepository {
  insertAccount(account: Account): Promise<void>;
  findAccount(id: string): Promise<Account | null>;
  insertPerson(person: Person): Promise<void>;
  findPersonByEmail(email: string): Promise<Person | null>;
  findPerson(id: string): Promise<Person | null>;
  owners(accountId: string): Promise<Person[]>;
  /** Records a sign-in with the TOTP step it used; false when that step (or a later one) was used already. */
  recordSignIn(personId: string, at: Date, totpStep: number | null): Promise<boolean>;
}

export interface SessionRepository {
  insert(session: Session): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Session | null>;
  revoke(id: string, at: Date): Promise<void>;
}
