import { parentPort, workerData } from 'node:worker_threads';
import { InlineImportSession } from '../../../core/dns/imports/import-planner.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import { ZoneSets } from '../../../core/dns/zone/zone-sets.js';
import { CHANGES_PER_MESSAGE, type FromThread, type ThreadData, type ToThread } from './protocol.js';

/**
 * One import's planning thread: reads the zone-file text it is sent with the strict import parser, then
 * builds the whole-zone plan on the zone it is sent, and posts the plan back in slices. The first failure
 * is posted and ends the thread's work; the thread is then terminated by its owner.
 */
const port = parentPort!;
const session = new InlineImportSession(workerData as ThreadData);
let failed = false;

const post = (m: FromThread): void => port.postMessage(m);

const fail = (err: unknown): void => {
  failed = true;
  const error = isDomainError(err)
    ? { code: err.code, params: { ...(err.params as Record<string, unknown>) } }
    : { message: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  post({ kind: 'failed', error, recordsRead: session.recordsRead, skipped: session.skipped() });
  session.close();
};

port.on('message', (m: ToThread) => {
  if (failed) return;
  try {
    if (m.kind === 'chunk') {
      session.pushNow(m.text);
      return;
    }
    const plan = session.planNow(ZoneSets.of(m.current), m.maxRecordSets !== undefined ? { maxRecordSets: m.maxRecordSets } : {});
    const counts = { create: 0, update: 0, delete: 0 };
    for (const c of plan.changes) counts[c.action]++;
    for (let i = 0; i < plan.changes.length; i += CHANGES_PER_MESSAGE)
      post({ kind: 'changes', json: JSON.stringify(plan.changes.slice(i, i + CHANGES_PER_MESSAGE)).slice(1, -1) });
    post({ kind: 'done', counts, checks: plan.checks, valid: plan.valid, recordsRead: session.recordsRead, skipped: session.skipped() });
  } catch (err) {
    fail(err);
  }
});
