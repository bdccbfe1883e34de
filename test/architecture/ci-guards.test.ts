import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** CI must not pass on a stray `.only` (one test run, "1 passed"). */
describe('CI guards', () => {
  const root = join(import.meta.dirname, '..', '..');

  it('the mocha settings forbid `.only` when CI is set, and only then', () => {
    const load = (ci: string | undefined): Record<string, unknown> => {
      const before = process.env.CI;
      if (ci === undefined) delete process.env.CI;
      else process.env.CI = ci;
      try {
        const require = createRequire(import.meta.url);
        const path = require.resolve(join(root, '.mocharc.cjs'));
        delete require.cache[path];
        return require(path) as Record<string, unknown>;
      } finally {
        if (before === undefined) delete process.env.CI;
        else process.env.CI = before;
      }
    };
    expect(load('true')['forbid-only']).to.equal(true);
    expect(load(undefined)['forbid-only']).to.equal(false);
  });

  it('with forbid-only, a file holding `it.only` fails the run before any test runs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'only-'));
    writeFileSync(join(dir, 'only.test.js'), "describe('x', () => { it.only('a', () => {}); it('b', () => {}); });\n");
    const run = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--no-config', '--forbid-only', join(dir, 'only.test.js')],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status).to.not.equal(0);
    expect(run.stdout + run.stderr).to.match(/ERR_MOCHA_FORBIDDEN_EXCLUSIVITY|forbid/i);
  });
});
