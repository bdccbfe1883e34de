import type { ApiKey } from '../../core/kernel/caller.js';
import type { RightName } from '../../core/kernel/rights.js';
import type { HumanContext } from '../../core/kernel/person.js';
import type { Domain } from '../../core/domains/domain.js';
import type { ErrorCode } from '../../core/kernel/errors.js';
import type { Checkpoints } from '../../core/kernel/checkpoints.port.js';

/**
 * Routes are data (STYLE 7): each declares its method, path, schemas, who may call it, whether it
 * writes — and one use-case call. Authentication, rights, idempotency, validation and error mapping
 * are middleware that read the declaration; the OpenAPI document is generated from it.
 */
export type JsonSchema = Record<string, unknown>;

export type Access =
  /** No credentials (health, OpenAPI). */
  | { readonly kind: 'public' }
  /** Human-only (seed A6), before sign-in: refuses any key. */
  | { readonly kind: 'human'; readonly session: false; readonly console: string }
  /** Human-only with a session; refuses any key. */
  | { readonly kind: 'human'; readonly session: true; readonly console: string }
  /** A key. `right` + `domainParam` is the common case; `rights` derives the pairs from the request
   * (a plan's changes, a certificate's names). Neither: any valid key. */
  | {
      readonly kind: 'key';
      readonly right?: RightName;
      readonly domainParam?: string;
      readonly rights?: (input: RouteInput) => ReadonlyArray<{ right: RightName; domain?: string }>;
      /** Test keys only: a live key gets 403 sandbox_only (checked before the environment). */
      readonly sandboxOnly?: boolean;
    };

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
  readonly handle: (input: RouteInput) => Promise<Reply>;
  /** What an Idempotency-Key replay may show again. Default: the reply as it was. A reply that carries
   * a one-time secret (a new key) says here how to keep it without the secret. */
  readonly replayable?: (reply: Reply) => Reply;
  /** The write calls a peer outside our database (registry, card processor): it runs in atomic phases
   * with recovery points instead of one transaction (see core/kernel/checkpoints.port.ts). */
  readonly phased?: boolean;
}

export const isHumanOnly = (r: Route): boolean => r.access.kind === 'human';
