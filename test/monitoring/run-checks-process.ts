/**
 * A worker process for the scheduling test: runs monitoring passes over the given store until nothing is
 * due, then prints {"checked": n} on stdout. Usage: tsx run-checks-process.ts <url> <schema|-> <dnsPort>
 */
import pino from 'pino';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { testConfig } from '../support/system.js';

const [url, schema, dnsPort] = process.argv.slice(2) as [string, string, string];
const store = {
  engine: url.startsWith('postgres') ? 'postgres' : 'sqlite',
  url,
  ...(schema !== '-' ? { schema } : {}),
  connection: { url, ...(schema !== '-' ? { schema } : {}) },
  drop: async () => {},
} as const;
const system = new System(testConfig(store, { DNS_PORT: dnsPort, MONITORS_ALLOW_LOOPBACK: '1', MONITOR_BATCH: '3' }), {
  logger: pino({ level: 'silent' }),
});
let checked = 0;
for (;;) {
  const r = await system.get(TOKENS.RunMonitorChecks).run();
  checked += r.checked;
  if (r.checked + r.lost === 0) break;
}
process.stdout.write(JSON.stringify({ checked }) + '\n');
await system.close();
