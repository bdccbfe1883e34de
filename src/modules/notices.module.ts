import type { Authorizer } from '../../core/access/authorize.js';
import type { Domain } from '../../core/domains/domain.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { ListNotices } from '../../core/notices/list-notices.use-case.js';
import { NotifyOwners } from '../../core/notices/notify-owners.js';
import { ListKeyNotices } from '../../core/notices/list-key-notices.use-case.js';
import { TOKENS as T } from '../tokens.js';

/** The notices capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const noticesModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.NotifyOwners)
      .toResolvedValue(
        (st: SqlStore, c, r) => new NotifyOwners({ accounts: st.accounts, notices: st.notices, outbox: st.outbox, clock: c, random: r }),
        [s, T.Clock, T.Random],
      )
      .inSingletonScope();
    bind(T.ListKeyNotices)
      .toResolvedValue((st: SqlStore, a: Authorizer<Domain>) => new ListKeyNotices(st.notices, a), [s, T.Authorizer])
      .inSingletonScope();
    bind(T.ListNotices)
      .toResolvedValue((st: SqlStore) => new ListNotices(st.notices), [s])
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const noticesUseCases = (c: Container): Pick<UseCases, 'listNotices' | 'listKeyNotices'> => ({
  listNotices: c.get(T.ListNotices),
  listKeyNotices: c.get(T.ListKeyNotices),
});
