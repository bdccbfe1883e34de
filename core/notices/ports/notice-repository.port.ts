import type { Environment } from '../../shared/environment.js';
import type { Notice } from '../notice.js';

export interface NoticeRepository {
  insert(notices: readonly Notice[]): Promise<void>;
  listForPerson(personId: string, environment: Environment | undefined, after: string | undefined, limit: number): Promise<Notice[]>;
}
