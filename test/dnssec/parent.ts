import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClock } from '../support/clock.js';
import { dig, freePort, runKnotd, waitFor, type DigAnswer, type Knotd } from '../dns/server/tools.js';
import { runUnbound } from './validators.js';

/**
 * A signed parent zone served by Knot (which signs it itself), holding the delegation of one child and
 * whatever DS records the registry holds for it: what validators see of the registry. `setDs` rewrites the
 * zone and reloads it, as a registry publishes its zone. DS and negative answers live 1 second.
 */
export interface Parent {
  readonly port: number;
  /** The parent's key, as an unbound trust anchor ("<zone>. DNSKEY ..."). */
  readonly anchor: string;
  setDs(ds: readonly string[]): Promise<void>;
  stop(): Promise<void>;
  log(): string;
}

export const startParent = async (parent: string, child: string): Promise<Parent> => {
  const dir = mkdtempSync(join(tmpdir(), 'dmk-parent-'));
  mkdirSync(join(dir, 'db'));
  const port = await freePort([]);
  let serial = 1;
  const write = (ds: readonly string[]) =>
    writeFileSync(
      join(dir, `${parent}.zone`),
      [
        `$ORIGIN ${parent}.`,
        `@ 60 SOA ns.${parent}. hostmaster.${parent}. ${serial++} 60 60 600 1`,
        `@ 60 NS ns.${parent}.`,
        `ns 60 A 127.0.0.1`,
        `${child}. 60 NS ns1.domivka.net.`,
        ...ds.map((d) => `${child}. 1 DS ${d}`),
        '',
      ].join('\n'),
    );
  write([]);
  const conf = join(dir, 'knot.conf');
  writeFileSync(
    conf,
    `server:
    listen: 127.0.0.1@${port}
    rundir: "${dir}"
log:
  - target: stderr
    any: warning
database:
    storage: "${join(dir, 'db')}"
policy:
  - id: parent
    algorithm: ecdsap256sha256
    single-type-signing: on
    nsec3: off
template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    zonefile-load: difference-no-serial
    journal-content: all
    dnssec-signing: on
    dnssec-policy: parent
zone:
  - domain: ${parent}
    file: "${parent}.zone"
`,
  );
  const knotd: Knotd = runKnotd(conf);
  const soa = async () => (await dig(port, parent, 'DNSKEY', '+dnssec')).answer.find((r) => r.type === 'DNSKEY');
  if ((await waitFor(async () => !!(await soa().catch(() => undefined)), 15_000, 100)) === null)
    throw new Error(`parent knotd did not start: ${knotd.log()}`);
  const key = (await soa())!;
  let last = '';
  const knotc = (...args: string[]) => spawnSync('knotc', ['-c', conf, ...args], { encoding: 'utf8' });
  return {
    port,
    anchor: `${parent}. DNSKEY ${key.data}`,
    setDs: async (ds) => {
      const wanted = [...ds]
        .map((d) => d.split(/\s+/)[0])
        .sort()
        .join(',');
      if (wanted === last) return;
      last = wanted;
      write(ds);
      const r = knotc('zone-reload', parent);
      if (r.status !== 0) throw new Error(`knotc zone-reload: ${r.stdout}${r.stderr}`);
      // Served once the parent answers the child's DS set by these key tags.
      const served = await waitFor(
        async () => {
          const a = await dig(port, child, 'DS');
          const tags = a.answer.filter((x) => x.type === 'DS').map((x) => x.data.split(/\s+/)[0]);
          return tags.sort().join(',') === wanted;
        },
        10_000,
        50,
      );
      if (served === null) throw new Error(`parent did not serve the DS set ${wanted}: ${knotd.log()}`);
    },
    stop: () => knotd.stop(),
    log: () => knotd.log(),
  };
};

/**
 * unbound validating from the parent's key down: the parent by stub to Knot, the child by stub to our
 * server (FACTS.md recipe with a real parent instead of the child's DS as anchor). `cache-max-ttl` caps
 * every TTL (our DNSKEY set's 3600 s among them) at `maxTtl`, so a schedule whose waits are shortened
 * for the test meets caches that expire as fast as real ones would over the real TTLs.
 */
export const startUnboundUnder = async (
  parent: Parent,
  parentZone: string,
  child: string,
  childPort: number,
  maxTtl: number,
): Promise<{ port: number; query: (...a: string[]) => Promise<DigAnswer>; stop: () => Promise<void>; log: () => string }> => {
  const port = await freePort([childPort, parent.port]);
  return runUnbound(
    port,
    () => `    cache-max-ttl: ${maxTtl}
    cache-max-negative-ttl: ${maxTtl}
    trust-anchor: "${parent.anchor}"
stub-zone:
    name: "${parentZone}"
    stub-addr: 127.0.0.1@${parent.port}
stub-zone:
    name: "${child}"
    stub-addr: 127.0.0.1@${childPort}
`,
    parentZone,
  );
};

/** A test clock that follows real time (schedules whose waits validators' caches must see pass). */
export class RealClock extends TestClock {
  override now(): Date {
    return new Date();
  }
}
