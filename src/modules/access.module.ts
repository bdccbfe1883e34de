import { Recorder } from '../../core/kernel/recorder.js';
import { KeyVisibility } from '../../core/access/visibility.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { AuthenticateKey } from '../../core/access/authenticate-key.use-case.js';
import { Authorizer } from '../../core/access/authorize.js';
import { DescribeKey } from '../../core/access/describe-key.use-case.js';
import { IssueKey } from '../../core/access/issue-key.use-case.js';
import { ListKeys, RevokeKey } from '../../core/access/manage-keys.use-case.js';
import { ResolveTsigKey } from '../../core/access/resolve-tsig-key.use-case.js';
import { TsigCredentials } from '../../core/access/tsig-credentials.use-case.js';
import { TOKENS as T } from '../tokens.js';

/** The access capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const accessModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.Visibility)
      .toResolvedValue((st: SqlStore) => new KeyVisibility(st.domains), [s])
      .inSingletonScope();
    bind(T.Authorizer)
      .toResolvedValue((st: SqlStore) => new Authorizer(st.domains), [s])
      .inSingletonScope();
    bind(T.AuthenticateKey)
      .toResolvedValue((st: SqlStore, h, c) => new AuthenticateKey(st.keys, h, c), [s, T.SecretHasher, T.Clock])
      .inSingletonScope();
    bind(T.IssueKey)
      .toResolvedValue(
        (st: SqlStore, h, r, c, rec: Recorder, box) =>
          new IssueKey({ keys: st.keys, events: rec, uow: st.uow, hasher: h, random: r, clock: c, secretBox: box }),
        [s, T.SecretHasher, T.Random, T.Clock, T.Recorder, T.SecretBox],
      )
      .inSingletonScope();
    bind(T.ListKeys)
      .toResolvedValue((st: SqlStore, c) => new ListKeys(st.keys, c), [s, T.Clock])
      .inSingletonScope();
    bind(T.RevokeKey)
      .toResolvedValue(
        (st: SqlStore, r, c, rec: Recorder) => new RevokeKey({ keys: st.keys, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.ResolveTsigKey)
      .toResolvedValue((st: SqlStore, box, c) => new ResolveTsigKey(st.keys, box, c, st.tsigReplays), [s, T.SecretBox, T.Clock])
      .inSingletonScope();
    bind(T.TsigCredentials)
      .toResolvedValue(
        (st: SqlStore, r, c, rec: Recorder, box) =>
          new TsigCredentials({ keys: st.keys, events: rec, uow: st.uow, random: r, clock: c, secretBox: box }),
        [s, T.Random, T.Clock, T.Recorder, T.SecretBox],
      )
      .inSingletonScope();
    bind(T.DescribeKey)
      .toResolvedValue((st: SqlStore, c) => new DescribeKey(st.spend, c), [s, T.Clock])
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const accessUseCases = (
  c: Container,
): Pick<UseCases, 'issueKey' | 'listKeys' | 'revokeKey' | 'describeKey' | 'tsigCredentials'> => ({
  issueKey: c.get(T.IssueKey),
  tsigCredentials: c.get(T.TsigCredentials),
  listKeys: c.get(T.ListKeys),
  revokeKey: c.get(T.RevokeKey),
  describeKey: c.get(T.DescribeKey),
});
