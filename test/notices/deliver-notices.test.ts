import { expect } from 'chai';
import { SmtpMailer } from '../../adapters/notify/smtp/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { backoffMs, DeliverNotices, MAX_BACKOFF_MS } from '../../core/notices/deliver-notices.use-case.js';
import type { Mailer } from '../../core/notices/ports/mailer.port.js';
import type { NoticeDelivery, NoticeOutbox } from '../../core/notices/ports/notice-outbox.port.js';
import { TestClock } from '../support/clock.js';
import { startSmtpPeer, type SmtpPeerOptions } from '../support/smtp-peer.js';
import { eachStore, type FreshStore, type StoreKind } from '../support/stores.js';

/**
 * Seed A5 / live notices are mailed through a durable outbox, so a mail server that is down
 * delays notices but loses none. Real SMTP server (smtp-server, see test/support/smtp-peer.ts), real
 * store (SQLite, and Postgres when TEST_PG_URL is set).
 */

const T0 = new Date('2026-11-21T10:00:00Z');
const MINUTE = 60_000;

/** Delays every send, so a run is still busy while another one claims. */
class SlowMailer implements Mailer {
  constructor(
    private readonly inner: Mailer,
    private readonly ms: number,
  ) {}
  async send(m: { to: string; subject: string; text: string }): Promise<void> {
    await new Promise((r) => setTimeout(r, this.ms));
    await this.inner.send(m);
  }
}

const delivery = (n: number, at: Date = T0): NoticeDelivery => ({
  id: `dlv_${n}`,
  noticeId: `ntc_${n}`,
  recipientId: `per_${n}`,
  address: `owner${n}@example.com`,
  subject: `Продовжено домен ${n} / Domain ${n} renewed`,
  body: `Домен domivka-demo.com.ua продовжено на 1 рік ключем «CI». Сума: 450,00 грн.\n\nThe domain was renewed for 1 year.`,
  attempts: 0,
  createdAt: at,
});

interface Row {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
}

const openStore = async (kind: StoreKind): Promise<{ store: SqlStore; fresh: FreshStore }> => {
  const fresh = await kind.fresh();
  const store = new SqlStore(fresh.connection);
  await store.migrate();
  return { store, fresh };
};

