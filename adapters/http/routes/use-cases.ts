import type { DescribeKey } from '../../../core/access/describe-key.use-case.js';
import type { IssueKey } from '../../../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../../../core/access/manage-keys.use-case.js';
import type { SignIn, SignOut } from '../../../core/accounts/sign-in.use-case.js';
import type { ListDomains, GetDomain } from '../../../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../../../core/domains/search-domains.use-case.js';
import type { ListNotices } from '../../../core/notices/list-notices.use-case.js';

/** The use cases the routes call, one per route (assembled in src/, the composition root). */
export interface UseCases {
  readonly signIn: Pick<SignIn, 'execute'>;
  readonly signOut: Pick<SignOut, 'execute'>;
  readonly issueKey: Pick<IssueKey, 'preview' | 'issue'>;
  readonly listKeys: Pick<ListKeys, 'execute'>;
  readonly revokeKey: Pick<RevokeKey, 'execute'>;
  readonly describeKey: Pick<DescribeKey, 'execute'>;
  readonly getDomain: Pick<GetDomain, 'execute'>;
  readonly listDomains: Pick<ListDomains, 'execute'>;
  readonly searchDomains: Pick<SearchDomains, 'execute'>;
  readonly listNotices: Pick<ListNotices, 'execute'>;
}
