import { expect } from 'chai';
import pino from 'pino';
import type { DeliverWebhooks } from '../../core/webhooks/deliver-webhooks.use-case.js';
import type { PublishEvents } from '../../core/webhooks/publish-events.use-case.js';
import { IDLE_MAX_MS, nextIdleMs, WebhookDispatcher } from '../../src/webhook-dispatcher.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { emitEvent } from './emit.js';

describe('Webhook dispatcher: idle back-off and nudges', () => {
  it('an idle sleep starts at WEBHOOKS_POLL_MS and doubles up to a second (or the poll, if longer)', () => {
    const sleeps: number[] = [];
    for (let ms = 0, i = 0; i < 6; i++) sleeps.push((ms = nextIdleMs(ms, 100)));
    expect(sleeps).to.deep.equal([100, 200, 400, 800, IDLE_MAX_MS, IDLE_MAX_MS]);
    expect(nextIdleMs(0, 5000)).to.equal(5000);
    expect(nextIdleMs(5000, 5000)).to.equal(5000);
    expect(nextIdleMs(100, 100, 100)).to.equal(100); // WEBHOOKS_IDLE_MAX_MS = WEBHOOKS_POLL_MS: no back-off
    expect(nextIdleMs(800, 100, 3000)).to.equal(1600);
  });

  it('a nudge starts a pass while the dispatcher sleeps (here a sleep of a minute: only the nudge can end it)', async () => {
    let passes = 0;
    let onPass: (() => void) | null = null;
    const publish = {
      run: async () => {
        passes++;
        onPass?.();
        return { taken: 0 };
      },
    } as unknown as PublishEvents;
    const deliver = { claim: async () => ({ token: 't', deliveries: [] }) } as unknown as DeliverWebhooks;
    const d = new WebhookDispatcher(
      publish,
      deliver,
      { pollMs: 60_000, concurrency: 1, leaseMs: 60_000, timeoutMs: 1000, perEndpoint: 1 },
      pino({ level: 'silent' }),
    );
    const next = () => new Promise<void>((resolve) => (onPass = resolve));
    const first = next();
    d.start();
    try {
      await first;
      await new Promise((r) => setTimeout(r, 50)); // asleep now, for a minute
      const again = next();
      d.nudge();
      await again;
      expect(passes).to.equal(2);
    } finally {
      await d.stop();
    }
  });
});

eachStore('Event log: appended events are announced in this process once committed', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('after the commit, never for a transaction rolled back', async () => {
    let heard = 0;
    const off = api.system.store.events.onAppended(() => heard++);
    try {
      await emitEvent(api, 'domain.auto_renew_changed', 'domain:domivka-demo.dev', { domain: 'domivka-demo.dev', auto_renew: false });
      expect(heard).to.equal(1);
      const s = api.system.store;
      await s.uow
        .transaction(async () => {
          await s.events.append({
            id: crypto.randomUUID(),
            accountId: api.demo.accountId,
            environment: 'test',
            type: 'domain.auto_renew_changed',
            subject: 'domain:domivka-demo.dev',
            actor: 'test',
            occurredAt: api.clock.now(),
            data: { domain: 'domivka-demo.dev', auto_renew: true },
          });
          expect(heard).to.equal(1); // not before the commit
          throw new Error('roll back');
        })
        .catch((err: Error) => expect(err.message).to.equal('roll back'));
      expect(heard).to.equal(1);
    } finally {
      off();
    }
    await emitEvent(api, 'domain.auto_renew_changed', 'domain:domivka-demo.dev', { domain: 'domivka-demo.dev', auto_renew: false });
    expect(heard).to.equal(1); // unsubscribed
  });
});
