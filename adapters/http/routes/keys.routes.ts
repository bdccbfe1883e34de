import type { DescribeKey } from '../../../core/access/describe-key.use-case.js';
import type { IssueKey, IssueKeyInput } from '../../../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../../../core/access/manage-keys.use-case.js';
import type { TsigCredentials } from '../../../core/access/tsig-credentials.use-case.js';
import { route, withBody, type Route } from '../route.js';
import type { FromSchema } from '../schema-type.js';
import { i18n, keyRequest, keyView, money, page, pageQuery, policy, summary, tsigCredential } from '../schemas.js';

/**
 * Keys: the calling key (/v1/key, any key) and managing an account's keys (/v1/account/keys, a session
 * only, never a key: seed A6, managing keys is one of the six human-only actions).
 */
export interface KeysUseCases {
  readonly describeKey: Pick<DescribeKey, 'execute'>;
  /** `check` is the console wizard's step-by-step check. */
  readonly issueKey: Pick<IssueKey, 'preview' | 'issue' | 'check'>;
  readonly listKeys: Pick<ListKeys, 'execute'>;
  readonly revokeKey: Pick<RevokeKey, 'execute'>;
  /** The console's: a TSIG credential for a key issued before TSIG existed (human-only, shown once). */
  readonly tsigCredentials: Pick<TsigCredentials, 'show' | 'issue'>;
}

/** The request as the use case takes it: a spend limit is kopiykas, absent conditions are null. */
const keyInput = (b: FromSchema<typeof keyRequest>): IssueKeyInput => {
  const c = b.conditions;
  return {
    ...b,
    conditions:
      c === undefined ? {} : { cidr: c.cidr ?? null, expires_on: c.expires_on ?? null, spend_limit: c.spend_limit?.amount ?? null },
  };
};

/** What a key request can be refused for, whether previewed or issued. */
const KEY_REQUEST_ERRORS = [
  'role_forbidden',
  'key_lifetime_exceeded',
  'expiry_in_past',
  'ip_restriction_required',
  'ip_restriction_too_wide',
  'spend_limit_required',
  'right_test_only',
  'domains_required',
  'domain_invalid',
] as const;

export const keyRoutes = (uc: KeysUseCases): Route[] => [
  route({
    id: 'getKey',
    method: 'GET',
    path: '/v1/key',
    tag: 'Keys',
    writes: false,
    summary: 'The calling key: id, environment, policies, conditions, class, expiry and spend this month',
    access: { kind: 'key', anyKey: true },
    responses: {
      200: {
        description: 'The key',
        schema: {
          ...keyView,
          properties: {
            ...keyView.properties,
            class_meaning: i18n,
            spend: {
              type: 'object',
              properties: {
                month: { type: 'string' },
                used: money,
                limit: { oneOf: [money, { type: 'null' }] },
                remaining: { oneOf: [money, { type: 'null' }] },
              },
            },
          },
        },
      },
    },
    handle: async (i) => ({ status: 200, body: await uc.describeKey.execute(i.key) }),
  }),
  route({
    id: 'previewKey',
    method: 'POST',
    path: '/v1/account/keys/preview',
    tag: 'Keys (humans)',
    writes: false,
    summary: 'Review a key before issuing it: its class and plain-language summary (seed A8); issues nothing',
    access: { kind: 'human', session: true, console: '/console/keys/new' },
    body: keyRequest,
    responses: {
      200: {
        description: 'The key as it would be issued',
        schema: {
          type: 'object',
          properties: {
            environment: { type: 'string' },
            name: { type: 'string' },
            class: { type: 'integer' },
            class_name: i18n,
            policies: { type: 'array', items: policy },
            conditions: { type: 'object', additionalProperties: true },
            summary,
          },
        },
      },
    },
    errors: [...KEY_REQUEST_ERRORS],
    handle: async (i) => {
      const d = uc.issueKey.preview(i.human.actor, keyInput(i.body));
      return {
        status: 200,
        body: {
          environment: d.environment,
          name: d.name,
          class: d.class,
          policies: d.policies,
          conditions: {
            cidr: d.conditions.cidr,
            expires_on: d.conditions.expiresOn,
            spend_limit: d.conditions.spendLimit === null ? null : { amount: d.conditions.spendLimit, currency: 'UAH' },
          },
          summary: d.summary,
        },
      };
    },
  }),
  route({
    id: 'issueKey',
    method: 'POST',
    path: '/v1/account/keys',
    tag: 'Keys (humans)',
    writes: true,
    summary: 'Issue a key; the key string is returned once and never again',
    access: { kind: 'human', session: true, console: '/console/keys/new' },
    body: keyRequest,
    responses: {
      201: {
        description: 'Issued',
        schema: {
          type: 'object',
          required: ['key', 'secret', 'summary'],
          properties: {
            key: keyView,
            secret: { type: ['string', 'null'], description: 'dmk_live_… or dmk_test_…; shown once (null in an Idempotency-Key replay).' },
            secret_note: i18n,
            summary,
            tsig: tsigCredential,
          },
        },
      },
    },
    errors: [...KEY_REQUEST_ERRORS],
    handle: async (i) => {
      const r = await uc.issueKey.issue(i.human.actor, keyInput(i.body));
      return { status: 201, headers: { Location: `/v1/account/keys/${r.key.id}`, 'Cache-Control': 'no-store' }, body: r };
    },
    // The key string is shown once: a replay shows the issued key without it (revoke and reissue if lost).
    replayable: (reply) =>
      withBody(reply, {
        secret: null,
        tsig: null,
        secret_note: {
          uk: 'Рядок ключа показується лише один раз. Якщо його втрачено, відкличте цей ключ і випустіть новий.',
          en: 'The key string is shown only once. If it was lost, revoke this key and issue a new one.',
        },
      }),
  }),
  route({
    id: 'listKeys',
    method: 'GET',
    path: '/v1/account/keys',
    tag: 'Keys (humans)',
    writes: false,
    summary: 'List keys: owners see every key of the account, members their own',
    access: { kind: 'human', session: true, console: '/console/keys' },
    query: pageQuery({}),
    responses: { 200: { description: 'A page of keys', schema: page(keyView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listKeys.execute(i.human.actor, { cursor: i.query.cursor, limit: i.query.limit }),
    }),
  }),
  route({
    id: 'revokeKey',
    method: 'DELETE',
    path: '/v1/account/keys/{id}',
    tag: 'Keys (humans)',
    writes: true,
    summary: 'Revoke a key (at once in this process, within 5 s everywhere)',
    access: { kind: 'human', session: true, console: '/console/keys' },
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[0-9A-Za-z]{12}$' } } },
    responses: { 200: { description: 'The revoked key', schema: keyView } },
    errors: ['key_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.revokeKey.execute(i.human.actor, i.params.id) }),
  }),
];
