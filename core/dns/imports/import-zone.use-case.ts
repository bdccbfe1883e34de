import type { ApiKey } from '../../kernel/caller.js';
import type { Clock } from '../../kernel/clock.port.js';
import type { Diagnostics } from '../../kernel/diagnostics.port.js';
import type { EventRecorder } from '../../kernel/event-log.port.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError, isDomainError, type Param } from '../../kernel/errors.js';
import type { Random } from '../../kernel/random.port.js';
import type { SecretBox } from '../../kernel/secret-box.port.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.port.js';
import type { DnsPlans } from '../plans/dns-plans.use-case.js';
import type { ImportPlanner, ImportPlanSession, ZoneImportRepository, ZoneTransferClient } from '../ports/zone-import.port.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import {
  importView,
  type ImportFailure,
  type ImportOutcome,
  type TsigKey,
  type ZoneImportRecord,
  type ZoneImportView,
} from './zone-import.js';

/** The caps of one import (DNS_IMPORT_* in the configuration). */
export interface ImportLimits {
  /** Records read (skipped ones included) at most. */
  readonly maxRecords: number;
  /** Bytes of zone-file text, or of AXFR messages, at most. */
  readonly maxBytes: number;
  /** The whole import — read, pull, parse and plan — at most this long. */
  readonly maxSeconds: number;
  /** Records one `$GENERATE` may make at most. */
  readonly generateMax: number;
}

/** What an import reads: zone-file text in chunks (the HTTP adapter streams a body into it), or a server to pull by AXFR. */
export type ImportInput =
  { readonly text: AsyncIterable<string> } | { readonly axfr: { readonly server: string; readonly tsig?: TsigKey | undefined } };

export interface ImportZoneDeps {
  readonly zones: Pick<ZoneRepository, 'head'>;
  readonly imports: ZoneImportRepository;
  readonly plans: Pick<DnsPlans, 'createImported'>;
  readonly transfer: ZoneTransferClient;
  /** Where the text is parsed and the plan built (core/dns/imports/import-planner.ts in this thread; a worker thread under the API). */
  readonly planner: ImportPlanner;
  readonly box: SecretBox;
  readonly events: EventRecorder;
  readonly uow: UnitOfWork;
  readonly random: Random;
  readonly clock: Clock;
  readonly diagnostics: Diagnostics;
  readonly limits: ImportLimits;
}

/** A running import older than its time cap plus this is taken as interrupted (its process went away). */
const INTERRUPTED_AFTER_MS = 60_000;

/** host:port, [v6]:port — the AXFR source as the request names it. */
export const parseServer = (server: string): { host: string; port: number } | null => {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/@]+)):(\d{1,5})$/.exec(server.trim());
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2])!.toLowerCase(), port };
};

/**
 * Zone import (DESIGN "Zone import"): read another provider's zone — a BIND file or an AXFR pull — and end in
 * an ordinary unapplied whole-zone plan, which the person reviews (diff and checks) and applies through the
 * plan routes. The job is answered at once (202, running); the reading runs after the request's transaction,
 * within the caps, and its outcome is the job's row. Nothing here writes the zone.
 */
export class ImportZone {
  constructor(private readonly deps: ImportZoneDeps) {}

  /** The body limit of the import route (DNS_IMPORT_MAX_BYTES). */
  get maxBytes(): number {
    return this.deps.limits.maxBytes;
  }

  async start(key: ApiKey, domainInput: string, input: ImportInput): Promise<ZoneImportView> {
    const domain = normalizeDomain(domainInput);
    // The row, not the sets: a zone of 100k sets need not be read to know it exists.
    if (!(await this.deps.zones.head(key.accountId, key.environment, domain))) throw new DomainError('domain_not_found', { domain });
    // One import of a zone at a time: each may hold a large file and a large plan in memory while it runs.
    const running = await this.deps.imports.running(key.accountId, key.environment, domain);
    if (running && !this.interrupted(running, this.deps.clock.now()))
      throw new DomainError('import_in_progress', { import_id: running.id, domain });
    let server: { host: string; port: number } | null = null;
    if ('axfr' in input) {
      server = parseServer(input.axfr.server);
      if (!server) throw new DomainError('validation_failed', { field: 'axfr.server', value: input.axfr.server });
    }
    const tsig = 'axfr' in input ? (input.axfr.tsig ?? null) : null;
    const record: ZoneImportRecord = {
      id: this.deps.random.id(),
      accountId: key.accountId,
      environment: key.environment,
      domain,
      keyId: key.id,
      source: 'axfr' in input ? 'axfr' : 'zone_file',
      server: 'axfr' in input ? input.axfr.server.trim() : null,
      // Sealed at rest while the job runs, erased when the pull ends (never logged, never in a view).
      tsigSealed: tsig ? this.deps.box.seal(JSON.stringify(tsig)) : null,
      status: 'running',
      recordsRead: 0,
      skipped: [],
      planId: null,
      error: null,
      createdAt: this.deps.clock.now(),
      finishedAt: null,
    };
    await this.deps.imports.insert(record);
    const text = 'text' in input ? input.text : null;
    // After commit: the job row exists for GET before the reading starts, and a rolled-back request starts nothing.
    this.deps.uow.afterCommit(() => void this.run(record, text, server));
    return importView(record);
  }

