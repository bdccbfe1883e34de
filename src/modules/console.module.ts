import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { TOKENS as T } from '../tokens.js';
import { HumanReads } from '../../core/console/human-reads.use-case.js';

/** The console capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const consoleModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.HumanReads)
      .toResolvedValue(
        (st: SqlStore, a) => new HumanReads({ domains: st.domains, zones: st.zones, accounting: a, ledger: st.ledger }),
        [s, T.Accounting],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const consoleUseCases = (c: Container): Pick<UseCases, 'humanReads' | 'consoleWork' | 'consoleAuthorizer'> => ({
  humanReads: c.get(T.HumanReads),
  consoleWork: c.get(T.Store).uow,
  consoleAuthorizer: c.get(T.Authorizer),
});
