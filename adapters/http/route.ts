import type { ApiKey } from '../../core/kernel/caller.js';
import type { RightName } from '../../core/kernel/rights.js';
import type { HumanContext } from '../../core/kernel/person.js';
import type { Domain } from '../../core/domains/domain.js';
import type { ErrorCode } from '../../core/kernel/errors.js';
import type { Checkpoints } from '../../core/kernel/checkpoints.port.js';
import type { FromSchema } from './schema-type.js';

/**
 * Routes are data (STYLE 7): each declares its method, path, schemas, who may call it, whether it
 * writes — and one use-case call. Authentication, rights, idempotency, validation and error mapping
 * are middleware that read the declaration; the OpenAPI document is generated from it.
 */
export type JsonSchema = Record<string, unknown>;

/**
 * A right on a domain; without a domain, the right held in some policy (a list, which the use case then
 * filters to what the key sees). Several rights: any one of them will do (dns.edit or dns.acme_challenge).
 */
export interface RightPair {
  readonly right: RightName | readonly RightName[];
  readonly domain?: string;
}

/** The rights a request needs, worked out from the request itself (a domain in the body, in the query). */
export interface RightsResolver<I> {
  /** Every right it may ask for (the OpenAPI document's x-right). */
  readonly names: readonly RightName[];
  readonly of: (input: I) => readonly RightPair[];
}

/**
 * What a key route needs (seed 2.2, STYLE 15): exactly one of
 * - `right` (+ `domainParam`): the right on the domain the path names, or held somewhere (lists);
 * - `rights`: pairs resolved from the request before the handler runs;
 * - `rightsOfRecord`: the right on a domain only the use case can name — a stored record's (a certificate,
 *   a monitor, an operation), the domains a certificate's names fall under, a plan's diff against the
 *   zone. The use case asks access once it knows the domain; the route declares which rights;
 * - `anyKey`: any valid key (the calling key itself, feeds the use case filters to what the key sees).
 */
type KeyNeeds<I> =
  | {
      readonly right: RightName;
      readonly domainParam?: string;
      readonly rights?: undefined;
      readonly rightsOfRecord?: undefined;
      readonly anyKey?: undefined;
    }
  | {
      readonly rights: RightsResolver<I>;
      readonly right?: undefined;
      readonly domainParam?: undefined;
      readonly rightsOfRecord?: undefined;
      readonly anyKey?: undefined;
    }
  | {
      readonly rightsOfRecord: readonly RightName[];
      readonly right?: undefined;
      readonly domainParam?: undefined;
      readonly rights?: undefined;
      readonly anyKey?: undefined;
    }
  | {
      readonly anyKey: true;
      readonly right?: undefined;
      readonly domainParam?: undefined;
      readonly rights?: undefined;
      readonly rightsOfRecord?: undefined;
    };

export type KeyAccess<I = ResolverInput> = {
  readonly kind: 'key';
  /** Test keys only: a live key gets 403 sandbox_only (checked before the environment). */
  readonly sandboxOnly?: boolean;
} & KeyNeeds<I>;

/** Who may call a route. `I` is what a rights resolver reads: the route's validated, typed input. */
export type Access<I = ResolverInput> =
  /** No credentials (health, OpenAPI). */
  | { readonly kind: 'public' }
  /** Human-only (seed A6), before sign-in: refuses any key. */
  | { readonly kind: 'human'; readonly session: false; readonly console: string }
  /** Human-only with a session; refuses any key. */
  | { readonly kind: 'human'; readonly session: true; readonly console: string }
  | KeyAccess<I>;

/** The rights a key route declares, for the OpenAPI document: one name, several, or 'any-key'. */
export const declaredRights = (a: KeyAccess<never>): RightName | readonly RightName[] | 'any-key' => {
  if (a.anyKey) return 'any-key';
  const names = a.right ? [a.right] : a.rights ? a.rights.names : (a.rightsOfRecord ?? []);
  return names.length === 1 ? names[0]! : names;
};

/** What a rights resolver reads: the request, validated, before anyone is authorised for it. */
export interface ResolverInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  ip: string;
}

export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  ip: string;
  key?: ApiKey;
  human?: HumanContext;
  /** The domain the authorisation step loaded (when the route names one and it exists). */
  domain?: Domain | null;
  /** Recovery points of a phased write (routes with `phased: true`). */
  checkpoints?: Checkpoints;
  /** A body of one of the route's `textBody` media types, as text in chunks (then `body` is `{text_sha256}`). */
  text?: AsyncIterable<string>;
}

export interface CookieSpec {
  readonly name: string;
  readonly value: string;
  readonly expires?: Date;
  readonly maxAgeMs?: number;
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly cookies?: readonly CookieSpec[];
  readonly contentType?: string;
}

