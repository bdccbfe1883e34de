import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';
import { HOOKS, OTHER_ZONE, ZONE, run } from './harness.js';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const SCRIPTS = ['domivka-acme.sh', 'lego-exec.sh', 'certbot-auth.sh', 'certbot-cleanup.sh', 'dns_domivka.sh'];

/** The shipped hook scripts on their own: syntax, lint, and their contract with the API. */
describe('examples/acme-hooks: the scripts', () => {
  it('are all there, executable, and pass sh -n (and shellcheck when installed)', async () => {
    expect(
      readdirSync(HOOKS)
        .filter((f) => f.endsWith('.sh'))
        .sort(),
    ).to.deep.equal([...SCRIPTS].sort());
    for (const f of SCRIPTS) {
      accessSync(join(HOOKS, f), constants.X_OK);
      const n = await run('sh', ['-n', join(HOOKS, f)], {});
      expect(n.code, `${f}: ${n.out}`).to.equal(0);
    }
    if (has('shellcheck')) {
      const lint = await run('shellcheck', ['--shell=sh', ...SCRIPTS.map((f) => join(HOOKS, f))], {});
      expect(lint.code, lint.out).to.equal(0);
    }
  });

  it('refuse to run without a key or with a malformed name, saying why (exit 2)', async () => {
    const noKey = await run(join(HOOKS, 'lego-exec.sh'), ['present', `_acme-challenge.${ZONE}.`, 'abc'], {
      DOMIVKA_API: 'http://127.0.0.1:9',
    });
    expect(noKey.code).to.equal(2);
    expect(noKey.out).to.contain('DOMIVKA_KEY is not set');
    const bad = await run(join(HOOKS, 'lego-exec.sh'), ['present', '_acme-challenge.x;rm -rf /.', 'abc'], { DOMIVKA_KEY: 'k' });
    expect(bad.code).to.equal(2);
    expect(bad.out).to.contain('not a host name');
    const certbot = await run(join(HOOKS, 'certbot-auth.sh'), [], { DOMIVKA_KEY: 'k' });
    expect(certbot.code).to.equal(2);
    expect(certbot.out).to.contain('CERTBOT_DOMAIN and CERTBOT_VALIDATION are not set');
  });

  it('an API that cannot be reached is a clear failure (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acme-hooks-state-'));
    const r = await run(
      join(HOOKS, 'domivka-acme.sh'),
      ['present', ZONE, 'abc'],
      {
        DOMIVKA_API: 'http://127.0.0.1:9',
        DOMIVKA_KEY: 'dmk_test_secret',
        DOMIVKA_DOMAIN: ZONE,
        DOMIVKA_STATE_DIR: dir,
      },
      20_000,
    );
    rmSync(dir, { recursive: true, force: true });
    expect(r.code, r.out).to.equal(1);
    expect(r.out).to.contain('cannot reach http://127.0.0.1:9');
    expect(r.out).not.to.contain('dmk_test_secret');
  });
});