eachStore('Notice e-mail outbox (seed A5): DeliverNotices over SMTP', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  let clock: TestClock;
  const closers: Array<() => Promise<void>> = [];

  const rows = async (): Promise<Row[]> =>
    (
      await store.knex('notice_deliveries').select('id', 'status', 'attempts', 'next_attempt_at', 'last_error', 'sent_at').orderBy('id')
    ).map((r: Row) => ({ ...r, attempts: Number(r.attempts) }));
  const peer = async (opts: SmtpPeerOptions = {}) => {
    const p = await startSmtpPeer(opts);
    closers.push(p.close);
    return p;
  };

  // A fresh database for every test (STYLE 10): nothing depends on leftovers.
  beforeEach(async () => {
    ({ store, fresh } = await openStore(kind));
    clock = new TestClock(T0);
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await store.close();
    await fresh.drop();
  });

  it('sends every due delivery once, marks it sent, and a second run sends nothing', async () => {
    const smtp = await peer();
    await store.outbox.enqueue([delivery(1), delivery(2), delivery(3)]);
    const deliver = new DeliverNotices(
      store.outbox,
      new SmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'notices@domivka.test' }),
      clock,
    );

    expect(await deliver.run()).to.deep.equal({ sent: 3, failed: 0, retried: 0 });
    expect(smtp.recipients()).to.deep.equal(['owner1@example.com', 'owner2@example.com', 'owner3@example.com']);
    expect(smtp.received.every((m) => m.to.length === 1)).to.equal(true);
    // What was queued is what arrived: Subject and text, decoded (Ukrainian intact).
    for (const m of smtp.received) {
      const d = delivery(Number(/^owner(\d+)@/.exec(m.to[0]!)![1]));
      expect(m.subject).to.equal(d.subject);
      expect(m.text).to.equal(d.body);
    }
    expect(await store.outbox.counts()).to.deep.equal({ pending: 0, sent: 3, failed: 0 });
    for (const r of await rows()) {
      expect(r).to.include({ status: 'sent', attempts: 1, sent_at: T0.toISOString(), last_error: null });
    }

    clock.advance(7 * 24 * 60 * MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(smtp.received).to.have.length(3);
  });

  it('a delivery not yet due (created later) waits; one refused recipient does not stop the others', async () => {
    const smtp = await peer({ refuse: (a) => a === 'owner2@example.com' });
    await store.outbox.enqueue([delivery(1), delivery(2), delivery(3), delivery(4, new Date(T0.getTime() + MINUTE))]);
    const deliver = new DeliverNotices(
      store.outbox,
      new SmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'notices@domivka.test' }),
      clock,
    );

    expect(await deliver.run()).to.deep.equal({ sent: 2, failed: 0, retried: 1 });
    expect(smtp.recipients()).to.deep.equal(['owner1@example.com', 'owner3@example.com']);
    const r2 = (await rows()).find((r) => r.id === 'dlv_2')!;
    expect(r2).to.include({ status: 'pending', attempts: 1 });
    expect(r2.last_error).to.match(/550/);
    expect((await rows()).find((r) => r.id === 'dlv_4')).to.include({ status: 'pending', attempts: 0 });
  });

  it('with the SMTP server down nothing is lost: deliveries stay pending with backoff, and go out once it is back', async () => {
    const first = await startSmtpPeer();
    const port = first.port;
    await first.close(); // the mail server is down; its URL stays configured
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'notices@domivka.test', timeoutMs: 2_000 });
    const deliver = new DeliverNotices(store.outbox, mailer, clock);
    await store.outbox.enqueue([delivery(1), delivery(2)]);

    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 2 });
    for (const r of await rows()) {
      expect(r).to.include({ status: 'pending', attempts: 1, sent_at: null });
      expect(r.last_error).to.match(/ECONNREFUSED|ECONNECTION/);
      // First failure: retry in 2^0 = 1 minute.
      expect(r.next_attempt_at).to.equal(new Date(T0.getTime() + MINUTE).toISOString());
    }
    expect(await store.outbox.counts()).to.deep.equal({ pending: 2, sent: 0, failed: 0 });

    // Still down a minute later: second failure, retry in 2 minutes.
    clock.advance(MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 2 });
    for (const r of await rows()) {
      expect(r).to.include({ status: 'pending', attempts: 2 });
      expect(r.next_attempt_at).to.equal(new Date(T0.getTime() + 3 * MINUTE).toISOString());
    }

    // The server comes back on the same address. Before the backoff has passed nothing is tried.
    const back = await peer({ port });
    clock.advance(MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(back.received).to.have.length(0);

    clock.advance(MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 2, failed: 0, retried: 0 });
    expect(back.recipients()).to.deep.equal(['owner1@example.com', 'owner2@example.com']);
    expect(await store.outbox.counts()).to.deep.equal({ pending: 0, sent: 2, failed: 0 });
    for (const r of await rows()) expect(r).to.include({ status: 'sent', attempts: 3, last_error: null });

    clock.advance(60 * MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(back.received).to.have.length(2);
  });

  it('a lease: two concurrent runs at the same instant never send the same delivery twice', async () => {
    const smtp = await peer();
    const ids = [1, 2, 3, 4, 5, 6, 7, 8];
    await store.outbox.enqueue(ids.map((n) => delivery(n)));
    const url = `smtp://127.0.0.1:${smtp.port}`;
    const worker = () =>
      new DeliverNotices(store.outbox, new SlowMailer(new SmtpMailer({ url, from: 'notices@domivka.test' }), 50), clock, { batch: 5 });

    const [a, b] = await Promise.all([worker().run(), worker().run()]);
    // Both claimed at once: one got 5, the other the 3 left (on Postgres via FOR UPDATE SKIP LOCKED).
    expect([a.sent, b.sent].sort()).to.deep.equal([3, 5]);
    expect(smtp.recipients()).to.deep.equal(ids.map((n) => `owner${n}@example.com`).sort());
    expect(await store.outbox.counts()).to.deep.equal({ pending: 0, sent: 8, failed: 0 });
  });

  it('a lease across two stores (two worker processes on one database): each delivery is sent once', async function () {
    // Several workers on one database is the Postgres deployment (FOR UPDATE SKIP LOCKED). SQLite
    // write transactions begin IMMEDIATE, so separate processes queue on the write lock; but two
    // better-sqlite3 connections in ONE thread (this test) would block each other, the driver being
    // synchronous. The same-store concurrency test above covers SQLite.
    if (kind.engine === 'sqlite') this.skip();
    const smtp = await peer();
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    await store.outbox.enqueue(ids.map((n) => delivery(n)));
    const other = new SqlStore(fresh.connection);
    closers.push(() => other.close());
    const url = `smtp://127.0.0.1:${smtp.port}`;
    const worker = (s: SqlStore) =>
      new DeliverNotices(s.outbox, new SlowMailer(new SmtpMailer({ url, from: 'notices@domivka.test' }), 20), clock, { batch: 4 });

    const reports = await Promise.all([worker(store).run(), worker(other).run(), worker(store).run(), worker(other).run()]);
    expect(reports.reduce((n, r) => n + r.sent, 0)).to.equal(12);
    expect(smtp.recipients()).to.deep.equal(ids.map((n) => `owner${n}@example.com`).sort());
    expect(await store.outbox.counts()).to.deep.equal({ pending: 0, sent: 12, failed: 0 });
  });

  it('a worker that dies holding a lease loses nothing: the delivery comes due again when the lease runs out', async () => {
    const smtp = await peer();
    await store.outbox.enqueue([delivery(1)]);
    // A worker claims with a one-minute lease, then dies before sending.
    expect(await store.outbox.claimDue(T0, 20, new Date(T0.getTime() + MINUTE))).to.have.length(1);
    const deliver = new DeliverNotices(
      store.outbox,
      new SmtpMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'notices@domivka.test' }),
      clock,
    );

    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    clock.advance(MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 1, failed: 0, retried: 0 });
    expect(smtp.recipients()).to.deep.equal(['owner1@example.com']);
  });

  it('gives up after maxAttempts failures (status failed) and never tries again', async () => {
    const first = await startSmtpPeer();
    const port = first.port;
    await first.close();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'notices@domivka.test', timeoutMs: 2_000 });
    const deliver = new DeliverNotices(store.outbox, mailer, clock, { maxAttempts: 4 });
    await store.outbox.enqueue([delivery(1)]);

    // Backoff after attempts 1, 2, 3: 1, 2, 4 minutes; the 4th failure gives up.
    for (const [wait, expected] of [
      [0, 'retried'],
      [1, 'retried'],
      [2, 'retried'],
      [4, 'failed'],
    ] as const) {
      clock.advance(wait * MINUTE);
      const report = await deliver.run();
      expect(report, `after ${wait} min`).to.deep.equal({
        sent: 0,
        failed: expected === 'failed' ? 1 : 0,
        retried: expected === 'retried' ? 1 : 0,
      });
    }
    const [r] = await rows();
    expect(r).to.include({ status: 'failed', attempts: 4, sent_at: null });
    expect(r!.last_error).to.match(/ECONNREFUSED|ECONNECTION/);
    expect(await store.outbox.counts()).to.deep.equal({ pending: 0, sent: 0, failed: 1 });

    // Even with the server back and days later, a given-up delivery stays given up.
    const back = await peer({ port });
    clock.advance(3 * 24 * 60 * MINUTE);
    expect(await deliver.run()).to.deep.equal({ sent: 0, failed: 0, retried: 0 });
    expect(back.received).to.have.length(0);
  });
});

