import type { Visibility } from '../../core/kernel/visibility.port.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { TOKENS as T } from '../tokens.js';
import { ListEvents } from '../../core/events/list-events.use-case.js';

/** The events capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const eventsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.ListEvents)
      .toResolvedValue((st: SqlStore, v: Visibility) => new ListEvents(st.eventFeed, v), [s, T.Visibility])
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const eventsUseCases = (c: Container): Pick<UseCases, 'listEvents'> => ({
  listEvents: c.get(T.ListEvents),
});
