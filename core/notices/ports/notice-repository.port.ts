import type { Environment } from '../../kernel/environment.js';
import type { Notice } from '../notice.js';

export interface NoticeRepository {
  insert(notices: readonly Notice[]): Promise<void>;
  listForPerson(personId: string, environment: Environment | undefined, after: string | undefined, limit: number): Promise<Notice[]>;
  /** One copy per notice of an account and environment, newest first (what keys may list). */
  listForAccount(accountId: string, environment: Environment, after: string | undefined, limit: number): Promise<Notice[]>;
}
