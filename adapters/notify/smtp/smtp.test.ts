import { expect } from 'chai';
import { SmtpMailer } from './index.js';

/** The constructor validates its config (STYLE 4); the real-server tests are in test/notices/smtp-mailer.test.ts. */
describe('SmtpMailer config', () => {
  const ok = { url: 'smtp://127.0.0.1:2525', from: 'Domivka <notices@domivka.test>' };

  it('accepts smtp:// and smtps:// URLs, with or without credentials and port', () => {
    for (const url of ['smtp://127.0.0.1:2525', 'smtps://mail.example.com', 'smtp://u:p@mail.example.com:587', 'smtp://[::1]:25']) {
      expect(() => new SmtpMailer({ ...ok, url })).not.to.throw();
    }
  });

  it('refuses another scheme, a path or query, or a non-URL', () => {
    for (const url of [
      'http://mail.example.com',
      'mail.example.com:25',
      'smtp://mail.example.com/x',
      'smtp://mail.example.com?secure=false',
      '',
    ]) {
      expect(() => new SmtpMailer({ ...ok, url }), url).to.throw(TypeError, /SMTP mailer config/);
    }
  });

  it('never echoes the password in a config error', () => {
    expect(() => new SmtpMailer({ ...ok, url: 'http://user:s3cret@mail.example.com' }))
      .to.throw(TypeError)
      .with.property('message')
      .that.does.not.include('s3cret');
  });

  it('refuses a From that is not one address or that carries a line break (header injection)', () => {
    for (const from of ['', 'notices', 'a@b.c\r\nBcc: victim@example.com']) {
      expect(() => new SmtpMailer({ ...ok, from }), JSON.stringify(from)).to.throw(TypeError, /from/);
    }
  });

  it('refuses a timeout that is not a positive integer', () => {
    for (const timeoutMs of [0, -1, 1.5, Number.NaN]) {
      expect(() => new SmtpMailer({ ...ok, timeoutMs }), String(timeoutMs)).to.throw(TypeError, /timeoutMs/);
    }
  });
});
