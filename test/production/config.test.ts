import { expect } from 'chai';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, ownDns } from '../../src/config.js';
import { startCompiled } from '../support/compiled-process.js';

const HEX = 'c3'.repeat(32);

const problemsOf = (env: NodeJS.ProcessEnv): readonly string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

/** NODE_ENV=production: the whole configuration checked at once, every problem naming its variable. */
describe('production mode: configuration', () => {
  const fresh = () => mkdtempSync(join(tmpdir(), 'prod-config-'));
  const good = (dir: string): NodeJS.ProcessEnv => ({
    NODE_ENV: 'production',
    VAR_DIR: dir,
    DATABASE_URL: join(dir, 'db.sqlite'),
    KEY_PEPPER: HEX,
    DATA_KEY: HEX,
    COOKIE_SECURE: 'true',
  });

  it('a correct production configuration: no demo, sandbox DNS on its own port, metrics on 127.0.0.1:9464', () => {
    const c = loadConfig(good(fresh()));
    expect(c.production).to.equal(true);
    expect(c.seedDemo).to.equal(false);
    expect(c.sandboxDns).to.deep.equal({ host: '127.0.0.1', port: 5354 });
    expect(ownDns(c, 'test')).to.deep.equal({ host: '127.0.0.1', port: 5354 });
    expect(ownDns(c, 'live')).to.deep.equal({ host: '127.0.0.1', port: 5353 });
    expect(c.metrics).to.deep.equal({ host: '127.0.0.1', port: 9464 });
  });

  it('development keeps sandbox zones on DNS_PORT', () => {
    const dir = fresh();
    const c = loadConfig({ VAR_DIR: dir, DATABASE_URL: join(dir, 'db.sqlite'), SANDBOX_DNS_PORT: '6000' });
    expect(c.sandboxDns).to.equal(null);
    expect(ownDns(c, 'test')).to.deep.equal({ host: '127.0.0.1', port: 5353 });
  });

  it('never generates KEY_PEPPER or DATA_KEY; every problem is reported at once, each with its variable', () => {
    const dir = fresh();
    const problems = problemsOf({
      NODE_ENV: 'production',
      VAR_DIR: dir,
      DATABASE_URL: join(dir, 'db.sqlite'),
      COOKIE_SECURE: 'auto',
      WEBHOOKS_ALLOW_LOOPBACK: '1',
      MONITORS_ALLOW_LOOPBACK: 'true',
      DNS_IMPORT_ALLOW_LOOPBACK: '1',
      SEED_DEMO: 'true',
      PORT: 'eighty',
      DNS_PORT: '5400',
      SANDBOX_DNS_PORT: '5400',
    });
    for (const name of [
      'KEY_PEPPER',
      'DATA_KEY',
      'COOKIE_SECURE',
      'WEBHOOKS_ALLOW_LOOPBACK',
      'MONITORS_ALLOW_LOOPBACK',
      'DNS_IMPORT_ALLOW_LOOPBACK',
      'SEED_DEMO',
      'PORT must',
      'SANDBOX_DNS_PORT',
    ]) {
      expect(
        problems.some((p) => p.startsWith(name)),
        `${name} in ${problems.join('\n')}`,
      ).to.equal(true);
    }
    expect(existsSync(join(dir, 'key-pepper')), 'no pepper generated').to.equal(false);
    expect(existsSync(join(dir, 'data-key')), 'no data key generated').to.equal(false);
  });

  it('ports, the DNS addresses, AXFR_ALLOW and SMTP_URL are checked with the rest, not by a stack trace after the store was migrated', () => {
    const dir = fresh();
    const problems = problemsOf({
      ...good(dir),
      PORT: '99999',
      DNS_PORT: '70000',
      METRICS_PORT: '-1',
      SANDBOX_DNS_PORT: '65536',
      DNS_HOST: 'garbage',
      AXFR_ALLOW: '127.0.0.1,garbage,10.0.0.0/33',
      DNS_SECONDARIES: '192.0.2.1:53,ns.example:53,192.0.2.2:0',
      SMTP_URL: 'user:secret-password@notaurl',
    });
    expect(problems).to.deep.equal([
      'DNS_HOST must be an IP address, got "garbage"',
      'PORT must be an integer 0–65535, got "99999"',
      'DNS_PORT must be an integer 0–65535, got "70000"',
      'AXFR_ALLOW entries are IP addresses or CIDR networks, got "garbage"',
      'AXFR_ALLOW entries are IP addresses or CIDR networks, got "10.0.0.0/33"',
      'DNS_SECONDARIES entries are an IP address and a port 1–65535 (192.0.2.1:53, [2001:db8::1]:53), got "ns.example:53"',
      'DNS_SECONDARIES entries are an IP address and a port 1–65535 (192.0.2.1:53, [2001:db8::1]:53), got "192.0.2.2:0"',
      'SMTP_URL must be an smtp:// or smtps:// URL with a host',
      'SANDBOX_DNS_PORT must be an integer 0–65535, got "65536"',
      'METRICS_PORT must be an integer 0–65535, got "-1"',
    ]);
    expect(problems.join('\n'), 'the mail password is never echoed').not.to.contain('secret-password');
    // What a correct configuration of the same settings gives.
    const c = loadConfig({
      ...good(dir),
      DNS_HOST: '::',
      AXFR_ALLOW: '127.0.0.1, 10.0.0.0/8, 2001:db8::/32',
      DNS_SECONDARIES: '192.0.2.1:53,[2001:db8::1]:5300',
      SMTP_URL: 'smtps://u:p@mail.example:465',
    });
    expect(c.dnsHost).to.equal('::');
    expect(c.axfrAllow).to.deep.equal(['127.0.0.1', '10.0.0.0/8', '2001:db8::/32']);
    expect(c.dnsSecondaries).to.deep.equal([
      { host: '192.0.2.1', port: 53 },
      { host: '2001:db8::1', port: 5300 },
    ]);
  });

  it('takes the secrets from existing files in VAR_DIR and says which', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'key-pepper'), HEX);
    writeFileSync(join(dir, 'data-key'), HEX);
    const env = good(dir);
    delete env.KEY_PEPPER;
    delete env.DATA_KEY;
    const c = loadConfig(env);
    expect(c.keyPepper.toString('hex')).to.equal(HEX);
    expect(c.secretFiles).to.deep.equal([`KEY_PEPPER from ${join(dir, 'key-pepper')}`, `DATA_KEY from ${join(dir, 'data-key')}`]);
  });

  it('a secret file that is not 64 hex digits is refused with its variable and path', () => {
    const dir = fresh();
    writeFileSync(join(dir, 'key-pepper'), 'short');
    const env = good(dir);
    delete env.KEY_PEPPER;
    const problems = problemsOf(env);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^KEY_PEPPER must be at least 64 hex digits .*key-pepper/);
  });

  it('npm start in production with a bad configuration prints every problem and exits non-zero, serving nothing', async function () {
    this.timeout(60_000);
    const p = await startCompiled(
      { NODE_ENV: 'production', KEY_PEPPER: '', DATA_KEY: '', COOKIE_SECURE: 'false', WEBHOOKS_ALLOW_LOOPBACK: '1' },
      { waitHealthy: false },
    );
    expect(await p.exited).to.equal(1);
    const out = p.output();
    expect(out).to.contain('Configuration errors (4):');
    for (const name of ['KEY_PEPPER', 'DATA_KEY', 'COOKIE_SECURE', 'WEBHOOKS_ALLOW_LOOPBACK']) expect(out).to.contain(`  - ${name}`);
    expect(existsSync(join(p.dir, 'db.sqlite')), 'nothing created before the configuration is checked').to.equal(false);
  });
});