/** The rules of DeliverNotices that need no database: backoff numbers and the lease guard. */
describe('DeliverNotices rules', () => {
  it('backs off 1, 2, 4 … minutes after each failed attempt, never more than 6 hours', () => {
    expect([0, 1, 2, 3, 8].map(backoffMs)).to.deep.equal([1, 2, 4, 8, 256].map((m) => m * MINUTE));
    expect(backoffMs(9)).to.equal(MAX_BACKOFF_MS);
    expect(backoffMs(40)).to.equal(6 * 60 * MINUTE);
  });

  /** An outbox in memory that records what the use case tells it. */
  class MemoryOutbox implements NoticeOutbox {
    readonly calls: string[] = [];
    constructor(private readonly due: NoticeDelivery[]) {}
    async enqueue(): Promise<void> {}
    async claimDue(): Promise<NoticeDelivery[]> {
      return this.due.splice(0);
    }
    async markSent(id: string): Promise<void> {
      this.calls.push(`sent ${id}`);
    }
    async markFailed(id: string, error: string, retryAt: Date | null): Promise<void> {
      this.calls.push(`failed ${id} ${error} ${retryAt ? retryAt.toISOString() : 'never'}`);
    }
    async counts() {
      return { pending: 0, sent: 0, failed: 0 };
    }
  }

  it('a mailer that throws anything (even a non-Error) is recorded, and the run goes on', async () => {
    const clock = new TestClock(T0);
    const outbox = new MemoryOutbox([delivery(1), { ...delivery(2), attempts: 11 }, delivery(3)]);
    const mailer: Mailer = {
      async send(m) {
        if (m.to === 'owner1@example.com') throw 'connection reset';
        if (m.to === 'owner2@example.com') throw new Error('421 try later');
      },
    };
    expect(await new DeliverNotices(outbox, mailer, clock).run()).to.deep.equal({ sent: 1, failed: 1, retried: 1 });
    expect(outbox.calls).to.deep.equal([
      `failed dlv_1 connection reset ${new Date(T0.getTime() + MINUTE).toISOString()}`,
      'failed dlv_2 421 try later never', // the 12th attempt: given up
      'sent dlv_3',
    ]);
  });

  it('starts a send only if it can end before the lease does (another worker may own the rest after)', async () => {
    const clock = new TestClock(T0);
    const outbox = new MemoryOutbox([delivery(1), delivery(2), delivery(3)]);
    const sent: string[] = [];
    const mailer: Mailer = {
      async send(m) {
        sent.push(m.to);
        clock.advance(25_000); // each send takes 25 s; the lease is 60 s and a send may take up to 30 s
      },
    };
    const run = new DeliverNotices(outbox, mailer, clock, { leaseMs: 60_000, sendBudgetMs: 30_000 });
    // t=0: 0+30 < 60, send; t=25: 55 < 60, send; t=50: 80 ≥ 60, stop.
    expect(await run.run()).to.deep.equal({ sent: 2, failed: 0, retried: 0 });
    expect(sent).to.deep.equal(['owner1@example.com', 'owner2@example.com']);
    expect(outbox.calls).to.deep.equal(['sent dlv_1', 'sent dlv_2']); // dlv_3 stays leased, due again later
  });
});
