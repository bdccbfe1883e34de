import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { planAndApply, sandboxKey, startServerProcess, type ServerProcess } from '../../support/server-process.js';
import { requireTools } from './tools.js';

const run = promisify(execFile);

/** Parent pid of a process, or null once it is gone. */
const ppidOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
};

/** The DNS workers (src/main/dns-worker.ts) descending from `root`. */
const workersOf = (root: number): number[] => {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('dns-worker.ts')) continue;
    for (let p: number | null = pid, hops = 0; p && hops < 10; p = ppidOf(p), hops++) {
      if (p === root) {
        out.push(pid);
        break;
      }
    }
  }
  return out.sort((a, b) => a - b);
};

/**
 * DNS_WORKERS=2 (adapters/dns/cluster.ts): a worker that dies is replaced; meanwhile the other one answers,
 * and an apply afterwards is served by both (the replacement included). SQLite; the real entry point.
 */
describe('npm start with DNS_WORKERS=2: a DNS worker that dies is replaced', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let dnsPort: number;

  before(async function () {
    requireTools(this, 'dig');
    server = await startServerProcess({ DNS_WORKERS: '2' });
    ({ env, api, dnsPort } = server);
  });

  after(async () => server?.stop());

  /**
   * Whether a process is still there at all. Not its state: node has threads, and when the main one is a
   * zombie ("Z") the others may still be exiting and still hold the file table — its UDP socket keeps
   * taking its share of the SO_REUSEPORT group's queries and drops them. Gone means reaped.
   */
  const present = (pid: number): boolean => existsSync(`/proc/${pid}`);
  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(dnsPort), '@127.0.0.1', name, type])).stdout.trim();

  it('keeps answering through the loss, starts another worker, and the replacement serves an apply too', async () => {
    const before = workersOf(server.child.pid!);
    expect(before, 'two DNS workers').to.have.length(2);
    // Both workers serve before one dies (each dig has a fresh source port, so the kernel spreads them): the
    // loss is measured on a server that has settled, not on one still busy with its start.
    for (let i = 0; i < 8; i++) expect(await dig('domivka-demo.com.ua', 'A')).to.equal('192.0.2.10');
    process.kill(before[0]!, 'SIGKILL');
    // SIGKILL is delivered asynchronously: until the process is gone its socket still takes its share of the
    // SO_REUSEPORT group's queries and drops them (a resolver would retry). Once it is reaped, every query
    // must be answered by the other worker at the first try.
    for (let i = 0; i < 100 && present(before[0]!); i++) await new Promise((r) => setTimeout(r, 50));
    expect(present(before[0]!), 'the killed worker is gone').to.equal(false);
    // The other worker answers meanwhile.
    for (let i = 0; i < 4; i++) expect(await dig('domivka-demo.com.ua', 'A')).to.equal('192.0.2.10');
    let after: number[] = [];
    for (let i = 0; i < 240; i++) {
      after = workersOf(server.child.pid!);
      if (after.length === 2 && !after.includes(before[0]!)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(after, 'a replacement worker').to.have.length(2);
    expect(after).to.include(before[1]!);
    expect(after).to.not.include(before[0]!);

    const { key } = await sandboxKey(env, ['--template', 'dns_editor', '--label', 'prod']);
    const applied = await planAndApply(api, key, 'domivka-demo.com.ua', [
      { action: 'create', name: 'again', type: 'A', ttl: 60, values: ['192.0.2.78'] },
    ]);
    expect(applied.status).to.equal(200);
    const answers = await Promise.all(Array.from({ length: 12 }, () => dig('again.domivka-demo.com.ua', 'A')));
    expect(answers).to.deep.equal(Array(12).fill('192.0.2.78'));
  });
});
