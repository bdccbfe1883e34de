import type { ApiKey } from '../../core/kernel/caller.js';

/** A stored key for unit tests of the access rules: a class 0 test key reading one domain; override what a test is about. */
export const apiKeyFixture = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 'k1',
  accountId: 'acc-1',
  environment: 'test',
  name: 'fixture',
  createdBy: 'p-1',
  policies: [{ right: 'domain.read', resources: { domains: ['a.example'] } }],
  conditions: { cidr: null, expiresOn: '2026-12-31', spendLimit: null },
  class: 0,
  secretHash: 'x',
  createdAt: new Date('2026-11-01T00:00:00Z'),
  lastUsedAt: null,
  revokedAt: null,
  revokedBy: null,
  ...over,
});
