import { Agent, request as httpRequest } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKey } from '../../../core/kernel/caller.js';
import { formatToken, toBase62 } from '../../../core/access/key-token.js';
import type { Policy } from '../../../core/access/policy.js';
import { RIGHTS, type RightName } from '../../../core/kernel/rights.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { Route } from '../../../adapters/http/index.js';
import { TOKENS } from '../../../src/tokens.js';
import type { TestApi } from '../../support/system.js';

/**
 * Shared pieces of the hostile suites: the routes the app actually mounts (so routes other branches add
 * are covered once merged), fast keep-alive requests, keys written straight to the store in every shape
 * (expired and revoked ones cannot be issued), and a snapshot of everything stored.
 */

/** The route table the running system mounts (buildApi → allRoutes). */
export const mountedRoutes = (api: TestApi): Route[] => api.system.http().routes;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export class FastClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });
  private readonly url: URL;
  constructor(base: string) {
    this.url = new URL(base);
  }

  send(method: string, path: string, headers: Record<string, string | string[]> = {}, body?: string | Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string | string[]> = { ...headers };
      if (body !== undefined) h['content-length'] = String(Buffer.byteLength(body));
      const req = httpRequest({ agent: this.agent, host: this.url.hostname, port: this.url.port, method, path, headers: h }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${path}`)));
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `jobs` with at most `width` in flight. */
export const pool = async <T>(items: readonly T[], width: number, job: (item: T, i: number) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      await job(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
};

let serial = 0;

export interface KeySpec {
  readonly environment: Environment;
  readonly policies: readonly Policy[];
  readonly cidr: string | null;
  readonly expiresOn: string;
  readonly revoked: boolean;
  /** Another account's key (default: the demo account, issued by its owner). */
  readonly accountId?: string;
  readonly createdBy?: string;
}

/** Writes a key to the store as issuance would (HMAC of the token only) and returns its token. */
export const plantKey = async (api: TestApi, spec: KeySpec): Promise<{ id: string; token: string }> => {
  const hasher = api.system.get(TOKENS.SecretHasher);
  const id =
    toBase62(++serial, 4) +
    randomBytes(8)
      .toString('hex')
      .slice(0, 8)
      .replace(/[^0-9A-Za-z]/g, '0');
  const secret = Array.from(randomBytes(32), (b) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[b % 62]).join('');
  const token = formatToken(spec.environment, id, secret, (t) => hasher.crc32(t));
  const cls = Math.max(0, ...spec.policies.map((p) => RIGHTS[p.right].class)) as ApiKey['class'];
  const spends = spec.policies.some((p) => RIGHTS[p.right].spends);
  const now = api.clock.now();
  const key: ApiKey = {
    id,
    accountId: spec.accountId ?? api.demo.accountId,
    environment: spec.environment,
    name: `hostile ${id}`,
    createdBy: spec.createdBy ?? api.demo.personId,
    policies: spec.policies,
    conditions: { cidr: spec.cidr, expiresOn: spec.expiresOn, spendLimit: spends ? 100_000_000 : null },
    class: cls,
    secretHash: hasher.hmac(token),
    createdAt: now,
    lastUsedAt: null,
    revokedAt: spec.revoked ? now : null,
    revokedBy: spec.revoked ? api.demo.personId : null,
  };
  await api.system.store.keys.insert({ ...key, revokedAt: null, revokedBy: null });
  if (spec.revoked) await api.system.store.keys.revoke(id, now, api.demo.personId);
  return { id, token };
};

/** Every right, alone, plus each template's set. */
export const rightSets = (templates: ReadonlyArray<{ id: string; rights: readonly RightName[] }>, names: readonly RightName[]) => [
  ...names.map((r) => ({ name: r, rights: [r] as readonly RightName[] })),
  ...templates.map((t) => ({ name: `template:${t.id}`, rights: t.rights })),
];

const tableCache = new WeakMap<object, string[]>();

/** Tables of the store, each with its row count and a checksum of its rows (order-independent).
 * Postgres: one round trip (md5 of each row's text, aggregated in order); SQLite: rows read in process. */
export const snapshot = async (api: TestApi, skip: readonly string[] = []): Promise<Map<string, string>> => {
  const knex = api.system.store.knex;
  const engine = api.store.engine;
  let tables = tableCache.get(api);
  if (!tables) {
    tables = (
      engine === 'sqlite'
        ? (await knex.raw(`select name from sqlite_master where type='table' and name not like 'sqlite_%'`)).map(
            (r: { name: string }) => r.name,
          )
        : (
            await knex.raw(
              `select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
            )
          ).rows.map((r: { name: string }) => r.name)
    ) as string[];
    tables.sort();
    tableCache.set(api, tables);
  }
  const wanted = tables.filter((t) => !skip.includes(t));
  const out = new Map<string, string>();
  if (engine === 'postgres') {
    const sql = wanted
      .map(
        (t) =>
          `select '${t}' as t, count(*)::text as n, coalesce(md5(string_agg(md5(x::text), ',' order by md5(x::text))), '') as h from "${t}" x`,
      )
      .join(' union all ');
    for (const r of (await knex.raw(sql)).rows as Array<{ t: string; n: string; h: string }>) out.set(r.t, `${r.n}:${r.h.slice(0, 16)}`);
    return out;
  }
  for (const t of wanted) {
    const rows: Array<Record<string, unknown>> = await knex(t).select('*');
    const digests = rows
      .map((r) =>
        createHash('sha256')
          .update(JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'bigint' ? String(v) : v)))
          .digest('hex'),
      )
      .sort();
    out.set(t, `${rows.length}:${createHash('sha256').update(digests.join(',')).digest('hex').slice(0, 16)}`);
  }
  return out;
};

export const diffSnapshots = (a: Map<string, string>, b: Map<string, string>): string[] => {
  const out: string[] = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) if (a.get(k) !== b.get(k)) out.push(`${k}: ${a.get(k)} → ${b.get(k)}`);
  return out;
};
