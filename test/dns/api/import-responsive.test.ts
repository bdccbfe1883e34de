import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { ImportPlanner } from '../../../core/dns/ports/zone-import.port.js';
import { TOKENS } from '../../../src/tokens.js';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

const DEV = 'domivka-demo.dev';
/** Big enough that building its plan takes far longer than answering a request (seconds against milliseconds). */
const UNITS = 20_000;

/** A zone file of 100,000 records: five sets per unit (A, AAAA, TXT, MX, CNAME). */
const bigZoneFile = (): string => {
  const lines = [`$ORIGIN ${DEV}.`, '$TTL 300'];
  for (let u = 0; u < UNITS; u++) {
    const h = `h${u}`;
    lines.push(
      `${h} IN A 10.${(u >> 8) & 255}.${u & 255}.1`,
      `${h} IN AAAA 2001:db8::${u.toString(16)}`,
      `${h} IN TXT "host ${u}"`,
      `m${u} IN MX 10 ${h}`,
      `c${u} IN CNAME ${h}`,
    );
  }
  return `${lines.join('\n')}\n`;
};

/**
 * A big import is planned off the API's event loop: requests that arrive while its plan is being built are
 * answered before that plan is ready. The planner the system wired is watched (not replaced): the test
 * learns when the plan building starts and ends, and orders the other requests' answers against that.
 */
eachStore('Zone import: the API answers other requests while a big import is planned', (kind) => {
  let api: TestApi;
  let editor: string;
  const order: string[] = [];
  let planStarted!: Promise<void>;

  before(async () => {
    api = await startApi(kind, {
      env: {
        DNS_IMPORT_MAX_RECORDS: String(UNITS * 5 + 10),
        DNS_IMPORT_MAX_BYTES: String(16 * 1024 * 1024),
        DNS_IMPORT_MAX_SECONDS: '600',
        ZONE_RECORD_LIMIT: String(UNITS * 5 + 100),
      },
    });
    editor = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [DEV] })).secret;
    // The system's own planner, watched: each session's plan() marks when it is asked for and when it is ready.
    const deps = (api.system.get(TOKENS.ImportZone) as unknown as { deps: { planner: ImportPlanner } }).deps;
    const real = deps.planner;
    let started!: () => void;
    planStarted = new Promise((resolve) => (started = resolve));
    deps.planner = {
      start: (request) => {
        const session = real.start(request);
        return {
          push: (chunk) => session.push(chunk),
          plan: (current, limits) => {
            order.push('plan asked');
            started();
            return session.plan(current, limits).then((p) => {
              order.push('plan ready');
              return p;
            });
          },
          get recordsRead() {
            return session.recordsRead;
          },
          skipped: () => session.skipped(),
          close: () => session.close(),
        };
      },
    };
  });
  after(async () => api?.close());

  /** Resolves never while the import runs; throws with the job once it ended without its plan being asked for. */
  const ended = async (id: string): Promise<void> => {
    for (;;) {
      await new Promise((r) => setTimeout(r, 200));
      const job = (await api.call(`/v1/domains/${DEV}/dns/imports/${id}`, { headers: bearer(editor) })).body;
      if (order.length > 0) return new Promise<void>(() => {});
      if (job.status !== 'running') throw new Error(`the import ended before its plan was asked for: ${JSON.stringify(job)}`);
    }
  };

  it('/healthz and a read of the running import are answered while the plan of a 100,000-record import is built', async () => {
    const res = await api.call(`/v1/domains/${DEV}/dns/imports`, {
      method: 'POST',
      headers: { ...bearer(editor), 'idempotency-key': randomUUID(), 'content-type': 'text/dns' },
      body: bigZoneFile(),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    // (the import may fail before its plan: then say why instead of waiting for a plan that never comes)
    await Promise.race([planStarted, ended(res.body.id)]);
    const health = await api.call('/healthz');
    expect(health.status).to.equal(200);
    order.push('healthz answered');
    const during = await api.call(`/v1/domains/${DEV}/dns/imports/${res.body.id}`, { headers: bearer(editor) });
    expect(during.status).to.equal(200);
    order.push(`import read: ${during.body.status}`);
    let job = during.body;
    while (job.status === 'running') {
      await new Promise((r) => setTimeout(r, 100));
      job = (await api.call(`/v1/domains/${DEV}/dns/imports/${res.body.id}`, { headers: bearer(editor) })).body;
    }
    expect(order).to.deep.equal(['plan asked', 'healthz answered', 'import read: running', 'plan ready']);
    // And it still ends in an ordinary, valid, unapplied plan of every record.
    expect(job.status, JSON.stringify(job)).to.equal('ready');
    expect(job.records_read).to.equal(UNITS * 5);
    const plan = await api.call(`/v1/domains/${DEV}/dns/plans/${job.plan_id}`, { headers: bearer(editor) });
    expect(plan.body.valid, JSON.stringify(plan.body.checks.slice(0, 3))).to.equal(true);
    expect(plan.body.applied_at).to.equal(null);
    expect(plan.body.counts.create).to.equal(UNITS * 5);
  });
});
