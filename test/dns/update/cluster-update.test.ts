import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startServerProcess, ROOT, type ServerProcess } from '../../support/server-process.js';
import { dig, rdata, requireTools } from '../server/tools.js';

const exec = (
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ code: number; out: string; stdout: string }> =>
  new Promise((resolve) => {
    const child = execFile(cmd, args, { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}`, stdout }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });

/** Issue 23 §4 "several DNS workers": an UPDATE at a worker is applied once and answered by every worker. */
describe('DNS UPDATE with DNS_WORKERS=2', function () {
  this.timeout(120_000);
  let server: ServerProcess;
  before(async function () {
    requireTools(this, 'nsupdate', 'dig');
    server = await startServerProcess({ DNS_WORKERS: '2' });
  });
  after(async () => server?.stop());

  let tsig: { name: string; algorithm: string; secret: string };
  const nsupdate = (args: string[], host: string, text: string) =>
    exec(
      'nsupdate',
      [...args, '-y', `${tsig.algorithm}:${tsig.name}:${tsig.secret}`],
      process.env,
      `server 127.0.0.1 ${server.dnsPort}\nzone domivka-demo.dev\nupdate add ${host}. 60 TXT "${text}"\nsend\n`,
    );
  /** Every worker (each answers its share of UDP senders, by source port) serves it within a second or two. */
  const everyWorkerAnswers = async (host: string, text: string): Promise<void> => {
    const deadline = Date.now() + 5000;
    let answers: string[][] = [];
    do {
      answers = await Promise.all(Array.from({ length: 8 }, async () => rdata((await dig(server.dnsPort, host, 'TXT')).answer)));
      if (answers.every((a) => a.length === 1)) break;
      await new Promise((res) => setTimeout(res, 200));
    } while (Date.now() < deadline);
    expect(answers).to.deep.equal(Array.from({ length: 8 }, () => [`"${text}"`]));
  };

  it('nsupdate over TCP is applied by a worker and every worker answers with it', async () => {
    const issued = await exec(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['src/main/sandbox-key.ts', '--rights', 'dns.edit', '--domains', 'domivka-demo.dev', '--json'],
      server.env,
    );
    expect(issued.code, issued.out).to.equal(0);
    tsig = JSON.parse(issued.stdout.trim()).tsig as { name: string; algorithm: string; secret: string };
    const r = await nsupdate(['-v'], 'workers.domivka-demo.dev', 'cluster');
    expect(r, r.out).to.deep.include({ code: 0 });
    await everyWorkerAnswers('workers.domivka-demo.dev', 'cluster');
  });

  it("nsupdate over UDP (no -v) gets its answer from the worker's own SO_REUSEPORT socket (no TC), and every worker answers with it", async () => {
    // Several, from as many source ports: the kernel spreads them over both workers' sockets.
    for (let i = 0; i < 4; i++) {
      const r = await nsupdate(['-d'], `udp${i}.domivka-demo.dev`, `over udp ${i}`);
      expect(r, r.out).to.deep.include({ code: 0 });
      expect(r.out).to.match(/status: NOERROR/);
      expect(r.out).not.to.match(/flags:[^;]*\btc\b/); // answered over UDP, not sent on to TCP
    }
    for (let i = 0; i < 4; i++) await everyWorkerAnswers(`udp${i}.domivka-demo.dev`, `over udp ${i}`);
  });
});
