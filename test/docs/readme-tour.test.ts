import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every ```sh block of the README, in order, with the heading it sits under. */
const shBlocks = (readme: string): Array<{ heading: string; code: string }> => {
  const out: Array<{ heading: string; code: string }> = [];
  let heading = '';
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,4} /.test(line)) heading = line.replace(/^#+ /, '');
    if (line === '```sh') {
      const start = i + 1;
      while (lines[++i] !== '```');
      out.push({ heading, code: lines.slice(start, i).join('\n') });
    }
  }
  return out;
};

/**
 * Blocks that cannot run here, each with the reason; a block is named by the start of its first line. Every other
 * block runs, in README order, in one shell (later blocks use what earlier ones set).
 */
const NOT_RUN: Record<string, string> = {
  'npm ci && npm start': 'installs and starts the server: the test starts `npm start` itself, on its own ports and data directory',
  "curl -s -c jar localhost:8080/v1/account/sessions -H 'content-type: application/json' \\":
    'a person fills in the printed password and a current TOTP code (placeholders); test/accounts covers these routes',
  'export DOMIVKA_API=http://127.0.0.1:8080': 'ACME clients against Pebble: test/certificates/acme-clients runs these exact commands',
  'mkdir -p /tmp/pebble && cd /tmp/pebble': 'starts a long-running Pebble: test/certificates/acme-clients',
  'EXEC_PATH=$HOOKS/lego-exec.sh EXEC_SEQUENCE_INTERVAL=1 EXEC_POLLING_INTERVAL=1 \\':
    'lego against Pebble: test/certificates/acme-clients',
  'REQUESTS_CA_BUNDLE=/tmp/pebble/cert.pem \\': 'certbot against Pebble: test/certificates/acme-clients',
  'export DOMIVKA_HOOK=$HOOKS/domivka-acme.sh': 'acme.sh is not a Debian package (see the README)',
};

describe('README tour against a real `npm start` (SQLite, sandbox, fresh data directory, its own ports)', function () {
  this.timeout(600_000);
  let child: ChildProcess | null = null;
  let banner = '';
  let env: NodeJS.ProcessEnv;
  let port = 0;
  let dnsPort = 0;
  let dir = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readme-tour-'));
    port = await freePort();
    dnsPort = await freePort([port]);
    env = {
      ...process.env,
      DATABASE_URL: join(dir, 'domivka.sqlite'),
      PORT: String(port),
      DNS_PORT: String(dnsPort),
      LOG_LEVEL: 'warn',
      MONITORS_ALLOW_LOOPBACK: '1',
    };
    child = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    child.stdout!.on('data', (c: Buffer) => (banner += c.toString()));
    const deadline = Date.now() + 60_000;
    while (!/Test key:/.test(banner)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up: ${banner}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      process.kill(-child.pid, 'SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
      // Not stopped in 10 s (the shutdown's own bound is tested under load in test/production): killed with its
      // whole group (npm, the server, its DNS workers), never left running past the suite.
      if (!stopped) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
    }
  });

  it('the start banner names addresses that answer and the file that holds the demo sign-in', async () => {
    const api = /API: +(\S+)\/v1\/…/.exec(banner)?.[1];
    expect(api, banner).to.equal(`http://127.0.0.1:${port}`);
    for (const url of [...banner.matchAll(/(http:\/\/\S+?)[),;]?(?:\s|$)/g)].map((m) => m[1]!).filter((u) => !u.includes('…'))) {
      const r = await fetch(url);
      expect(r.status, url).to.be.below(400);
    }
    const file = /also in (\S+)\):/.exec(banner)?.[1];
    expect(file, banner).to.equal(join(dir, 'demo-credentials.txt'));
    expect(readFileSync(file!, 'utf8')).to.contain('TOTP secret:');
  });

  it('runs every shell block of the README in order (each command checked), except the ones listed with a reason', () => {
    const blocks = shBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const firstLines = blocks.map((b) => b.code.split('\n')[0]!);
    // The list of blocks not run names only blocks that exist.
    const skippedBy = (first: string) => Object.keys(NOT_RUN).find((k) => first.startsWith(k));
    for (const skipped of Object.keys(NOT_RUN))
      expect(
        firstLines.some((l) => l.startsWith(skipped)),
        skipped,
      ).to.equal(true);
    const run = blocks.filter((b) => !skippedBy(b.code.split('\n')[0]!));
    expect(run.length).to.be.at.least(5);
    // The README speaks of the default ports; this server has its own.
    const local = (code: string) => code.replace(/:8080\b/g, `:${port}`).replace(/-p 5353\b/g, `-p ${dnsPort}`);
    const script = [
      'set -o pipefail',
      // The README runs from the repository root; this shell runs in the data directory (the files the
      // tour writes land there), so npm is pointed at the repository.
      `npm() { command npm --prefix '${ROOT}' "$@"; }`,
      'FAILED=0',
      'trap \'echo "::failed block=$BLOCK status=$? command: $BASH_COMMAND" >&2; FAILED=1\' ERR',
      ...run.map((b, i) => `BLOCK=${i}\n${local(b.code)}\necho "::block $BLOCK done" >&2`),
      'exit $FAILED',
    ].join('\n');
    const file = join(dir, 'tour.sh');
    writeFileSync(file, script);
    // stdout and stderr go to files: the tour writes to /dev/stderr (tee), which a Node pipe (a socket) cannot be opened as.
    const errFile = join(dir, 'tour.err');
    const out = openSync(join(dir, 'tour.out'), 'w');
    const err = openSync(errFile, 'w');
    const r = spawnSync('bash', [file], {
      cwd: dir,
      env: { ...env, PATH: `${join(ROOT, 'node_modules', '.bin')}:${env.PATH}` },
      stdio: ['ignore', out, err],
      timeout: 480_000,
    });
    closeSync(out);
    closeSync(err);
    const stderr = readFileSync(errFile, 'utf8');
    const failures = stderr.split('\n').filter((l) => l.startsWith('::failed'));
    const named = failures.map((f) => `${f}\n  (block under "${run[Number(/block=(\d+)/.exec(f)![1])]!.heading}")`);
    expect(named, stderr.slice(-4000)).to.deep.equal([]);
    expect(stderr, stderr.slice(-2000)).to.contain(`::block ${run.length - 1} done`);
    expect(r.status).to.equal(0);
  });
});
