import { Recorder } from '../../core/kernel/recorder.js';
import type { Visibility } from '../../core/kernel/visibility.port.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { GetDomain, ListDomains } from '../../core/domains/read-domains.use-case.js';
import { SearchDomains } from '../../core/domains/search-domains.use-case.js';
import { AdvanceLifecycle } from '../../core/domains/advance-lifecycle.use-case.js';
import { SqlDurableCheckpoints } from '../../adapters/sql/repositories/idempotency.repository.js';
import { RegisterDomain } from '../../core/domains/register-domain.use-case.js';
import { RenewDomain } from '../../core/domains/renew-domain.use-case.js';
import { SetAutoRenew } from '../../core/domains/set-auto-renew.use-case.js';
import type { Environments } from '../../core/kernel/environments.port.js';
import type { EnvironmentAdapters } from '../tokens.js';
import { TOKENS as T } from '../tokens.js';
import { RevealTransferCode } from '../../core/domains/reveal-transfer-code.use-case.js';
import { ChangeRegistrant } from '../../core/domains/change-registrant.use-case.js';
import { TransferSettlement } from '../../core/domains/transfer-settlement.js';
import { RequestTransfer } from '../../core/domains/request-transfer.use-case.js';
import { CancelTransfer } from '../../core/domains/cancel-transfer.use-case.js';
import { ReadTransfers } from '../../core/domains/read-transfers.use-case.js';
import type { Authorizer } from '../../core/access/authorize.js';
import type { Domain } from '../../core/domains/domain.js';
import { AdvanceTransfers } from '../../core/domains/advance-transfers.use-case.js';
import {
  KeepZoneAfterTransferOut,
  NoteTransferOut,
  RejectTransferOut,
  type TransferOutDeps,
} from '../../core/domains/transfer-out.use-case.js';
import { SimulateTransferOut } from '../../core/sandbox/simulate-transfer-out.use-case.js';
import { SqlDomainHolders } from '../../adapters/sql/repositories/domains.repository.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import type { AccountClock } from '../../core/kernel/account-clock.port.js';
import type { Clock } from '../../core/kernel/clock.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { RegistrarEnvironments } from '../../core/domains/ports/registrar.port.js';
import { HostDomain } from '../../core/domains/host-domain.use-case.js';
import { DisplaceHosted } from '../../core/domains/displace-hosted.js';
import { VerifyHosting } from '../../core/domains/verify-hosting.use-case.js';
import { RecheckHosting } from '../../core/domains/recheck-hosting.use-case.js';
import type { Config } from '../config.js';

