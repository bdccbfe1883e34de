import { parseArgs } from 'node:util';
import { SqlStore } from '../../adapters/sql/index.js';
import { loadConfig } from '../config.js';
import { knotConf } from '../../adapters/dns/knot-conf.js';
import { runMain } from './process.js';

/**
 * `npm run knot:conf -- --primary 10.0.0.5@5353 [--listen 0.0.0.0@53] [--dir /var/lib/knot] [--notify-from 10.0.0.5]`:
 * prints a knot.conf for a secondary of our hidden primary. With the primary's catalog zone (DNS_CATALOG_ZONE,
 * on by default) Knot follows it and adds or drops zones by itself; with DNS_CATALOG_ZONE= (none) every
 * zone in the store (DATABASE_URL) is listed, and a zone added later needs a new line.
 */
const main = async () => {
  const { values } = parseArgs({
    options: {
      primary: { type: 'string' },
      listen: { type: 'string', multiple: true },
      dir: { type: 'string' },
      'notify-from': { type: 'string' },
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
      }),
    );
  } finally {
    await store.close();
  }
};

runMain(main);