eachStore('examples/acme-hooks against the API', (kind) => {
  let api: TestApi;
  let acmeKey: string;
  let readKey: string;
  let state: string;
  before(async function () {
    if (!has('curl')) {
      if (process.env.CI) throw new Error('curl is required in CI');
      this.skip();
    }
    api = await startApi(kind, { dns: true });
    acmeKey = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [ZONE] })).secret;
    readKey = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: [ZONE] })).secret;
    state = mkdtempSync(join(tmpdir(), 'acme-hooks-state-'));
  });
  after(async () => {
    await api?.close();
    if (state) rmSync(state, { recursive: true, force: true });
  });

  const hook = (args: string[], env: Record<string, string> = {}) =>
    run(join(HOOKS, 'domivka-acme.sh'), args, { DOMIVKA_API: api.base, DOMIVKA_KEY: acmeKey, DOMIVKA_STATE_DIR: state, ...env });
  const txt = async (name: string): Promise<string[]> => {
    const r = await api.call(`/v1/domains/${ZONE}/dns/records?name=${name}&type=TXT`, { headers: bearer(readKey) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.data.flatMap((s: { values: string[] }) => s.values);
  };

  it('present finds the zone from the name, is safe to repeat, and cleanup removes the value', async () => {
    const name = `_acme-challenge.shop.${ZONE}.`;
    const one = await hook(['present', name, 'value-one']);
    expect(one.code, one.out).to.equal(0);
    expect(one.out).to.match(
      new RegExp(
        `added TXT _acme-challenge\\.shop\\.${ZONE.replace(/\./g, '\\.')} in zone ${ZONE.replace(/\./g, '\\.')} \\(challenge \\w+\\)`,
      ),
    );
    const again = await hook(['present', name, 'value-one']); // a retried hook: the same challenge, not a second one
    expect(again.code, again.out).to.equal(0);
    expect(again.out.match(/challenge (\w+)/)![1]).to.equal(one.out.match(/challenge (\w+)/)![1]);
    expect(await txt(`_acme-challenge.shop.${ZONE}`)).to.deep.equal(['value-one']);

    const gone = await hook(['cleanup', name, 'value-one']);
    expect(gone.code, gone.out).to.equal(0);
    expect(gone.out).to.contain(`removed TXT _acme-challenge.shop.${ZONE}`);
    expect(await txt(`_acme-challenge.shop.${ZONE}`)).to.deep.equal([]);
    // The same value presented again after its cleanup (a CA reusing a pending authorization) is added anew.
    const back = await hook(['present', name, 'value-one']);
    expect(back.code, back.out).to.equal(0);
    expect(await txt(`_acme-challenge.shop.${ZONE}`)).to.deep.equal(['value-one']);
    expect((await hook(['cleanup', name, 'value-one'])).code).to.equal(0);
    expect(await txt(`_acme-challenge.shop.${ZONE}`)).to.deep.equal([]);
    // Nothing recorded: nothing to do, said on stderr, exit 0.
    const none = await hook(['cleanup', name, 'value-one']);
    expect(none.code, none.out).to.equal(0);
    expect(none.out).to.contain('nothing to remove');
  });

  it('DOMIVKA_DOMAIN names the zone; a name outside it is refused before any call', async () => {
    const ok = await hook(['present', `*.${ZONE}`, 'value-star'], { DOMIVKA_DOMAIN: ZONE });
    expect(ok.code, ok.out).to.equal(0);
    expect(await txt(`_acme-challenge.${ZONE}`)).to.deep.equal(['value-star']);
    expect((await hook(['cleanup', `*.${ZONE}`, 'value-star'], { DOMIVKA_DOMAIN: ZONE })).code).to.equal(0);
    const outside = await hook(['present', OTHER_ZONE, 'v'], { DOMIVKA_DOMAIN: ZONE });
    expect(outside.code).to.equal(2);
    expect(outside.out).to.contain(`is not inside DOMIVKA_DOMAIN=${ZONE}`);
  });

  it('DOMIVKA_KEY_FILE instead of DOMIVKA_KEY (for unattended renewals)', async () => {
    const file = join(state, 'key');
    writeFileSync(file, `${acmeKey}\n`, { mode: 0o600 });
    const env = { DOMIVKA_KEY: '', DOMIVKA_KEY_FILE: file };
    const add = await hook(['present', `_acme-challenge.mail.${ZONE}`, 'value-file'], env);
    expect(add.code, add.out).to.equal(0);
    expect(await txt(`_acme-challenge.mail.${ZONE}`)).to.deep.equal(['value-file']);
    expect((await hook(['cleanup', `_acme-challenge.mail.${ZONE}`, 'value-file'], env)).code).to.equal(0);
    expect(await txt(`_acme-challenge.mail.${ZONE}`)).to.deep.equal([]);
  });

  it("a refusal prints the API's code and English message, exits 1, and never the key", async () => {
    const scoped = await hook(['present', `_acme-challenge.${OTHER_ZONE}`, 'v'], { DOMIVKA_DOMAIN: OTHER_ZONE });
    expect(scoped.code).to.equal(1);
    expect(scoped.out).to.contain(`could not add TXT _acme-challenge.${OTHER_ZONE} in zone ${OTHER_ZONE}: 403 right_missing: `);
    expect(scoped.out).to.contain('dns.acme_challenge');
    const wrongKey = 'dmk_test_' + 'x'.repeat(50);
    const bad = await hook(['present', ZONE, 'v'], { DOMIVKA_KEY: wrongKey });
    expect(bad.code).to.equal(1);
    expect(bad.out).to.match(/: 401 key_invalid: \S/);
    for (const r of [scoped, bad]) expect(r.out).not.to.contain(acmeKey).and.not.to.contain(wrongKey);
  });

  it("acme.sh: dns_domivka_add / dns_domivka_rm (acme.sh's helpers stubbed; acme.sh itself is not tested)", async () => {
    const stubs = [
      '_info() { echo "[info] $*"; }',
      '_err() { echo "[err] $*" >&2; }',
      '_readaccountconf_mutable() { :; }',
      '_saveaccountconf_mutable() { :; }',
    ].join('\n');
    const script = `${stubs}\n. "$1"\ndns_domivka_add "$2" "$3" && dns_domivka_rm "$2" "$3"`;
    const env = { DOMIVKA_API: api.base, DOMIVKA_KEY: acmeKey, DOMIVKA_STATE_DIR: state, DOMIVKA_HOOK: join(HOOKS, 'domivka-acme.sh') };
    const r = await run('sh', ['-c', script, 'sh', join(HOOKS, 'dns_domivka.sh'), `_acme-challenge.api.${ZONE}`, 'value-acmesh'], env);
    expect(r.code, r.out).to.equal(0);
    expect(r.out).to.contain(`added TXT _acme-challenge.api.${ZONE}`).and.contain(`removed TXT _acme-challenge.api.${ZONE}`);
    const missing = await run('sh', ['-c', script, 'sh', join(HOOKS, 'dns_domivka.sh'), `_acme-challenge.api.${ZONE}`, 'v'], {
      ...env,
      DOMIVKA_HOOK: '',
    });
    expect(missing.code).to.equal(1);
    expect(missing.out).to.contain('DOMIVKA_HOOK');
  });
});
