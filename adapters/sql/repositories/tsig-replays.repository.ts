import type { TsigReplays } from '../../../core/access/ports/tsig-replays.port.js';
import { iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /UNIQUE constraint failed/i.test(e.message ?? '');
};

/** Seen TSIG-signed messages: the primary key (key id, MAC) refuses the second insert of one message, in any process. */
export class SqlTsigReplays implements TsigReplays {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async claim(keyId: string, timeSigned: number, mac: string, at: Date): Promise<boolean> {
    try {
      await this.uow
        .db()('tsig_replays')
        .insert({ key_id: keyId, mac, time_signed: timeSigned, seen_at: iso(at) });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async purge(before: Date): Promise<number> {
    return this.uow.db()('tsig_replays').where('seen_at', '<', iso(before)).delete();
  }
}
