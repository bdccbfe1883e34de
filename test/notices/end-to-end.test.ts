import { expect } from 'chai';
import type { DeliveryReport } from '../../core/notices/deliver-notices.use-case.js';
import { Worker } from '../../src/worker.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer.js';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';

/**
 * Seed A5 / , end to end: the whole system in-process (HTTP API, container, store, worker)
 * with SMTP_URL pointing at a real SMTP server started by the test. An owner issues a class 2 key
 * through the API; every owner gets the notice in the app, and — for the live environment only — by
 * e-mail when the worker ticks. A mail server that is down delays the e-mail, loses none.
 */

const MINUTE = 60_000;
const FROM = 'Domivka <notices@domivka.test>';

/** A class 2 key (domain.renew spends money: a network and a monthly limit are required). */
const class2 = (environment: 'live' | 'test') => ({
  environment,
  rights: ['domain.renew'],
  label: 'prod',
  conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100000, currency: 'UAH' } },
});

interface NoticeJson {
  id: string;
  environment: 'live' | 'test';
  kind: string;
  message: { uk: string; en: string };
  data: Record<string, unknown>;
}

eachStore('Notices end to end (seed A5): API → outbox → worker → SMTP', (kind) => {
  let api: TestApi;
  const closers: Array<() => Promise<void>> = [];

  const peer = async (port?: number): Promise<SmtpPeer> => {
    const p = await startSmtpPeer(port === undefined ? {} : { port });
    closers.push(p.close);
    return p;
  };
  const start = async (smtpPort: number): Promise<TestApi> => {
    api = await startApi(kind, { env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, SMTP_FROM: FROM } });
    closers.push(() => api.close());
    return api;
  };
  const tick = async (): Promise<DeliveryReport> => (await new Worker(api.system).tick()).notices as DeliveryReport;
  const counts = () => api.system.store.outbox.counts();
  /** The in-app notice about a key, as the person signed in with `cookie` sees it. */
  const noticeOfKey = async (cookie: string, keyId: string): Promise<NoticeJson | undefined> => {
    const r = await api.call('/v1/account/notices?limit=200', { headers: { cookie } });
    expect(r.status).to.equal(200);
    return (r.body.data as NoticeJson[]).find((n) => n.kind === 'key.issued' && n.data.key_id === keyId);
  };

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('a live class 2 key: the owner sees the notice in the app and gets exactly one e-mail with both languages and the key id', async () => {
    const smtp = await peer();
    await start(smtp.port);
    expect(api.system.config.smtp).to.deep.equal({ url: smtp.url, from: FROM });
    const before = await counts();

    const cookie = await api.signIn();
    const key = await api.issueKey(class2('live'), cookie);
    expect(key.body.key.class).to.equal(2);

    // In the app at once.
    const notice = (await noticeOfKey(cookie, key.id))!;
    expect(notice, 'in-app notice').to.exist;
    expect(notice.environment).to.equal('live');
    expect(notice.message.uk)
      .to.include(key.id)
      .and.to.match(/[А-Яа-яІіЇїЄєҐґ]/);
    expect(notice.message.en).to.include(key.id).and.to.include('class 2');

    // Queued for e-mail in the same transaction, not sent before the worker runs.
    expect(await counts()).to.deep.equal({ ...before, pending: before.pending + 1 });
    expect(smtp.received).to.have.length(0);

    expect(await tick()).to.deep.equal({ sent: 1, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(1);
    const mail = smtp.received[0]!;
    expect(mail.from).to.equal('notices@domivka.test');
    expect(mail.to).to.deep.equal([api.demo.email]);
    expect(mail.headers.get('to')).to.equal(api.demo.email);
    expect(mail.headers.get('from')).to.equal(FROM);
    expect(mail.subject).to.match(/^Domivka: /);
    expect(mail.text).to.include(notice.message.uk);
    expect(mail.text).to.include(notice.message.en);
    expect(mail.text).to.include(key.id);
    expect(await counts()).to.deep.equal({ ...before, sent: before.sent + 1 });

    // A second tick, even much later, sends nothing more.
    api.clock.advance(24 * 60 * MINUTE);
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(1);
    expect(await counts()).to.deep.equal({ ...before, sent: before.sent + 1 });
  });

  it('a test-environment class 2 key: notice in the app only, no delivery row and no e-mail', async () => {
    const smtp = await peer();
    await start(smtp.port);
    const cookie = await api.signIn();
    const before = await counts();

    const key = await api.issueKey(class2('test'), cookie);
    expect(key.body.key.class).to.equal(2);
    const notice = (await noticeOfKey(cookie, key.id))!;
    expect(notice, 'in-app notice').to.exist;
    expect(notice.environment).to.equal('test');
    expect(await counts()).to.deep.equal(before);

    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    api.clock.advance(60 * MINUTE);
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(0);
    expect(await counts()).to.deep.equal(before);

    // The mail path is live in this very system: a live key now is mailed, and only it.
    const live = await api.issueKey(class2('live'), cookie);
    expect(await tick()).to.deep.equal({ sent: 1, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(1);
    expect(smtp.received[0]!.text).to.include(live.id).and.not.to.include(key.id);
  });

  it('with the mail server down a live notice stays pending, and goes out exactly once when it is back', async () => {
    const first = await peer();
    const port = first.port;
    await start(port);
    await first.close(); // the mail server goes down; SMTP_URL still points at it
    const cookie = await api.signIn();
    const before = await counts();

    const key = await api.issueKey(class2('live'), cookie);
    expect(await noticeOfKey(cookie, key.id), 'in-app notice').to.exist; // the app does not wait for mail
    expect(await counts()).to.deep.equal({ ...before, pending: before.pending + 1 });

    // The worker tries, fails, keeps it: pending with a one-minute backoff.
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 1 });
    expect(await counts()).to.deep.equal({ ...before, pending: before.pending + 1 });
    const row = await api.system.store.knex('notice_deliveries').where({ address: api.demo.email }).first();
    expect(row).to.include({ status: 'pending' });
    expect(Number(row.attempts)).to.equal(1);
    expect(row.last_error).to.match(/ECONNREFUSED|ECONNECTION/);

    // Back on the same address; before the backoff has passed nothing is tried.
    const back = await peer(port);
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(back.received).to.have.length(0);

    api.clock.advance(MINUTE);
    expect(await tick()).to.deep.equal({ sent: 1, failed: 0, retried: 0 });
    expect(back.received).to.have.length(1);
    expect(back.received[0]!.to).to.deep.equal([api.demo.email]);
    expect(back.received[0]!.text).to.include(key.id);
    expect(await counts()).to.deep.equal({ ...before, sent: before.sent + 1 });

    api.clock.advance(60 * MINUTE);
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(back.received).to.have.length(1);
    expect(first.received).to.have.length(0);
  });

  it('two owners: one live class 2 key gives two e-mails, one to each owner, and each sees the notice in the app', async () => {
    const smtp = await peer();
    await start(smtp.port);
    const second = await addPerson(api, 'owner', 'second-owner@example.com');
    const before = await counts();

    const key = await api.issueKey(class2('live'));
    expect(await counts()).to.deep.equal({ ...before, pending: before.pending + 2 });

    expect(await tick()).to.deep.equal({ sent: 2, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(2);
    expect(smtp.recipients()).to.deep.equal([api.demo.email, second.email].sort());
    for (const m of smtp.received) {
      expect(m.to).to.have.length(1); // one message per owner, never one message to both
      expect(m.headers.get('to')).to.equal(m.to[0]);
      expect(m.text).to.include(key.id);
    }
    expect(await counts()).to.deep.equal({ ...before, sent: before.sent + 2 });

    for (const who of [undefined, second]) {
      const cookie = await api.signIn(who);
      expect(await noticeOfKey(cookie, key.id), `in-app notice for ${who?.email ?? 'the demo owner'}`).to.exist;
    }
    api.clock.advance(60 * MINUTE);
    expect(await tick()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(2);
  });
});
