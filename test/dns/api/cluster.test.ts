import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import dnsPacket from 'dns-packet';
import { promisify } from 'node:util';
import { planAndApply, sandboxKey, startServerProcess, type ServerProcess } from '../../support/server-process.js';

const run = promisify(execFile);

/** The inodes of the UDP sockets bound to `port`, as the kernel lists them (/proc/net/udp{,6}). */
const udpSockets = (port: number): Set<string> => {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[1]?.endsWith(hexPort)) inodes.add(f[9]!);
    }
  }
  return inodes;
};

/** The pids holding a UDP socket bound to `port` (from /proc/net/udp{,6} and /proc/<pid>/fd), with their DOMIVKA_DNS_WORKER and socket inodes. */
const udpOwners = (port: number): Array<{ pid: number; worker: string | null; inodes: string[] }> => {
  const inodes = udpSockets(port);
  const owners: Array<{ pid: number; worker: string | null; inodes: string[] }> = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const held = fds.flatMap((fd) => {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '';
        return inodes.has(inode) ? [inode] : [];
      } catch {
        return [];
      }
    });
    if (held.length === 0) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // it exited meanwhile
    }
    owners.push({ pid: Number(pid), worker: /(?:^|\0)DOMIVKA_DNS_WORKER=(\d+)/.exec(environ)?.[1] ?? null, inodes: held });
  }
  return owners;
};

/** Asks `n` queries, each from its own socket (its own source port), all at once; how many were answered with data. */
const burst = async (port: number, name: string, n: number): Promise<number> => {
  const answered = await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<boolean>((done) => {
          const s = dgram.createSocket('udp4');
          const timer = setTimeout(() => finish(false), 2000);
          const finish = (ok: boolean): void => {
            clearTimeout(timer);
            s.close();
            done(ok);
          };
          s.once('message', (m) => finish((dnsPacket.decode(m).answers ?? []).length > 0));
          s.send(dnsPacket.encode({ type: 'query', id: i, flags: 0, questions: [{ name, type: 'A', class: 'IN' }] }), port, '127.0.0.1');
        }),
    ),
  );
  return answered.filter(Boolean).length;
};

/**
 * DNS_WORKERS=2: npm start's DNS server as two cluster workers, each with its own UDP socket on the
 * port (SO_REUSEPORT, the udp_batch addon) and sharing the TCP listener. An apply returns
 * only once both workers serve the change, so the very next queries (whichever worker takes them) see it.
 * SQLite only: it starts the real entry point in a child process.
 */
describe('npm start with DNS_WORKERS=2', function () {
  this.timeout(90_000);
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let dnsPort: number;

  before(async function () {
    if (spawnSync('which', ['dig']).status !== 0) {
      if (!process.env.CI) this.skip();
      throw new Error('dig is required in CI');
    }
    server = await startServerProcess({ DNS_WORKERS: '2' });
    ({ env, api, dnsPort } = server);
  });

  after(async () => server?.stop());

  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(dnsPort), '@127.0.0.1', name, type])).stdout.trim();

  it('serves the zones, and an applied plan is seen by every following query', async () => {
    expect(await dig('domivka-demo.com.ua', 'A')).to.equal('192.0.2.10');
    const { key } = await sandboxKey(env, ['--template', 'dns_editor', '--label', 'prod']);
    const applied = await planAndApply(api, key, 'domivka-demo.com.ua', [
      { action: 'create', name: 'cl', type: 'A', ttl: 60, values: ['192.0.2.77'] },
    ]);
    expect(applied.status).to.equal(200);
    const answers = await Promise.all(Array.from({ length: 8 }, () => dig('cl.domivka-demo.com.ua', 'A')));
    expect(answers).to.deep.equal(Array(8).fill('192.0.2.77'));
  });

  it('each DNS worker reads its own SO_REUSEPORT socket on the port and the API process none; a killed worker leaves the port to the other at once and its replacement joins again', async function () {
    if (process.platform !== 'linux') this.skip(); // /proc and SO_REUSEPORT as used here are Linux's
    const owners = udpOwners(dnsPort);
    expect(owners.map((o) => o.worker).sort(), JSON.stringify(owners)).to.deep.equal(['0', '1']);
    expect(await burst(dnsPort, 'domivka-demo.com.ua', 300)).to.equal(300);
    const victim = owners.find((o) => o.worker === '1')!;
    process.kill(victim.pid, 'SIGKILL');
    // The dead worker's socket is gone with it: the kernel sends every datagram to the living one. Wait for
    // the kernel's own table, not the pid's fd list: a killed process's main thread drops its fd list while
    // its other threads, still exiting, keep the socket open and in the port's group (a CI run sent half a
    // burst there).
    const deadline = Date.now() + 5000;
    const gone = (): boolean => {
      const open = udpSockets(dnsPort);
      return victim.inodes.every((inode) => !open.has(inode));
    };
    while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(gone(), "the killed worker's socket closed").to.equal(true);
    expect(await burst(dnsPort, 'domivka-demo.com.ua', 300), 'answered while one worker is dead').to.equal(300);
    // The cluster restarts it (after 1 s: it had run under a minute); it binds again once it has loaded every zone.
    const back = Date.now() + 30_000;
    while (Date.now() < back && udpOwners(dnsPort).length < 2) await new Promise((r) => setTimeout(r, 100));
    const again = udpOwners(dnsPort);
    expect(again.map((o) => o.worker).sort()).to.deep.equal(['0', '1']);
    expect(again.find((o) => o.worker === '1')!.pid).to.not.equal(victim.pid);
    expect(await burst(dnsPort, 'domivka-demo.com.ua', 300)).to.equal(300);
  });
});
