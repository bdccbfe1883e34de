import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../../src/tokens.js';
import type { TestApi } from '../../support/system.js';

/**
 * A second account beside the demo, written straight to the store: an owner who can sign in (e-mail,
 * password, TOTP secret returned), 5 000 UAH of sandbox balance and one test domain labelled "prod"
 * with a zone. Hostile suites use it to show one account's keys never reach another's records.
 */
export const secondAccount = async (api: TestApi, domain: string) => {
  const s = api.system.store;
  const accountId = `acct-b-${randomUUID().slice(0, 8)}`;
  const personId = `p-${accountId}`;
  const email = `owner-b-${accountId}@example.com`;
  const password = `pw-${accountId}`;
  const totpSecret = api.system.get(TOKENS.Totp).generateSecret();
  await s.accounts.insertAccount({ id: accountId, name: 'B', createdAt: api.clock.now() });
  await s.accounts.insertPerson({
    id: personId,
    accountId,
    email,
    name: 'B owner',
    role: 'owner',
    passwordHash: await api.system.get(TOKENS.PasswordHasher).hash(password),
    totpSecret: api.system.get(TOKENS.SecretBox).seal(totpSecret),
    totpLastStep: null,
    lastSignInAt: null,
    createdAt: api.clock.now(),
  });
  await s.domains.insert({
    id: `d-${accountId}`,
    accountId,
    environment: 'test',
    name: domain,
    labels: ['prod'],
    status: ['clientTransferProhibited'],
    expiresOn: '2030-01-01',
    autoRenew: true,
    transferLock: true,
    nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
    createdAt: api.clock.now(),
  });
  await api.system
    .get(TOKENS.ZoneService)
    .create(accountId, 'test', domain, [{ name: domain, type: 'A', ttl: 300, values: ['192.0.2.99'] }]);
  await api.system
    .get(TOKENS.Accounting)
    .credit({ accountId, environment: 'test', amount: 500_000, kind: 'grant', keyId: null, description: 'B grant' });
  return { accountId, personId, email, password, totpSecret };
};
