import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { distEntry, startCompiled, type CompiledProcess } from '../support/compiled-process.js';
import { ROOT } from '../support/server-process.js';

/** What the compiled server must answer (then it is stopped: SIGTERM, exit 0). */
const requests = async (p: CompiledProcess): Promise<void> => {
  expect((await fetch(`${p.api}/v1/openapi.json`)).status).to.equal(200);
  expect((await fetch(`${p.api}/console/sign-in`)).status).to.equal(200);
  // A package loaded on demand is whole in the build too: a hosted-domain claim asks the public suffix
  // list (tldts, imported on first use), whose names a bundled CommonJS chunk had left undefined (a 500).
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [distEntry('sandbox-key'), '--rights', 'domain.host', '--domains', 'compiled-hosted.com,com.ua', '--json'],
    { cwd: ROOT, env: p.env },
  );
  const key = (JSON.parse(stdout.trim().split('\n').pop()!) as { key: string }).key;
  const host = (domain: string) =>
    fetch(`${p.api}/v1/hosted-domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ domain }),
    });
  const hosted = await host('compiled-hosted.com');
  expect(hosted.status, await hosted.clone().text()).to.equal(201);
  expect(((await hosted.json()) as { domain: string }).domain).to.equal('compiled-hosted.com');
  const suffix = await host('com.ua');
  expect(suffix.status).to.equal(422);
  expect(((await suffix.json()) as { error: { code: string } }).error.code).to.equal('domain_public_suffix');
  expect(await p.stop()).to.equal(0);
};

/**
 * `npm start` and every other entry point run compiled JavaScript from dist/ (built by `npm ci` through
 * `prepare`): no TypeScript compiler, no tsx, in any process of the group at run time.
 */
describe('compiled build: entry points run dist/ with no TypeScript at run time', function () {
  this.timeout(120_000);

  it('every entry point script runs node dist/…, and npm ci builds through prepare', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    for (const [script, file] of [
      ['start', 'server'],
      ['worker', 'worker'],
      ['cluster', 'cluster'],
      ['sandbox:key', 'sandbox-key'],
      ['migrate', 'migrate'],
      ['knot:conf', 'knot-conf'],
    ] as const) {
      // exec: the shell npm runs the script in becomes node, so npm's SIGTERM reaches the server itself
      // (sh -c would otherwise die alone and leave the server running).
      expect(pkg.scripts[script], script).to.match(new RegExp(`^exec node (--[\\w-]+(=\\S+)? )*dist/src/main/${file}\\.js$`));
    }
    expect(pkg.scripts.prepare).to.contain('scripts/build.mjs');
    expect(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')).to.contain('"sourceMap": true');
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).to.match(/^dist\/$/m);
  });

  it('npm start (node dist/src/main/server.js, its DNS workers included) loads neither tsx nor typescript', async () => {
    const graph = join(ROOT, 'var', `module-graph-${process.pid}.txt`);
    const p = await startCompiled(
      { MODULE_GRAPH_FILE: graph, DNS_WORKERS: '2' },
      { nodeArgs: ['--import', join(ROOT, 'test/support/module-graph.mjs')] },
    );
    try {
      await requests(p);
    } finally {
      // A failed check leaves no server, nor its DNS workers, running.
      if (p.child.exitCode === null) await p.stop(); // SIGTERM: the server stops its DNS workers too
    }
    expect(await p.exited).to.equal(0);
    const loaded = readFileSync(graph, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((f) => f.includes('/dist/src/main/server.js'))).to.equal(true);
    expect(
      loaded.some((f) => f.includes('/dist/src/main/dns-worker.js')),
      'the DNS workers run dist too',
    ).to.equal(true);
    expect(loaded.filter((f) => /node_modules\/(tsx|typescript|esbuild)\/|\.ts$/.test(f))).to.deep.equal([]);
    // Loaded only when configured (issue 21: start time and memory): a sandbox-only SQLite start without
    // LIVE_REGISTRAR, STRIPE_SECRET_KEY or SMTP_URL loads none of them.
    expect(
      loaded.filter((f) => /node_modules\/(stripe|fast-xml-parser|nodemailer|pg|acme-client|@modelcontextprotocol)\//.test(f)),
    ).to.deep.equal([]);
  });
});