  async get(key: ApiKey, domainInput: string, id: string): Promise<ZoneImportView> {
    const domain = normalizeDomain(domainInput);
    let r = await this.deps.imports.find(key.accountId, key.environment, id);
    if (!r || r.domain !== domain) throw new DomainError('import_not_found', { import_id: id, domain });
    const now = this.deps.clock.now();
    if (r.status === 'running' && this.interrupted(r, now)) {
      const outcome = failed(r, { code: 'import_interrupted', params: {} }, 0, now);
      await this.deps.imports.finish(r.id, outcome);
      r = { ...r, ...outcome, tsigSealed: null };
    }
    return importView(r);
  }

  /** Still "running" long after its time cap: its process went away. */
  private interrupted(r: ZoneImportRecord, now: Date): boolean {
    return now.getTime() - r.createdAt.getTime() > this.deps.limits.maxSeconds * 1000 + INTERRUPTED_AFTER_MS;
  }

  /** Reads, parses and plans; every way out writes the outcome (and erases the secret). Exported for tests. */
  async run(job: ZoneImportRecord, text: AsyncIterable<string> | null, server: { host: string; port: number } | null): Promise<void> {
    const { limits } = this.deps;
    const deadline = job.createdAt.getTime() + limits.maxSeconds * 1000;
    // The reading and the plan run in the planner (a worker thread under the API: seconds of CPU for a big zone).
    let session: ImportPlanSession | null = null;
    let outcome: ImportOutcome;
    try {
      session = this.deps.planner.start({
        origin: job.domain,
        maxRecords: limits.maxRecords,
        generateMax: limits.generateMax,
        // What $GENERATE writes in all is bounded as a file is: a few bytes of template make no more text than that.
        generateMaxChars: limits.maxBytes,
      });
      const reading = session;
      const overTime = () => this.deps.clock.now().getTime() > deadline;
      const timeout = () => new DomainError('import_timeout', { seconds: limits.maxSeconds });
      let source: AsyncIterable<string>;
      if (text) source = text;
      else {
        const tsig = job.tsigSealed ? (JSON.parse(this.deps.box.open(job.tsigSealed)) as TsigKey) : null;
        source = this.deps.transfer.pull({
          host: server!.host,
          port: server!.port,
          zone: job.domain,
          tsig,
          timeoutMs: Math.max(1, deadline - this.deps.clock.now().getTime()),
          maxBytes: limits.maxBytes,
        });
      }
      let bytes = 0;
      try {
        for await (const chunk of source) {
          // Text length, not bytes, for streamed text: the HTTP layer already capped the body's bytes.
          bytes += chunk.length;
          if (bytes > limits.maxBytes) throw new DomainError('import_too_large', { limit: limits.maxBytes });
          if (overTime()) throw timeout();
          await reading.push(chunk);
        }
      } finally {
        if (job.tsigSealed) await this.deps.imports.discardSecret(job.id);
      }
      if (overTime()) throw timeout();
      const owner = { accountId: job.accountId, environment: job.environment, keyId: job.keyId };
      const plan = await this.deps.plans.createImported(owner, job.domain, async (current, planLimits) => {
        const built = await reading.plan(current, planLimits);
        // Checked again once the plan is built: the whole import keeps within its time.
        if (overTime()) throw timeout();
        return built;
      });
      outcome = {
        status: 'ready',
        recordsRead: reading.recordsRead,
        skipped: reading.skipped(),
        planId: plan.id,
        error: null,
        finishedAt: this.deps.clock.now(),
      };
    } catch (err) {
      let failure: ImportFailure;
      if (isDomainError(err)) failure = { code: err.code, params: err.params as Readonly<Record<string, Param>> };
      else {
        this.deps.diagnostics.report(err, { what: 'zone import failed', domain: job.domain, import_id: job.id });
        failure = { code: 'internal_error', params: {} };
      }
      outcome = { ...failed(job, failure, session?.recordsRead ?? 0, this.deps.clock.now()), skipped: session?.skipped() ?? [] };
    } finally {
      session?.close();
    }
    try {
      // The outcome and its event together (dns.import_ready / dns.import_failed: a webhook tells the integrator).
      await this.deps.uow.transaction(async () => {
        await this.deps.imports.finish(job.id, outcome);
        const facts = {
          accountId: job.accountId,
          environment: job.environment,
          subject: `domain:${job.domain}`,
          actor: `key:${job.keyId}`,
          occurredAt: outcome.finishedAt,
        };
        if (outcome.status === 'ready')
          await this.deps.events.record('dns.import_ready', facts, {
            import_id: job.id,
            source: job.source,
            records_read: outcome.recordsRead,
            skipped: outcome.skipped.reduce((n, g) => n + g.count, 0),
            plan_id: outcome.planId!,
          });
        else
          await this.deps.events.record('dns.import_failed', facts, { import_id: job.id, source: job.source, code: outcome.error!.code });
      });
    } catch (err) {
      this.deps.diagnostics.report(err, { what: 'zone import outcome not written', domain: job.domain, import_id: job.id });
    }
  }
}

const failed = (_job: ZoneImportRecord, error: ImportFailure, recordsRead: number, at: Date): ImportOutcome => ({
  status: 'failed',
  recordsRead,
  skipped: [],
  planId: null,
  error,
  finishedAt: at,
});
