import { parseArgs } from 'node:util';
import { SqlStore } from '../../adapters/sql/index.js';
import { loadConfig } from '../config.js';
import { knotConf } from '../../adapters/dns/knot-conf.js';
import { runMain } from './process.js';

/**
 * `npm run knot:conf -- --primary 10.0.0.5@5353 [--listen 0.0.0.0@53] [--dir /var/lib/knot] [--notify-from 10.0.0.5]
 *  [--tsig hmac-sha256:<name>:<secret>]`:
 * prints a knot.conf for a secondary of our hidden primary. With the primary's catalog zone (DNS_CATALOG_ZONE,
 * on by default) Knot follows it and adds or drops zones by itself; with DNS_CATALOG_ZONE= (none) every
 * zone in the store (DATABASE_URL) is listed, and a zone added later needs a new line. With --tsig (a key's
 * credential, as `nsupdate -y` takes it) the secondary signs its transfers with a key holding dns.read.
 */
/** `hmac-sha256:<name>:<base64 secret>`, as nsupdate -y and the README write a key's credential. */
const tsigOf = (text: string): { name: string; algorithm: string; secret: string } => {
  const [algorithm, name, secret] = text.split(':');
  if (!algorithm || !name || !secret || !/^hmac-sha(256|512)$/.test(algorithm)) throw new Error('--tsig takes hmac-sha256:<name>:<secret>');
  return { algorithm, name: name.replace(/\.$/, ''), secret };
};

const main = async () => {
  const { values } = parseArgs({
    options: {
      primary: { type: 'string' },
      listen: { type: 'string', multiple: true },
      dir: { type: 'string' },
      'notify-from': { type: 'string' },
      tsig: { type: 'string' },
    },
  });
  const config = loadConfig();
  const primary = values.primary ?? `${config.dnsHost}@${config.dnsPort}`;
  const store = new SqlStore({ url: config.databaseUrl, ...(config.databaseSchema ? { schema: config.databaseSchema } : {}) });
  try {
    const catalog = config.dnsCatalogZone;
    const zones = catalog ? [] : [...new Set((await store.zones.versions()).filter((v) => v.served).map((v) => v.domain))].sort();
    process.stdout.write(
      knotConf({
        dir: values.dir ?? '/var/lib/knot',
        listen: values.listen ?? ['0.0.0.0@53', '::@53'],
        primary,
        notifyFrom: values['notify-from'] ?? primary.split('@')[0]!,
        zones,
        ...(catalog ? { catalog } : {}),
        ...(values.tsig ? { tsig: tsigOf(values.tsig) } : {}),
      }),
    );
  } finally {
    await store.close();
  }
};

runMain(main);
