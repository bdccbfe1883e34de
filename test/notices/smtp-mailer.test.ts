import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SmtpMailer } from '../../adapters/notify/smtp/index.js';
import { freePort, startSmtpPeer } from '../support/smtp-peer.js';

/**
 * Seed A5 / live notices go by e-mail over SMTP with nodemailer, tested against a real SMTP
 * server started in the test (the smtp-server package, test/support/smtp-peer.ts), not a mock. The
 * peer's MIME reader is independent of nodemailer: it proves the message is standard, not just
 * nodemailer-readable.
 */

const rejection = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
};

describe('SMTP notices (seed A5): SmtpMailer against a real SMTP server', function () {
  this.timeout(15_000);

  const subject = 'Ключ класу 2 випущено / A class 2 key was issued';
  const text = [
    'Власник Олена Петренко випустила ключ «CI деплой» з правом domain.renew для domivka-demo.com.ua.',
    'Сума: 1 234,56 грн. Час: 2026-11-21T10:00:00Z. Ґанок, їжак, єнот — ’апостроф’.',
    '',
    'Owner Olena Petrenko issued the key "CI deploy" with domain.renew on domivka-demo.com.ua.',
  ].join('\n');

  it('delivers one plain-text UTF-8 message: envelope, From/To/Subject, and the Ukrainian text intact', async () => {
    const peer = await startSmtpPeer();
    try {
      const mailer = new SmtpMailer({ url: peer.url, from: 'Domivka <notices@domivka.test>' });
      await mailer.send({ to: 'olena@example.com', subject, text });
      expect(peer.received).to.have.length(1);
      const m = peer.received[0]!;
      expect(m.from).to.equal('notices@domivka.test');
      expect(m.to).to.deep.equal(['olena@example.com']);
      const { headers } = m;
      expect(headers.get('from')).to.equal('Domivka <notices@domivka.test>');
      expect(headers.get('to')).to.equal('olena@example.com');
      expect(headers.get('content-type')).to.match(/^text\/plain;\s*charset=utf-8/i);
      expect(m.subject).to.equal(subject);
      expect(headers.get('auto-submitted')).to.equal('auto-generated');
      expect(headers.has('message-id')).to.equal(true);
      expect(m.text).to.equal(text);
      // Every line on the wire is 7-bit and within RFC 5322's 998-octet limit.
      expect(/^[\x00-\x7f]*$/.test(m.raw)).to.equal(true);
      for (const line of m.raw.split('\r\n')) expect(line.length).to.be.at.most(998);
    } finally {
      await peer.close();
    }
  });

  it('rejects when the server refuses the recipient (550), carrying the server answer', async () => {
    const peer = await startSmtpPeer({ refuse: () => true });
    try {
      const mailer = new SmtpMailer({ url: peer.url, from: 'notices@domivka.test' });
      const e = await rejection(mailer.send({ to: 'nobody@example.com', subject: 'x', text: 'y' }));
      expect(e.message).to.match(/550/);
      expect(peer.received).to.have.length(0);
    } finally {
      await peer.close();
    }
  });

  it('rejects at once when nothing listens on the port', async () => {
    const port = await freePort();
    const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'notices@domivka.test', timeoutMs: 1_000 });
    const started = performance.now();
    const e = await rejection(mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' }));
    expect(e.message).to.match(/ECONNREFUSED|ECONNECTION/);
    expect(performance.now() - started).to.be.below(1_500);
  });

  it('rejects within timeoutMs when the peer accepts the connection but never greets', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${port}`, from: 'notices@domivka.test', timeoutMs: 300 });
      const started = performance.now();
      const e = await rejection(mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' }));
      const took = performance.now() - started;
      expect(e.message).to.match(/ETIMEDOUT|Greeting never received/);
      expect(took).to.be.at.least(250);
      expect(took).to.be.below(2_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('logs in with the user and password of the URL (percent-decoded)', async () => {
    const peer = await startSmtpPeer();
    try {
      const mailer = new SmtpMailer({ url: `smtp://relay%40domivka:p%40ss%3Aw0rd@127.0.0.1:${peer.port}`, from: 'notices@domivka.test' });
      await mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' });
      expect(peer.logins).to.deep.equal([{ user: 'relay@domivka', pass: 'p@ss:w0rd' }]);
      expect(peer.received).to.have.length(1);
    } finally {
      await peer.close();
    }
  });
});
