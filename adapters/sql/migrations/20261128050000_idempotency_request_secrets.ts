import type { Knex } from 'knex';

/**
 * Secrets are stored only hashed or sealed. A phased request kept for the completer (`idempotency_keys.request`,
 * 20261125100000_resumable_requests) held its body as sent, so a transfer's auth code sat there in the clear;
 * requests are now kept with their routes' secret fields sealed (adapters/http/middleware/sealed-fields.ts) and
 * dropped when the request is finished. For the rows stored before:
 * - a finished request (a response stored) is needed by nobody: its request goes;
 * - an unfinished one keeps its request, but its secret fields are taken out and listed in `withheld`. A
 *   migration has no data key to seal them with; the completer then leaves it to its client's retry (which
 *   sends the fields again), and what it reserved is settled by its own pass (a transfer by the transfer pass).
 * The secret fields are those the routes declared when this was written, and any other field named like a
 * secret, at any depth. Plain JSON text on both engines, so one path serves SQLite and Postgres.
 */
const DECLARED: Readonly<Record<string, readonly string[]>> = { requestTransfer: ['auth_code'] };
const SECRET_NAME = /(^|_)(password|secret|auth_code|totp|token|card_number|cvc)$/;

type Stored = { route?: string; body?: unknown; sealed?: string[]; withheld?: string[] };

/** The body without its secret fields, and their paths. */
const withoutSecrets = (value: unknown, declared: readonly string[], sealed: readonly string[], prefix = ''): [unknown, string[]] => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [value, []];
  const out: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const path = `${prefix}${k}`;
    if (!sealed.includes(path) && typeof v === 'string' && (declared.includes(path) || SECRET_NAME.test(k))) {
      removed.push(path);
      continue;
    }
    const [inner, innerRemoved] = withoutSecrets(v, declared, sealed, `${path}.`);
    out[k] = inner;
    removed.push(...innerRemoved);
  }
  return [out, removed];
};

export async function up(knex: Knex): Promise<void> {
  await knex('idempotency_keys').whereNotNull('response_status').whereNotNull('request').update({ request: null });
  const rows = (await knex('idempotency_keys')
    .whereNull('response_status')
    .whereNotNull('request')
    .select('scope', 'key', 'request')) as Array<{
    scope: string;
    key: string;
    request: string;
  }>;
  for (const row of rows) {
    let stored: Stored;
    try {
      stored = JSON.parse(row.request) as Stored;
    } catch {
      continue; // not JSON: not something this code ever wrote
    }
    const [body, removed] = withoutSecrets(stored.body, DECLARED[stored.route ?? ''] ?? [], stored.sealed ?? []);
    if (removed.length === 0) continue;
    const request = JSON.stringify({ ...stored, body, withheld: [...(stored.withheld ?? []), ...removed] });
    await knex('idempotency_keys').where({ scope: row.scope, key: row.key }).update({ request });
  }
}

/** Nothing to undo: the secrets taken out are gone for good (that was the point), and the requests dropped were finished. */
export async function down(): Promise<void> {}
