import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { NodeRandom } from '../../adapters/crypto/node/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { Accounting } from '../../core/billing/accounting.js';
import { ReadBilling } from '../../core/billing/read-billing.use-case.js';
import { TopUpBalance } from '../../core/billing/top-up-balance.use-case.js';
import type { Clock } from '../../core/kernel/clock.port.js';
import { TOKENS as T } from '../tokens.js';
import { ChangePaymentMethod } from '../../core/billing/change-payment-method.use-case.js';
import type { CardSetup } from '../../core/billing/ports/card-setup.port.js';

/** The billing capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const billingModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.Accounting)
      .toResolvedValue(
        (st: SqlStore, r, c) => new Accounting({ ledger: st.ledger, wallets: st.wallets, spend: st.spend, random: r, clock: c }),
        [s, T.Random, T.Clock],
      )
      .inSingletonScope();
    bind(T.TopUpBalance)
      .toResolvedValue(
        (st: SqlStore, e, a, r, c, rec: Recorder) =>
          new TopUpBalance({ topUps: st.topUps, cards: st.savedCards, environments: e, accounting: a, events: rec, random: r, clock: c }),
        [s, T.Environments, T.Accounting, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.ReadBilling)
      .toResolvedValue((st: SqlStore, a) => new ReadBilling(a, st.ledger), [s, T.Accounting])
      .inSingletonScope();
    bind(T.ChangePaymentMethod)
      .toResolvedValue(
        (st: SqlStore, live: CardSetup | undefined, r: NodeRandom, c: Clock, rec: Recorder) =>
          new ChangePaymentMethod({
            cards: st.savedCards,
            setups: (e) => (e === 'live' ? (live ?? null) : null),
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, { serviceIdentifier: T.LiveCardSetup, optional: true }, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const billingUseCases = (c: Container): Pick<UseCases, 'readBilling' | 'topUp' | 'changePaymentMethod'> => ({
  readBilling: c.get(T.ReadBilling),
  topUp: c.get(T.TopUpBalance),
  changePaymentMethod: c.get(T.ChangePaymentMethod),
});
