import type { Diagnostics } from '../../core/kernel/diagnostics.port.js';
import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { type Logger } from 'pino';
import { SqlStore } from '../../adapters/sql/index.js';
import { ZoneService } from '../../core/dns/zone/zone-service.js';
import { ReadZone } from '../../core/dns/zone/read-zone.use-case.js';
import { AcmeChallenges } from '../../core/dns/acme/acme-challenges.use-case.js';
import { DnsPlans } from '../../core/dns/plans/dns-plans.use-case.js';
import { ApplyDnsUpdate } from '../../core/dns/update/apply-dns-update.use-case.js';
import { AuthorizeTransfer } from '../../core/dns/update/authorize-transfer.use-case.js';
import { ZonePublisherHub } from '../../adapters/dns/zone-publisher-hub.js';
import { TOKENS as T } from '../tokens.js';
import { ImportZone } from '../../core/dns/imports/import-zone.use-case.js';
import { AxfrClient } from '../../adapters/dns/axfr/index.js';
import { ThreadImportPlanner } from '../../adapters/dns/import-planner/index.js';
import { guardedLookup } from '../../adapters/net/ssrf/index.js';
import type { Config } from '../config.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';

/** The dns capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const dnsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.ZonePublisher).toConstantValue(new ZonePublisherHub());
    bind(T.ZoneService)
      .toResolvedValue(
        (st: SqlStore, p, r, c, log: Logger) =>
          new ZoneService({ zones: st.zones, publisher: p, uow: st.uow, random: r, clock: c, diagnostics: loggedDiagnostics(log) }),
        [s, T.ZonePublisher, T.Random, T.Clock, T.Logger],
      )
      .inSingletonScope();
    bind(T.ReadZone)
      .toResolvedValue((st: SqlStore) => new ReadZone(st.zones), [s])
      .inSingletonScope();
    bind(T.AcmeChallenges)
      .toResolvedValue(
        (st: SqlStore, z, a, r, c, rec: Recorder) =>
          new AcmeChallenges({
            zones: st.zones,
            challenges: st.acmeChallenges,
            zoneService: z,
            authorizer: a,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.ZoneService, T.Authorizer, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.DnsPlans)
      .toResolvedValue(
        (st: SqlStore, z, a, r, c, rec: Recorder, config: Config) =>
          new DnsPlans({
            zones: st.zones,
            plans: st.plans,
            zoneService: z,
            authorizer: a,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            maxRecordSets: config.hosting.zoneRecordLimit,
          }),
        [s, T.ZoneService, T.Authorizer, T.Random, T.Clock, T.Recorder, T.Config],
      )
      .inSingletonScope();
    bind(T.ApplyDnsUpdate)
      .toResolvedValue(
        (st: SqlStore, z: ZoneService, p: DnsPlans, a) => new ApplyDnsUpdate({ zones: st.zones, zoneService: z, plans: p, authorizer: a }),
        [s, T.ZoneService, T.DnsPlans, T.Authorizer],
      )
      .inSingletonScope();
    bind(T.ImportZone)
      .toResolvedValue(
        (st: SqlStore, plans: DnsPlans, box: SecretBox, r, c, log: Logger, cfg: Config, rec: Recorder) =>
          new ImportZone({
            zones: st.zones,
            imports: st.zoneImports,
            plans,
            // AXFR through the SSRF guard: resolved once, the checked address connected to (adapters/net/ssrf).
            transfer: new AxfrClient({ lookup: guardedLookup({ allowLoopback: cfg.dnsImport.allowLoopback }) }),
            // Parsed and planned on a worker thread: the API answers other requests meanwhile.
            planner: new ThreadImportPlanner({
              youngGenerationMb: IMPORT_THREAD_YOUNG_MB,
              oldGenerationMb: importThreadHeapMb(cfg.dnsImport.maxRecords),
            }),
            box,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            diagnostics: loggedDiagnostics(log),
            limits: cfg.dnsImport,
          }),
        [s, T.DnsPlans, T.SecretBox, T.Random, T.Clock, T.Logger, T.Config, T.Recorder],
      )
      .inSingletonScope();
    bind(T.AuthorizeTransfer)
      .toResolvedValue((st: SqlStore, a) => new AuthorizeTransfer({ zones: st.zones, authorizer: a }), [s, T.Authorizer])
      .inSingletonScope();
  });

/** An import's planning thread's young generation, MB (see ThreadImportPlannerOptions): half the API's 64 MB semi-spaces in all. */
const IMPORT_THREAD_YOUNG_MB = 32;

/**
 * An import's planning thread's heap cap, MB: room for the largest import allowed (DNS_IMPORT_MAX_RECORDS),
 * at 200 bytes a record — a plan of a million records (bench:import) holds some 325 MB at its peak (its
 * checks; the file read holds some 220 MB) — plus 256 MB. An import past it fails; the API goes on (see
 * ThreadImportPlannerOptions.oldGenerationMb).
 */
export const importThreadHeapMb = (maxRecords: number): number => 256 + Math.ceil(maxRecords / 5120);

const id = <X>(token: ServiceIdentifier<X>) => token;

/** The core's reported errors go to the log, with what failed. */
const loggedDiagnostics = (log: Logger): Diagnostics => ({
  report: (err, context) => log.error({ err, ...context }, context.what),
});

/** What the routes (and the console) call of this capability. */
export const dnsUseCases = (c: Container): Pick<UseCases, 'readZone' | 'dnsPlans' | 'acmeChallenges' | 'importZone'> => ({
  importZone: c.get(T.ImportZone),
  readZone: c.get(T.ReadZone),
  dnsPlans: c.get(T.DnsPlans),
  acmeChallenges: c.get(T.AcmeChallenges),
});
