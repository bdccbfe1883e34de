import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { SmtpMailer } from '../../adapters/notify/smtp/index.js';

/**
 * Seed A5 / issue 3: live notices go by e-mail over SMTP with nodemailer, tested against a real SMTP
 * server started in the test (the smtp-server package), not a mock.
 */

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP peer on 127.0.0.1; `rejectRcpt` makes it refuse every recipient with 550. */
const startPeer = async (opts: { rejectRcpt?: boolean } = {}) => {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (opts.rejectRcpt) {
        const err = Object.assign(new Error(`<${address.address}>: mailbox unavailable`), { responseCode: 550 });
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

/** A port nobody listens on: bind one, then let it go. */
const freePort = async (): Promise<number> => {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
};

// ---- a small, independent MIME reader: proves the message is standard, not just nodemailer-readable ----

const splitMessage = (raw: string): { headers: Map<string, string>; body: string } => {
  const at = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, at).replace(/\r\n[ \t]+/g, ' '); // unfold (RFC 5322 §2.2.3)
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return { headers, body: raw.slice(at + 4) };
};

const latin1Bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

const decodeQuotedPrintable = (s: string): Buffer =>
  latin1Bytes(s.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))));

/** RFC 2047 encoded words (=?UTF-8?B?…?= / =?UTF-8?Q?…?=); whitespace between two of them is dropped. */
const decodeWords = (v: string): string =>
  v.replace(/\?=\s+=\?/g, '?==?').replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_m, charset: string, enc: string, text: string) => {
    expect(charset.toLowerCase()).to.equal('utf-8');
    const bytes = enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : decodeQuotedPrintable(text.replace(/_/g, ' '));
    return bytes.toString('utf8');
  });

const decodeBody = (headers: Map<string, string>, body: string): string => {
  expect(headers.get('content-type')).to.match(/^text\/plain;\s*charset=utf-8/i);
  const cte = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes = cte === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64') : cte === 'quoted-printable' ? decodeQuotedPrintable(body) : latin1Bytes(body);
  return bytes.toString('utf8').replace(/\r\n/g, '\n').replace(/\n$/, '');
};

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
    const peer = await startPeer();
    try {
      const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${peer.port}`, from: 'Domivka <notices@domivka.test>' });
      await mailer.send({ to: 'olena@example.com', subject, text });
      expect(peer.received).to.have.length(1);
      const m = peer.received[0]!;
      expect(m.from).to.equal('notices@domivka.test');
      expect(m.to).to.deep.equal(['olena@example.com']);
      const { headers, body } = splitMessage(m.raw);
      expect(headers.get('from')).to.equal('Domivka <notices@domivka.test>');
      expect(headers.get('to')).to.equal('olena@example.com');
      expect(decodeWords(headers.get('subject')!)).to.equal(subject);
      expect(headers.get('auto-submitted')).to.equal('auto-generated');
      expect(headers.has('message-id')).to.equal(true);
      expect(decodeBody(headers, body)).to.equal(text);
      // Every line on the wire is 7-bit and within RFC 5322's 998-octet limit.
      expect(/^[\x00-\x7f]*$/.test(m.raw)).to.equal(true);
      for (const line of m.raw.split('\r\n')) expect(line.length).to.be.at.most(998);
    } finally {
      await peer.close();
    }
  });

  it('rejects when the server refuses the recipient (550), carrying the server answer', async () => {
    const peer = await startPeer({ rejectRcpt: true });
    try {
      const mailer = new SmtpMailer({ url: `smtp://127.0.0.1:${peer.port}`, from: 'notices@domivka.test' });
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
    const logins: Array<{ user: string; pass: string }> = [];
    const server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, cb) {
        logins.push({ user: auth.username ?? '', pass: auth.password ?? '' });
        cb(null, { user: auth.username });
      },
      onData(stream, _session, cb) {
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.server.address() as AddressInfo).port;
    try {
      const mailer = new SmtpMailer({ url: `smtp://relay%40domivka:p%40ss%3Aw0rd@127.0.0.1:${port}`, from: 'notices@domivka.test' });
      await mailer.send({ to: 'a@example.com', subject: 'x', text: 'y' });
      expect(logins).to.deep.equal([{ user: 'relay@domivka', pass: 'p@ss:w0rd' }]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
