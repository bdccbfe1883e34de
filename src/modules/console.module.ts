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
export const consoleUseCases = (
  c: Container,
): Pick<UseCases, 'humanReads' | 'consoleWork' | 'consoleAuthorizer' | 'passwords' | 'mail' | 'consoleBox' | 'consoleForms'> => {
  const config = c.get(T.Config);
  const store = c.get(T.Store);
  return {
    humanReads: c.get(T.HumanReads),
    consoleWork: store.uow,
    consoleAuthorizer: c.get(T.Authorizer),
    passwords: c.get(T.Passwords),
    consoleBox: c.get(T.SecretBox),
    consoleForms: store.idempotency,
    // Without SMTP_URL mail waits in the outbox; outside production the console shows it (the in-app outbox).
    mail: {
      configured: config.smtp !== null,
      inApp: config.smtp === null && !config.production,
      to: (address, limit) => store.mailbox.to(address, limit),
    },
  };
};
