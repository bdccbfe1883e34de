import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startCompiled, type CompiledProcess } from '../support/compiled-process.js';
import { udpQuestion } from '../dns/server/tools.js';

/**
 * npm start (compiled, DNS_WORKERS=2) on a new store, then again on the same store. On the first start a
 * worker finds no store yet (and reads its zones once told to start), or one the API process is creating or
 * has just migrated (a worker loads its code in ~300 ms, as the API process migrates): what it read then is
 * kept only if the migration mark did not move since — either way is right, and depends on timing. On the
 * second, each worker reads its zones while the API process loads its code and migrates nothing, and keeps
 * what it read — src/main/dns-worker.ts. Both starts answer the demo's zones. (What is read again when a
 * migration does come: test/dns/api/worker-early-load.test.ts.)
 */
describe('npm start again on the same store: the DNS workers read the zones before the start', function () {
  this.timeout(120_000);
  let server: CompiledProcess | null = null;
  let dir: string | null = null;
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const answers = async (s: CompiledProcess): Promise<string> => {
    const r = await udpQuestion(s.dnsPort, 'domivka-demo.com.ua', 'A');
    return (r.answers ?? []).map((a) => String((a as { data: unknown }).data)).join(',');
  };
  const kept = (s: CompiledProcess): number => s.output().split('zones read before the start kept').length - 1;

  it('a restart keeps what each worker read before it', async () => {
    server = await startCompiled({ DNS_WORKERS: '2', LOG_LEVEL: 'info', RUN_WORKER: 'false' });
    dir = server.dir;
    expect(await answers(server)).to.equal('192.0.2.10');
    expect(await server.stop()).to.equal(0);
    server = await startCompiled({ DNS_WORKERS: '2', LOG_LEVEL: 'info', RUN_WORKER: 'false' }, { dir });
    expect(await answers(server)).to.equal('192.0.2.10');
    expect(kept(server), server.output()).to.equal(2);
    expect(server.output()).to.not.contain('zones read again at the start');
  });
});
