import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { loadConfig } from '../config.js';
import { onShutdown, runMain } from './process.js';
import { System } from '../system.js';
import { TOKENS } from '../tokens.js';
import { Worker } from '../worker.js';
import { DNS_WORKER_ENTRY } from './dns-worker-entry.js';
import { serveDns } from '../dns-server.js';

/**
 * `npm start`: API on PORT, store at DATABASE_URL, migrations applied, the sandbox demo account seeded
 * on first start (its sign-in printed once and written to var/demo-credentials.txt, mode 0600), and
 * the worker running in-process unless RUN_WORKER=false.
 */
const main = async () => {
  const config = loadConfig();
  const system = new System(config);
  const log = system.logger;
  await system.migrate();
  let credentials = '';
  const credentialsFile = join(config.varDir, 'demo-credentials.txt');
  if (config.seedDemo) {
    const seeded = await system.get(TOKENS.SeedDemo).execute();
    if (seeded) {
      credentials = [
        `Sandbox demo owner (shown once; also in ${credentialsFile}):`,
        `  e-mail:      ${seeded.email}`,
        `  password:    ${seeded.password}`,
        `  TOTP secret: ${seeded.totpSecret}`,
        `  TOTP URI:    ${seeded.totpUri}`,
      ].join('\n');
      writeFileSync(credentialsFile, `${credentials}\n`, { mode: 0o600 });
      chmodSync(credentialsFile, 0o600);
    }
  }
  const { app } = system.http();
  // The authoritative DNS server: every zone from the store, kept in step by ZoneSync.
  const dns = config.runDns
    ? await serveDns({
        config,
        zones: system.store.zones,
        changes: system.store.changes,
        log: log.child({ component: 'dns' }),
        workerEntry: DNS_WORKER_ENTRY,
      })
    : null;
  if (dns) system.get(TOKENS.ZonePublisher).attach(dns.publisher);
  const worker = config.runWorker ? new Worker(system) : null;
  worker?.start();
  const server: Server = app.listen(config.port, config.host);
  // Idle keep-alive connections outlive a client's or a load balancer's own idle timeout (60 s is
  // common), so it is always the client that closes one — never a reset under a reused request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  system.markStarted();
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  process.stdout.write(
    [
      `Domivka is running (store: ${system.store.engine}${system.store.engine === 'sqlite' ? ` ${config.databaseUrl}` : ''}).`,
      `  API:      ${base}/v1/…  (the routes: ${base}/v1/openapi.json; health: ${base}/healthz)`,
      `  DNS:      ${config.runDns ? `${config.dnsHost}:${config.dnsPort} UDP+TCP${dns && config.dnsWorkers > 1 ? `, ${dns.shape}` : ''} (try: dig @${config.dnsHost} -p ${config.dnsPort} domivka-demo.com.ua A)` : 'off (RUN_DNS=false)'}`,
      `  Worker:   ${worker ? 'in this process' : 'off (RUN_WORKER=false; run `npm run worker`)'}`,
      // The demo owner's sign-in is printed on the first start only; later starts say where it is kept.
      `  Console:  ${base}/console/  (sign in as the demo owner: e-mail, password, TOTP code ${credentials ? 'below' : `in ${credentialsFile}`})`,
      `  Test key: npm run sandbox:key -- --rights domain.read --label prod`,
      credentials,
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n',
  );
  onShutdown(async () => {
    log.info('shutting down');
    await worker?.drain();
    worker?.stop();
    await dns?.stop();
    server.close();
    await system.close();
  });
};

runMain(main);