export interface Route {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** OpenAPI-style path: /v1/domains/{domain}. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly access: Access;
  readonly writes: boolean;
  readonly params?: JsonSchema;
  readonly query?: JsonSchema;
  readonly body?: JsonSchema;
  /** Success responses: status → description and schema. */
  readonly responses: Readonly<Record<number, { description: string; schema?: JsonSchema; contentType?: string }>>;
  /** Error codes this route answers with beyond the common ones (documented in OpenAPI). */
  readonly errors?: readonly ErrorCode[];
  /** How its refusals are shaped: our error body (default), or a JSON-RPC error object (jsonrpc.ts). */
  readonly errorFormat?: 'jsonrpc';
  readonly handle: (input: RouteInput) => Promise<Reply>;
  /** What an Idempotency-Key replay may show again. Default: the reply as it was. A reply that carries
   * a one-time secret (a new key) says here how to keep it without the secret. */
  readonly replayable?: (reply: Reply) => Reply;
  /**
   * Body fields that hold a secret (dot paths: `auth_code`, `axfr.tsig.secret`): a password, a code, a TSIG
   * secret, a card number. Secrets are stored only hashed or sealed: where the request is kept for the
   * completer (a phased route), these are sealed with the data key (middleware/sealed-fields.ts).
   * test/http/secret-fields.test.ts checks that every body field named like a secret is declared here.
   */
  readonly secretFields?: readonly string[];
  /** This route's body limit, when not MAX_BODY_BYTES (a zone import's is DNS_IMPORT_MAX_BYTES). */
  readonly maxBodyBytes?: number;
  /**
   * Media types besides JSON the route reads as text (a zone file as `text/dns`): the body is read up to
   * the route's limit, checked as UTF-8, fingerprinted by its SHA-256 for Idempotency-Key (`body` becomes
   * `{text_sha256}`; the body schema is not applied), and handed to the handler as `text`, in chunks.
   */
  readonly textBody?: readonly string[];
  /** The write calls a peer outside our database (registry, card processor): it runs in atomic phases
   * with recovery points instead of one transaction (see core/kernel/checkpoints.port.ts). */
  readonly phased?: boolean;
}

/** The reply with some fields of its body replaced (what a replay may show instead of a one-time secret). */
export const withBody = (reply: Reply, fields: Record<string, unknown>): Reply => ({
  ...reply,
  body: { ...(typeof reply.body === 'object' && reply.body !== null ? reply.body : {}), ...fields },
});

export const isHumanOnly = (r: Route): boolean => r.access.kind === 'human';

/** `{domain}` and `{id}` in a path: each a string once the router matched it. */
type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? { [K in N]: string } & PathParams<Rest> : unknown;

/** The request as the route's schemas type it. */
export interface TypedRequest<Path extends string, P, Q, B> {
  params: (P extends undefined ? unknown : FromSchema<P>) & PathParams<Path>;
  query: Q extends undefined ? Record<string, unknown> : FromSchema<Q>;
  /** A route with a body schema gets `{}` for an empty body (validation fills it in). */
  body: B extends undefined ? unknown : FromSchema<B>;
  ip: string;
}

/** What a handler receives, typed by the route's own schemas and by who may call it. */
export type HandlerInput<Path extends string, P, Q, B, A extends Access<never>, Ph> = Omit<
  RouteInput,
  'params' | 'query' | 'body' | 'key' | 'human' | 'checkpoints'
> &
  TypedRequest<Path, P, Q, B> &
  (A extends { kind: 'key' } ? { key: ApiKey } : A extends { kind: 'human'; session: true } ? { human: HumanContext } : unknown) &
  (Ph extends true ? { checkpoints: Checkpoints } : { checkpoints?: Checkpoints });

/** A route as written: like `Route`, with its handler typed from its path, schemas and access. */
export type RouteSpec<Path extends string, P, Q, B, A extends Access<never>, Ph extends boolean> = Omit<
  Route,
  'path' | 'access' | 'params' | 'query' | 'body' | 'phased' | 'handle'
> & {
  readonly path: Path;
  readonly access: A;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  readonly phased?: Ph;
  readonly handle: (input: HandlerInput<Path, P, Q, B, A, Ph>) => Promise<Reply>;
};

/**
 * Declares a route. The schemas keep their literal types (a `const` type parameter), so the handler's
 * params, query and body are the types of what ajv lets through, and a key route's handler gets its key:
 * the middleware in app.ts has authenticated it, validated the input and checked the declared rights
 * before `handle` runs (a phased route also always gets its recovery points).
 */
export const route = <
  const Path extends string,
  const A extends Access<TypedRequest<Path, P, Q, B>>,
  const P extends JsonSchema | undefined = undefined,
  const Q extends JsonSchema | undefined = undefined,
  const B extends JsonSchema | undefined = undefined,
  const Ph extends boolean = false,
>(
  spec: RouteSpec<Path, P, Q, B, A, Ph>,
): Route => spec as unknown as Route;
