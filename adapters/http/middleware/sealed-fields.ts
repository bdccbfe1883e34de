import type { SecretBox } from '../../../core/kernel/secret-box.port.js';
import type { ResumableRequest } from '../../../core/kernel/idempotency-store.port.js';
import type { Reply, Route } from '../route.js';

/**
 * Secrets at rest (secrets are stored only hashed or sealed): a phased request is kept with its idempotency record so the completer
 * can finish it (completer.ts), and its body may hold a secret — a transfer's auth code. The fields a route
 * declares in `secretFields` (dot paths into the body: `auth_code`, `axfr.tsig.secret`) are sealed with the
 * data key before the request is stored, and opened only by the completer when it runs the request again.
 * The stored record lists them (`sealed`), so opening never depends on the route's declaration of the day.
 */
export const sealFields = (box: SecretBox, body: unknown, paths: readonly string[]): { body: unknown; sealed: string[] } => {
  const sealed: string[] = [];
  let out = body;
  for (const path of paths) {
    const next = mapAt(out, path.split('.'), (v) => (typeof v === 'string' ? box.seal(v) : undefined));
    if (next !== undefined) {
      out = next;
      sealed.push(path);
    }
  }
  return { body: out, sealed };
};

/** The body with its sealed fields opened again; throws when one cannot be opened (another data key). */
export const openFields = (box: SecretBox, body: unknown, paths: readonly string[]): unknown => {
  let out = body;
  for (const path of paths) {
    const next = mapAt(out, path.split('.'), (v) => {
      if (typeof v !== 'string') throw new Error(`sealed field ${path} is missing`);
      return box.open(v);
    });
    if (next === undefined) throw new Error(`sealed field ${path} is missing`);
    out = next;
  }
  return out;
};

/** A copy of `value` with the string at `path` replaced by `fn`'s result; undefined when there is none there. */
const mapAt = (value: unknown, path: readonly string[], fn: (v: unknown) => string | undefined): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const [head, ...rest] = path;
  if (head === undefined || !Object.hasOwn(value, head)) return undefined;
  const inner = (value as Record<string, unknown>)[head];
  const replaced = rest.length === 0 ? fn(inner) : mapAt(inner, rest, fn);
  return replaced === undefined ? undefined : { ...(value as Record<string, unknown>), [head]: replaced };
};

/** The request as it is stored: the route's secret fields sealed and listed. */
export const sealedRequest = (box: SecretBox, request: ResumableRequest, secretFields: readonly string[] | undefined): ResumableRequest => {
  if (!secretFields || secretFields.length === 0) return request;
  const { body, sealed } = sealFields(box, request.body, secretFields);
  return sealed.length === 0 ? request : { ...request, body, sealed };
};

/** The request as the completer runs it: its sealed fields opened. */
export const openedRequest = (box: SecretBox, request: ResumableRequest): ResumableRequest =>
  request.sealed && request.sealed.length > 0 ? { ...request, body: openFields(box, request.body, request.sealed) } : request;

/** The string values at `paths` in the body (the secrets a request sent). */
export const secretValues = (body: unknown, paths: readonly string[]): string[] =>
  paths.flatMap((path) => {
    let v: unknown = body;
    for (const part of path.split('.'))
      v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[part] : undefined;
    return typeof v === 'string' && v !== '' ? [v] : [];
  });

/** `value` with every string equal to one of `secrets` replaced by null. */
const scrub = (value: unknown, secrets: ReadonlySet<string>): unknown => {
  if (typeof value === 'string') return secrets.has(value) ? null : value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, scrub(v, secrets)]));
  return value;
};

/**
 * What an Idempotency-Key replay may show, for a request that sent secrets: the route's own `replayable`, and
 * then no value of the request's secret fields anywhere in the stored body (nulled) or headers (dropped). No route answers one
 * today; this keeps a future answer that echoes one (an import that shows its TSIG settings) from storing it.
 */
export const replayableOf = (route: Route, body: unknown): ((reply: Reply) => Reply) => {
  const own = route.replayable ?? ((r: Reply) => r);
  const secrets = new Set(secretValues(body, route.secretFields ?? []));
  if (secrets.size === 0) return own;
  return (reply) => {
    const r = own(reply);
    return {
      ...r,
      ...(r.body !== undefined ? { body: scrub(r.body, secrets) } : {}),
      ...(r.headers ? { headers: Object.fromEntries(Object.entries(r.headers).filter(([, v]) => !secrets.has(v))) } : {}),
    };
  };
};
