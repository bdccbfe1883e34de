import { expect } from 'chai';
import { RIGHT_NAMES, RIGHTS, type RightName } from '../../core/kernel/rights.js';
import { isHumanOnly, type Route } from '../../adapters/http/route.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Seed A6 / A7, walked exhaustively: every route of the route table the app serves, called with a key of
 * every right (one right each) and a key holding all of them. No key ever reaches a human-only route — in
 * particular none of the six human-only actions — whatever its rights, class, environment or conditions.
 */
const SIX_ACTIONS = [
  'revealTransferCode',
  'changeRegistrant', // the transfer code; the registrant
  'listPeople',
  'invitePerson',
  'revokeInvitation',
  'changeRole',
  'removePerson',
  'issueKey',
  'listKeys',
  'revokeKey',
  'previewKey', // people and keys
  'getPaymentMethod',
  'saveSandboxCard',
  'startCardSetup',
  'completeCardSetup', // the payment method
  'disableTwoFactor',
  'startTwoFactorEnrolment',
  'enableTwoFactor', // two-factor checks (off, and on again)
  'deleteAccount', // the account
];

const samplePath = (r: Route): string =>
  r.path
    .replace('{domain}', 'domivka-demo.com.ua')
    .replace('{token}', 'A'.repeat(43))
    .replace(/\{(\w+)\}/g, 'AAAAAAAAAAAA');

eachStore('No key reaches a human-only route, whatever it carries (seed A6, walked over the route table)', (kind) => {
  let api: TestApi;
  const keys: Array<{ name: string; secret: string }> = [];
  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    const owner = await api.signIn();
    const conditions = (rights: readonly RightName[]) => {
      const cls = Math.max(...rights.map((r) => RIGHTS[r].class));
      return {
        ...(cls >= 2 ? { cidr: '127.0.0.0/8' } : {}),
        ...(rights.some((r) => RIGHTS[r].spends) ? { spend_limit: { amount: 100_000, currency: 'UAH' } } : {}),
      };
    };
    for (const right of RIGHT_NAMES) {
      for (const environment of ['test', 'live'] as const) {
        // A test-only right (sandbox.clock) is never issued to a live key.
        if (environment === 'live' && RIGHTS[right].testOnly) continue;
        const issued = await api.issueKey({ environment, rights: [right], label: 'prod', conditions: conditions([right]) }, owner);
        keys.push({ name: `${environment} ${right}`, secret: issued.secret });
      }
    }
    const all = await api.issueKey(
      {
        environment: 'test',
        rights: [...RIGHT_NAMES],
        domains: ['domivka-demo.com.ua', 'domivka-demo.dev', 'domivka-blog.kyiv.ua'],
        conditions: conditions([...RIGHT_NAMES]),
      },
      owner,
    );
    keys.push({ name: 'test, every right on every domain', secret: all.secret });
  });
  after(async () => api?.close());

  it('the six human-only actions are all in the route table, and all declared human-only', () => {
    const routes = api.system.http().routes;
    for (const id of SIX_ACTIONS) {
      const r = routes.find((x) => x.id === id);
      expect(r, id).to.not.equal(undefined);
      expect(isHumanOnly(r!), id).to.equal(true);
    }
    // No keyed route leads to a transfer code, a registrant, people, a card, two-factor or the account.
    for (const r of routes.filter((x) => !isHumanOnly(x))) {
      expect(r.path, r.id).to.not.match(/transfer-code|registrant|people|invitations|payment-method|two-factor|^\/v1\/account/);
    }
  });

  it('every route × every key: a human-only route answers 403 human_only with a console action, never anything else', async function () {
    this.timeout(600_000);
    const routes = api.system.http().routes;
    const human = routes.filter(isHumanOnly);
    expect(human.length).to.be.at.least(SIX_ACTIONS.length);
    let calls = 0;
    for (const route of routes) {
      for (const key of keys) {
        const r = await api.call(samplePath(route), {
          method: route.method,
          headers: { ...bearer(key.secret), 'idempotency-key': `walk-${calls}` },
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { json: {} }),
        });
        calls += 1;
        if (isHumanOnly(route)) {
          expect(r.status, `${route.method} ${route.path} with ${key.name}`).to.equal(403);
          expect(r.body.error.code, `${route.method} ${route.path} with ${key.name}`).to.equal('human_only');
          expect(r.body.error.actions[0]).to.deep.include({ type: 'open_console' });
          expect(r.body.error.actions[0].href).to.match(/^\/console/);
        } else {
          // A keyed or public route answers as it does (live keys: 503 environment_unavailable here) — never a crash.
          expect(r.status, `${route.method} ${route.path} with ${key.name}: ${JSON.stringify(r.body)}`).to.not.equal(500);
        }
      }
    }
    expect(calls).to.equal(routes.length * keys.length);
    // Nothing a human-only action writes happened: no event of theirs in the log.
    const events = await api.system.store.uow
      .db()('events')
      .whereIn('type', [
        'domain.transfer_code_revealed',
        'domain.registrant_changed',
        'person.invited',
        'person.joined',
        'person.role_changed',
        'person.removed',
        'account.payment_method_changed',
        'person.two_factor_disabled',
        'person.two_factor_enrolment_started',
        'person.two_factor_enabled',
        'account.deleted',
      ]);
    expect(events).to.deep.equal([]);
  });
});
