import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPebble, type Pebble } from '../../support/pebble.js';
import type { StoreKind } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

/** The hook scripts under test, as shipped. */
export const HOOKS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../examples/acme-hooks');

/** The demo zone the ACME key may write to, and a demo zone of the same account it may not. */
export const ZONE = 'domivka-demo.com.ua';
export const OTHER_ZONE = 'domivka-demo.dev';

export interface Run {
  code: number;
  out: string;
  ms: number;
}

/**
 * Runs a program without blocking this process (the API and the DNS server the program talks to live
 * here). Never rejects: the exit code and the merged output are returned.
 */
export const run = (file: string, args: readonly string[], env: Record<string, string>, timeoutMs = 80_000): Promise<Run> =>
  new Promise((done) => {
    const t0 = Date.now();
    execFile(
      file,
      args,
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? tmpdir(), ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        const e = err as (Error & { code?: unknown; signal?: string | null }) | null;
        // A number: the exit code. Otherwise it did not start (ENOENT…) or was killed (the timeout).
        const code = !e ? 0 : typeof e.code === 'number' ? e.code : -1;
        const why = e && code === -1 ? `\n[${e.signal ? `killed by ${e.signal} after ${Date.now() - t0} ms` : e.message}]` : '';
        done({ code, out: `${stdout}${stderr}${why}`, ms: Date.now() - t0 });
      },
    );
  });

export interface AcmeSetup {
  api: TestApi;
  pebble: Pebble;
  /** A key holding only dns.acme_challenge for ZONE. */
  acmeKey: string;
  /** A dns.read key for both zones, to look at what is left. */
  readKey: string;
  /** A fresh temporary directory (removed on close). */
  tmp: string;
  /** Pebble's listener certificate, issuing root and intermediate as files in tmp. */
  files: { listenerCa: string; root: string };
  /** The hooks' environment. */
  hookEnv(stateDir: string): Record<string, string>;
  /** TXT values under _acme-challenge names in a zone, through the API and through our DNS server. */
  leftovers(zone: string, hosts: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export const setUp = async (kind: StoreKind): Promise<AcmeSetup> => {
  const api = await startApi(kind, { dns: true });
  const pebble = await startPebble(api.dnsPort!).catch(async (e: unknown) => {
    await api.close();
    throw e;
  });
  const acmeKey = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [ZONE] })).secret;
  const readKey = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: [ZONE, OTHER_ZONE] })).secret;
  const tmp = mkdtempSync(join(tmpdir(), 'acme-clients-'));
  const root = join(tmp, 'pebble-root.pem');
  writeFileSync(root, await pebble.rootPem());
  const resolver = new Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([`127.0.0.1:${api.dnsPort}`]);
  return {
    api,
    pebble,
    acmeKey,
    readKey,
    tmp,
    files: { listenerCa: pebble.listenerCaFile, root },
    hookEnv: (stateDir) => ({ DOMIVKA_API: api.base, DOMIVKA_KEY: acmeKey, DOMIVKA_STATE_DIR: stateDir }),
    async leftovers(zone, hosts) {
      const found: string[] = [];
      const r = await api.call(`/v1/domains/${zone}/dns/records?limit=200&type=TXT`, { headers: bearer(readKey) });
      if (r.status !== 200) throw new Error(`records of ${zone}: ${r.status} ${JSON.stringify(r.body)}`);
      for (const s of r.body.data as { name: string; values: string[] }[]) {
        if (s.name.startsWith('_acme-challenge.')) found.push(...s.values.map((v) => `api ${s.name} ${v}`));
      }
      for (const h of hosts) {
        const name = `_acme-challenge.${h.replace(/^\*\./, '')}`;
        const txt = await resolver.resolveTxt(name).catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENODATA' || e.code === 'ENOTFOUND') return [];
          throw e;
        });
        found.push(...txt.map((t) => `dns ${name} ${t.join('')}`));
      }
      return found;
    },
    async close() {
      await pebble.stop();
      await api.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
};

/** The DNS names a certificate (PEM, leaf first) is for. */
export const sans = (pem: string): string[] =>
  (new X509Certificate(pem).subjectAltName ?? '')
    .split(/,\s*/)
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4))
    .sort();

/** `openssl verify -CAfile root -untrusted chain leaf`: the chain must lead to this Pebble run's root. */
export const verifyChain = (root: string, chain: string, leaf: string): Promise<Run> =>
  run('openssl', ['verify', '-CAfile', root, '-untrusted', chain, leaf], {});
