import { randomUUID } from 'node:crypto';
import type { EventType } from '../../core/kernel/events.js';
import type { TestApi } from '../support/system.js';

/** An event of the demo account's test environment, committed the way every use case does: appended inside a transaction. */
export const emitEvent = async (api: TestApi, type: EventType, subject: string, data: Record<string, unknown>): Promise<string> => {
  const s = api.system.store;
  const id = randomUUID();
  await s.uow.transaction(() =>
    s.events.append({
      id,
      accountId: api.demo.accountId,
      environment: 'test',
      type,
      subject,
      actor: 'test',
      occurredAt: api.clock.now(),
      data,
    }),
  );
  return id;
};
