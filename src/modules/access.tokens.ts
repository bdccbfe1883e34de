import { token } from './token.js';
import type { Visibility } from '../../core/kernel/visibility.port.js';
import type { Domain } from '../../core/domains/domain.js';
import type { AuthenticateKey } from '../../core/access/authenticate-key.use-case.js';
import type { Authorizer } from '../../core/access/authorize.js';
import type { DescribeKey } from '../../core/access/describe-key.use-case.js';
import type { IssueKey } from '../../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../../core/access/manage-keys.use-case.js';
import type { ResolveTsigKey } from '../../core/access/resolve-tsig-key.use-case.js';
import type { TsigCredentials } from '../../core/access/tsig-credentials.use-case.js';

/** Injection tokens of the access capability (src/ binds them by explicit token; core/ has no decorators). */
export const ACCESS_TOKENS = {
  Authorizer: token<Authorizer<Domain>>('Authorizer'),
  Visibility: token<Visibility>('Visibility'),
  AuthenticateKey: token<AuthenticateKey>('AuthenticateKey'),
  IssueKey: token<IssueKey>('IssueKey'),
  ListKeys: token<ListKeys>('ListKeys'),
  RevokeKey: token<RevokeKey>('RevokeKey'),
  DescribeKey: token<DescribeKey>('DescribeKey'),
  ResolveTsigKey: token<ResolveTsigKey>('ResolveTsigKey'),
  TsigCredentials: token<TsigCredentials>('TsigCredentials'),
} as const;
