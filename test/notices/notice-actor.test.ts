import { expect } from 'chai';
import type { EventRecorder } from '../../core/kernel/event-log.port.js';
import type { EventOf, TypedEvent } from '../../core/kernel/events.js';
import { noticeFor, noticesOnEvent } from '../../core/notices/on-event.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';

/**
 * A notice names whoever acted: a key by its id, a person (the console) by name and e-mail — never "Key null"
 * for a person's top-up, nor a bare person id (a browser walk found both).
 */
const topup = (actor: string): EventOf<'billing.topup_succeeded'> =>
  ({
    id: 'evt_1',
    accountId: 'acc_1',
    environment: 'test',
    type: 'billing.topup_succeeded',
    subject: 'topup:tp_1',
    actor,
    occurredAt: new Date('2026-11-28T10:00:00Z'),
    data: { amount: 25_000, provider_id: 'pi_1', card: { brand: 'visa', last4: '4242' } },
  }) as EventOf<'billing.topup_succeeded'>;

describe('notices: who acted', () => {
  it('a key by its id; a person by the name given, or "Person <id>" when none is left; never "null"', () => {
    expect(noticeFor(topup('key:key_7'))!.message.en).to.match(/^Key key_7 topped up the balance by 250\.00 UAH/);
    const byPerson = noticeFor(topup('person:per_9'), 'Olena Koval <olena@example.com>')!;
    expect(byPerson.message.en).to.match(/^Olena Koval <olena@example\.com> topped up the balance by 250\.00 UAH/);
    expect(byPerson.message.uk).to.match(/^Olena Koval <olena@example\.com> поповнив баланс на 250\.00 грн/);
    expect(byPerson.data).to.include({ key_id: null });
    expect(noticeFor(topup('person:per_9'))!.message.en).to.match(/^Person per_9 topped up/);
    expect(JSON.stringify(noticeFor(topup('person:per_9'), 'A <a@b>'))).not.to.contain('null topped');
  });

  it('the subscriber asks for the name of a person only, and only for events that make a notice', async () => {
    const asked: string[] = [];
    const sent: string[] = [];
    const subscriber = noticesOnEvent(
      { send: async (n) => sent.push(n.message.en) },
      { nameOf: async (id) => (asked.push(id), `Name of ${id}`) },
    );
    await subscriber(topup('person:per_1') as TypedEvent);
    await subscriber(topup('key:key_1') as TypedEvent);
    await subscriber({
      ...topup('person:per_2'),
      type: 'dns.plan_applied',
      data: { plan_id: 'pln_1', serial: 2, counts: { create: 1, update: 0, delete: 0, errors: 0, warnings: 0 } },
    });
    expect(asked).to.deep.equal(['per_1']);
    expect(sent.map((m) => m.split(' topped')[0])).to.deep.equal(['Name of per_1', 'Key key_1']);
  });
});

eachStore('notices: a person who acted is named by name and e-mail, read in the event’s transaction', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });

  it('top-ups by a person of the account, and by one no longer in it', async () => {
    const second = await addPerson(api, 'owner', 'second-owner@example.com');
    const recorder = api.system.get(TOKENS.Recorder) as EventRecorder;
    const facts = (personId: string) => ({
      accountId: api.demo.accountId,
      environment: 'test' as const,
      subject: 'topup:tp_x',
      actor: `person:${personId}`,
      occurredAt: api.clock.now(),
    });
    const store = api.system.store;
    await store.uow.transaction(() =>
      recorder.record('billing.topup_succeeded', facts(second.id), {
        amount: 30_000,
        provider_id: 'pi_x',
        card: { brand: 'visa', last4: '4242' },
      }),
    );
    await store.uow.transaction(() =>
      recorder.record('billing.topup_succeeded', facts('per_gone'), {
        amount: 100,
        provider_id: 'pi_y',
        card: { brand: 'visa', last4: '4242' },
      }),
    );
    const notices = await store.notices.listForAccount(api.demo.accountId, 'test', undefined, 50);
    const texts = notices.filter((n) => n.kind === 'billing.topup').map((n) => n.message.en);
    // addPerson names a person by their e-mail: then the e-mail alone.
    expect(
      texts.some((t) => t.startsWith('second-owner@example.com topped up the balance by 300.00 UAH')),
      texts.join('\n'),
    ).to.equal(true);
    expect(
      texts.some((t) => t.startsWith('Person per_gone topped up the balance by 1.00 UAH')),
      texts.join('\n'),
    ).to.equal(true);
    expect(texts.join('\n')).not.to.match(/Key null|Person [0-9a-f]{20}/);
  });
});