/** The domains capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const domainsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.RegisterDomain)
      .toResolvedValue(
        (config: Config, st: SqlStore, e, a, at, z, r, rec: Recorder, c) =>
          new RegisterDomain({
            domains: st.domains,
            environments: e,
            accounting: a,
            events: rec,
            time: at,
            zones: z,
            uow: st.uow,
            random: r,
            displace: new DisplaceHosted({ domains: st.domains, zones: z, events: rec, clock: c }),
            catalogZone: config.dnsCatalogZone,
          }),
        [T.Config, s, T.Environments, T.Accounting, T.AccountTime, T.ZoneService, T.Random, T.Recorder, T.Clock],
      )
      .inSingletonScope();
    bind(T.RenewDomain)
      .toResolvedValue(
        (st: SqlStore, e, a, at, r, rec: Recorder) =>
          new RenewDomain({ domains: st.domains, locks: st.domainLocks, environments: e, accounting: a, events: rec, time: at, random: r }),
        [s, T.Environments, T.Accounting, T.AccountTime, T.Random, T.Recorder],
      )
      .inSingletonScope();
    bind(T.SetAutoRenew)
      .toResolvedValue(
        (st: SqlStore, r, c, rec: Recorder) => new SetAutoRenew({ domains: st.domains, events: rec, random: r, clock: c, uow: st.uow }),
        [s, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.AdvanceLifecycle)
      .toResolvedValue(
        (st: SqlStore, at, rn, z, r, c, rec: Recorder) =>
          new AdvanceLifecycle({
            domains: st.domains,
            accountClock: at,
            renew: rn,
            events: rec,
            zones: z,
            uow: st.uow,
            random: r,
            clock: c,
            checkpoints: new SqlDurableCheckpoints(st.idempotency, st.uow, c),
            keys: st.keys,
          }),
        [s, T.AccountTime, T.RenewDomain, T.ZoneService, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.VerifyHosting)
      .toResolvedValue(
        (st: SqlStore, z, e, c, rec: Recorder) =>
          new VerifyHosting({ domains: st.domains, zones: z, environments: e, events: rec, uow: st.uow, clock: c }),
        [s, T.ZoneService, T.Environments, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.HostDomain)
      .toResolvedValue(
        (config: Config, st: SqlStore, z, v, c, r, rec: Recorder) =>
          new HostDomain({
            domains: st.domains,
            zones: z,
            verify: v,
            events: rec,
            uow: st.uow,
            clock: c,
            random: r,
            limit: config.hosting.limit,
            catalogZone: config.dnsCatalogZone,
          }),
        [T.Config, s, T.ZoneService, T.VerifyHosting, T.Clock, T.Random, T.Recorder],
      )
      .inSingletonScope();
    bind(T.RecheckHosting)
      .toResolvedValue(
        (config: Config, st: SqlStore, v, c) =>
          new RecheckHosting({ domains: st.domains, verify: v, clock: c, intervalMs: config.hosting.recheckSeconds * 1000 }),
        [T.Config, s, T.VerifyHosting, T.Clock],
      )
      .inSingletonScope();
    bind(T.GetDomain)
      .toResolvedValue((st: SqlStore) => new GetDomain(st.domains), [s])
      .inSingletonScope();
    bind(T.ListDomains)
      .toResolvedValue((st: SqlStore, v: Visibility) => new ListDomains(st.domains, v), [s, T.Visibility])
      .inSingletonScope();
    bind(T.SearchDomains)
      .toResolvedValue((e: Environments<EnvironmentAdapters>) => new SearchDomains(e), [T.Environments])
      .inSingletonScope();
    bind(T.RevealTransferCode)
      .toResolvedValue(
        (st: SqlStore, e, r, c, rec: Recorder) =>
          new RevealTransferCode({ domains: st.domains, environments: e, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Environments, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.ChangeRegistrant)
      .toResolvedValue(
        (st: SqlStore, e, r, c, rec: Recorder) =>
          new ChangeRegistrant({ domains: st.domains, environments: e, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Environments, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    // Transfers between registrars (both directions): one settlement, where money ends exactly once.
    bind(T.TransferSettlement)
      .toResolvedValue(
        (st: SqlStore, a, z, b: SecretBox, r, c, rec: Recorder) =>
          new TransferSettlement({
            transfers: st.transfers,
            domains: st.domains,
            accounting: a,
            zones: z,
            box: b,
            displace: new DisplaceHosted({ domains: st.domains, zones: z, events: rec, clock: c }),
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.Accounting, T.ZoneService, T.SecretBox, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.RequestTransfer)
      .toResolvedValue(
        (config: Config, st: SqlStore, e, a, at, b: SecretBox, set: TransferSettlement, r, c, rec: Recorder) =>
          new RequestTransfer({
            domains: st.domains,
            holders: new SqlDomainHolders(st.uow),
            transfers: st.transfers,
            environments: e,
            accounting: a,
            time: at,
            box: b,
            settlement: set,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            ourDs: {
              of: async (accountId, environment, domain) => {
                const zone = await st.zones.find(accountId, environment, domain);
                const state = zone ? await st.dnssec.find(zone.id) : null;
                return (state?.keys ?? []).filter((k) => k.state !== 'retired').map((k) => k.ds);
              },
            },
            catalogZone: config.dnsCatalogZone,
          }),
        [T.Config, s, T.Environments, T.Accounting, T.AccountTime, T.SecretBox, T.TransferSettlement, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.CancelTransfer)
      .toResolvedValue(
        (st: SqlStore, e, set: TransferSettlement, at, r) =>
          new CancelTransfer({ transfers: st.transfers, environments: e, settlement: set, time: at, random: r }),
        [s, T.Environments, T.TransferSettlement, T.AccountTime, T.Random],
      )
      .inSingletonScope();
    bind(T.ReadTransfers)
      .toResolvedValue((st: SqlStore, a: Authorizer<Domain>) => new ReadTransfers(st.transfers, st.domains, a), [s, T.Authorizer])
      .inSingletonScope();
    bind(T.AdvanceTransfers)
      .toResolvedValue(
        (st: SqlStore, e, set: TransferSettlement, at, c, n: NoteTransferOut) =>
          new AdvanceTransfers({ transfers: st.transfers, environments: e, settlement: set, accountClock: at, clock: c, note: n }),
        [s, T.Environments, T.TransferSettlement, T.AccountTime, T.Clock, T.NoteTransferOut],
      )
      .inSingletonScope();
    const outDeps = (
      st: SqlStore,
      e: RegistrarEnvironments,
      set: TransferSettlement,
      at: AccountClock,
      r: Random,
      c: Clock,
      rec: Recorder,
    ): TransferOutDeps => ({
      domains: st.domains,
      transfers: st.transfers,
      environments: e,
      settlement: set,
      time: at,
      events: rec,
      uow: st.uow,
      random: r,
      clock: c,
    });
    const outTokens = [s, T.Environments, T.TransferSettlement, T.AccountTime, T.Random, T.Clock, T.Recorder] as const;
    bind(T.NoteTransferOut)
      .toResolvedValue((...a: Parameters<typeof outDeps>) => new NoteTransferOut(outDeps(...a)), [...outTokens])
      .inSingletonScope();
    bind(T.RejectTransferOut)
      .toResolvedValue((...a: Parameters<typeof outDeps>) => new RejectTransferOut(outDeps(...a)), [...outTokens])
      .inSingletonScope();
    bind(T.KeepZoneAfterTransferOut)
      .toResolvedValue(
        (config: Config, st: SqlStore) =>
          new KeepZoneAfterTransferOut({ domains: st.domains, transfers: st.transfers, uow: st.uow, hostedLimit: config.hosting.limit }),
        [T.Config, s],
      )
      .inSingletonScope();
    bind(T.SimulateTransferOut)
      .toResolvedValue(
        (st: SqlStore, e, n: NoteTransferOut, at) => new SimulateTransferOut({ domains: st.domains, environments: e, note: n, time: at }),
        [s, T.Environments, T.NoteTransferOut, T.AccountTime],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const domainsUseCases = (
  c: Container,
): Pick<
  UseCases,
  | 'getDomain'
  | 'listDomains'
  | 'searchDomains'
  | 'registerDomain'
  | 'renewDomain'
  | 'setAutoRenew'
  | 'revealTransferCode'
  | 'changeRegistrant'
  | 'requestTransfer'
  | 'readTransfers'
  | 'cancelTransfer'
  | 'rejectTransferOut'
  | 'keepZoneAfterTransferOut'
  | 'simulateTransferOut'
  | 'hostDomain'
  | 'verifyHosting'
> => ({
  getDomain: c.get(T.GetDomain),
  listDomains: c.get(T.ListDomains),
  searchDomains: c.get(T.SearchDomains),
  registerDomain: c.get(T.RegisterDomain),
  renewDomain: c.get(T.RenewDomain),
  setAutoRenew: c.get(T.SetAutoRenew),
  revealTransferCode: c.get(T.RevealTransferCode),
  changeRegistrant: c.get(T.ChangeRegistrant),
  requestTransfer: c.get(T.RequestTransfer),
  readTransfers: c.get(T.ReadTransfers),
  cancelTransfer: c.get(T.CancelTransfer),
  rejectTransferOut: c.get(T.RejectTransferOut),
  keepZoneAfterTransferOut: c.get(T.KeepZoneAfterTransferOut),
  simulateTransferOut: c.get(T.SimulateTransferOut),
  hostDomain: c.get(T.HostDomain),
  verifyHosting: c.get(T.VerifyHosting),
});
