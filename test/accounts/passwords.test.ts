import { expect } from 'chai';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { totpFor } from '../console/browser.js';

/**
 * Password reset by e-mailed link (core/accounts/passwords.use-case.ts): nothing for an unknown address,
 * the token stored only hashed, one use, 30 minutes, a newer link ends the older, the one-time code still
 * asked, and the credential limiter in front of it all.
 */
eachStore('Password reset and change', (kind) => {
  let api: TestApi;
  const passwords = () => api.system.get(TOKENS.Passwords);
  const tokens = async (address: string) =>
    (await api.system.store.mailbox.to(address, 100)).map((m) => /token=([0-9A-Za-z]{43})/.exec(m.body)![1]!);

  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api?.close());

  it('an unknown address gets the same answer and no mail; a known one gets a link whose token is stored only hashed', async () => {
    await passwords().requestReset({ email: 'nobody@example.com', address: '192.0.2.1' });
    expect(await api.system.store.mailbox.to('nobody@example.com', 10)).to.have.length(0);
    await passwords().requestReset({ email: ` ${api.demo.email.toUpperCase()} `, address: '192.0.2.1' });
    const [token] = await tokens(api.demo.email);
    const rows: Array<Record<string, unknown>> = await api.system.store.knex('password_resets').select();
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).to.not.include(token!);
    expect((await passwords().inspectReset(token!)).email).to.equal(api.demo.email);
  });

  it('a wrong code keeps the link; the right one sets the password once; the link never works again', async () => {
    const [token] = await tokens(api.demo.email);
    try {
      await passwords().completeReset({ token: token!, password: 'another long password', totp: '000000', address: '192.0.2.2' });
      expect.fail('a wrong code');
    } catch (e) {
      expect((e as { code: string }).code).to.equal('sign_in_failed');
    }
    await passwords().completeReset({
      token: token!,
      password: 'another long password',
      totp: await totpFor(api, api.demo.totpSecret),
      address: '192.0.2.2',
    });
    const person = (await api.system.store.accounts.findPerson(api.demo.personId))!;
    expect(await api.system.get(TOKENS.PasswordHasher).verify(person.passwordHash, 'another long password')).to.equal(true);
    for (const attempt of [
      () => passwords().inspectReset(token!),
      () => passwords().completeReset({ token: token!, password: 'x'.repeat(20), totp: '', address: '192.0.2.2' }),
    ]) {
      try {
        await attempt();
        expect.fail('a used link');
      } catch (e) {
        expect((e as { code: string }).code).to.equal('password_reset_invalid');
      }
    }
  });

  it('a link lasts 30 minutes, and a newer link ends the older ones once used', async () => {
    await passwords().requestReset({ email: api.demo.email, address: '192.0.2.3' });
    api.clock.advance(31 * 60_000);
    const [old] = await tokens(api.demo.email);
    try {
      await passwords().inspectReset(old!);
      expect.fail('expired');
    } catch (e) {
      expect((e as { code: string }).code).to.equal('password_reset_invalid');
    }
    await passwords().requestReset({ email: api.demo.email, address: '192.0.2.3' });
    api.clock.advance(60_000);
    await passwords().requestReset({ email: api.demo.email, address: '192.0.2.3' });
    const [newest, older] = await tokens(api.demo.email);
    await passwords().completeReset({
      token: newest!,
      password: 'third long password',
      totp: await totpFor(api, api.demo.totpSecret),
      address: '192.0.2.3',
    });
    try {
      await passwords().inspectReset(older!);
      expect.fail('ended by the newer one');
    } catch (e) {
      expect((e as { code: string }).code).to.equal('password_reset_invalid');
    }
  });

  it('the credential limiter slows a flood of reset requests for one address', async () => {
    let refused = null as null | { code: string };
    for (let i = 0; i < 8 && !refused; i++) {
      try {
        await passwords().requestReset({ email: 'flood@example.com', address: '198.51.100.7' });
      } catch (e) {
        refused = e as { code: string };
      }
    }
    expect(refused?.code).to.equal('too_many_attempts');
  });
});
