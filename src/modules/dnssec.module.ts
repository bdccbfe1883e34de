import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import { NodeDnssecCrypto } from '../../adapters/crypto/node/index.js';
import type { SqlStore } from '../../adapters/sql/index.js';
import type { UseCases } from '../../adapters/http/index.js';
import type { DnssecDeps } from '../../core/dnssec/dnssec-deps.js';
import { DisableDnssec } from '../../core/dnssec/disable-dnssec.use-case.js';
import { EnableDnssec } from '../../core/dnssec/enable-dnssec.use-case.js';
import { AddForeignDnskey } from '../../core/dnssec/add-foreign-key.use-case.js';
import { RemoveForeignDnskey } from '../../core/dnssec/remove-foreign-key.use-case.js';
import { ReadDnssec } from '../../core/dnssec/read-dnssec.use-case.js';
import { RefreshSignatures } from '../../core/dnssec/refresh-signatures.use-case.js';
import type { Recorder } from '../../core/kernel/recorder.js';
import { RunDnssecSchedule } from '../../core/dnssec/run-dnssec-schedule.use-case.js';
import { SwitchOffDnssec } from '../../core/operations/switch-off-dnssec.use-case.js';
import type { AccountClock } from '../../core/kernel/account-clock.port.js';
import type { Config } from '../config.js';
import { TOKENS as T } from '../tokens.js';
import type { RegistrarEnvironments } from '../../core/domains/ports/registrar.port.js';

/** The dnssec capability: keys through node:crypto, sealed with the platform's secret box. */
export const dnssecModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.DnssecCrypto).toConstantValue(new NodeDnssecCrypto());
    const deps = [id(T.Store), T.ZoneService, T.DnssecCrypto, T.SecretBox, T.Random, T.Clock, T.Recorder, T.AccountTime, T.Config] as const;
    const make = (
      st: SqlStore,
      zoneService: DnssecDeps['zoneService'],
      crypto: DnssecDeps['crypto'],
      box: DnssecDeps['box'],
      random: DnssecDeps['random'],
      clock: DnssecDeps['clock'],
      events: Recorder,
      time: AccountClock,
      config: Config,
    ): DnssecDeps => ({
      time,
      timings: config.dnssec.timings,
      zones: st.zones,
      dnssec: st.dnssec,
      zoneService,
      crypto,
      box,
      random,
      clock,
      events,
      uow: st.uow,
    });
    bind(T.EnableDnssec)
      .toResolvedValue((...a: Parameters<typeof make>) => new EnableDnssec(make(...a)), [...deps])
      .inSingletonScope();
    bind(T.AddForeignDnskey)
      .toResolvedValue((...a: Parameters<typeof make>) => new AddForeignDnskey(make(...a)), [...deps])
      .inSingletonScope();
    bind(T.RemoveForeignDnskey)
      .toResolvedValue((...a: Parameters<typeof make>) => new RemoveForeignDnskey(make(...a)), [...deps])
      .inSingletonScope();
    bind(T.DisableDnssec)
      .toResolvedValue((...a: Parameters<typeof make>) => new DisableDnssec(make(...a)), [...deps])
      .inSingletonScope();
    bind(T.RefreshSignatures)
      .toResolvedValue((...a: Parameters<typeof make>) => new RefreshSignatures(make(...a)), [...deps])
      .inSingletonScope();
    bind(T.RunDnssecSchedule)
      .toResolvedValue(
        (...a: [...Parameters<typeof make>, RegistrarEnvironments]) => {
          const base = make(...(a.slice(0, 9) as Parameters<typeof make>));
          const st = a[0];
          return new RunDnssecSchedule({ ...base, time: a[7], timings: a[8].dnssec.timings, registrars: a[9], domains: st.domains });
        },
        [...deps, T.Environments],
      )
      .inSingletonScope();
    bind(T.SwitchOffDnssec)
      .toResolvedValue(
        (st: SqlStore, disable, request, registrars: RegistrarEnvironments) =>
          new SwitchOffDnssec({
            zones: st.zones,
            dnssec: st.dnssec,
            domains: st.domains,
            operations: st.operations,
            registrars,
            disable,
            request,
          }),
        [id(T.Store), T.DisableDnssec, T.RequestOperation, T.Environments],
      )
      .inSingletonScope();
    bind(T.ReadDnssec)
      .toResolvedValue(
        (st: SqlStore, registrars: RegistrarEnvironments) =>
          new ReadDnssec({ zones: st.zones, dnssec: st.dnssec, domains: st.domains, registrars }),
        [id(T.Store), T.Environments],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes call of this capability. */
export const dnssecUseCases = (
  c: Container,
): Pick<UseCases, 'enableDnssec' | 'readDnssec' | 'disableDnssec' | 'switchOffDnssec' | 'addForeignDnskey' | 'removeForeignDnskey'> => ({
  addForeignDnskey: c.get(T.AddForeignDnskey),
  removeForeignDnskey: c.get(T.RemoveForeignDnskey),
  switchOffDnssec: c.get(T.SwitchOffDnssec),
  enableDnssec: c.get(T.EnableDnssec),
  readDnssec: c.get(T.ReadDnssec),
  disableDnssec: c.get(T.DisableDnssec),
});
