import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { SeedDemo } from '../../core/sandbox/seed-demo.use-case.js';
import { AccountTime } from '../../core/sandbox/account-time.js';
import { AdvanceSandboxClock } from '../../core/sandbox/advance-clock.use-case.js';
import { CertificateIssuance } from '../../core/certificates/certificate-issuance.use-case.js';
import { TOKENS as T } from '../tokens.js';
import { ActivateDueOperations } from '../../core/operations/activate-due-operations.use-case.js';
import type { AdvanceTransfers } from '../../core/domains/advance-transfers.use-case.js';
import { SimulateDelegation } from '../../core/sandbox/simulate-delegation.use-case.js';

/** The sandbox capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const sandboxModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.AccountTime)
      .toResolvedValue((st: SqlStore, c) => new AccountTime(c, st.sandboxClocks), [s, T.Clock])
      .inSingletonScope();
    bind(T.AdvanceSandboxClock)
      .toResolvedValue(
        (st: SqlStore, l, r, c, ci: CertificateIssuance, ops: ActivateDueOperations, rec: Recorder, tr: AdvanceTransfers) =>
          new AdvanceSandboxClock({
            clocks: st.sandboxClocks,
            lifecycle: l,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            certificates: ci,
            operations: ops,
            transfers: tr,
          }),
        [s, T.AdvanceLifecycle, T.Random, T.Clock, T.CertificateIssuance, T.ActivateDueOperations, T.Recorder, T.AdvanceTransfers],
      )
      .inSingletonScope();
    bind(T.SimulateDelegation)
      .toResolvedValue((st: SqlStore, v) => new SimulateDelegation(st.simulatedParents, st.domains, v), [s, T.VerifyHosting])
      .inSingletonScope();
    bind(T.SeedDemo)
      .toResolvedValue(
        (st: SqlStore, a, p, t, b, z, r, c, rec: Recorder) =>
          new SeedDemo({
            accounts: st.accounts,
            domains: st.domains,
            registry: st.sandboxRegistry,
            cards: st.savedCards,
            accounting: a,
            events: rec,
            passwords: p,
            totp: t,
            box: b,
            zones: z,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.Accounting, T.PasswordHasher, T.Totp, T.SecretBox, T.ZoneService, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const sandboxUseCases = (c: Container): Pick<UseCases, 'advanceSandboxClock' | 'simulateDelegation'> => ({
  advanceSandboxClock: c.get(T.AdvanceSandboxClock),
  simulateDelegation: c.get(T.SimulateDelegation),
});
