import type { IssueKeyInput } from '../../../core/access/issue-key.use-case.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { SESSION_COOKIE } from '../app.js';
import type { Route, RouteInput } from '../route.js';
import { i18n, keyRequest, keyView, page, pageQuery, policy, summary } from '../schemas.js';
import type { UseCases } from './use-cases.js';

/**
 * Human endpoints (/v1/account/…): a session only, never a key (seed A6 — managing the people and
 * keys of an organisation is one of the six human-only actions). Each names its console page.
 */
const keyInput = (body: unknown): IssueKeyInput => {
  const b = body as IssueKeyInput & { conditions?: { spend_limit?: { amount: number } | null; cidr?: string | null; expires_on?: string | null } };
  const c = b.conditions;
  return {
    ...b,
    conditions: c === undefined ? {} : { cidr: c.cidr ?? null, expires_on: c.expires_on ?? null, spend_limit: c.spend_limit?.amount ?? null },
  } as IssueKeyInput;
};

const human = (i: RouteInput) => i.human!;

const person = {
  type: 'object',
  properties: {
    id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string', enum: ['owner', 'member'] },
    account_id: { type: 'string' }, last_sign_in_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const accountRoutes = (uc: UseCases): Route[] => [
  {
    id: 'signIn', method: 'POST', path: '/v1/account/sessions', tag: 'Account (humans)', writes: true,
    summary: 'Sign in with e-mail, password and TOTP code; sets the session cookie',
    access: { kind: 'human', session: false, console: '/console/sign-in' },
    body: {
      type: 'object', additionalProperties: false, required: ['email', 'password', 'totp'],
      properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: 1024 }, totp: { type: 'string', maxLength: 10 } },
    },
    responses: { 201: { description: 'Signed in', schema: { type: 'object', properties: { person, expires_at: { type: 'string', format: 'date-time' } } } } },
    errors: ['sign_in_failed'],
    handle: async (i) => {
      const b = i.body as { email: string; password: string; totp: string };
      const s = await uc.signIn.execute(b);
      return {
        status: 201,
        cookies: [{ name: SESSION_COOKIE, value: s.token, expires: s.session.expiresAt }],
        body: {
          person: { id: s.person.id, email: s.person.email, name: s.person.name, role: s.person.role, account_id: s.person.accountId, last_sign_in_at: s.session.authenticatedAt.toISOString() },
          expires_at: s.session.expiresAt.toISOString(),
        },
      };
    },
  },
  {
    id: 'signOut', method: 'DELETE', path: '/v1/account/sessions/current', tag: 'Account (humans)', writes: true,
    summary: 'Sign out (ends this session)',
    access: { kind: 'human', session: true, console: '/console' },
    responses: { 204: { description: 'Signed out' } },
    handle: async (i) => {
      await uc.signOut.execute(human(i).session);
      return { status: 204, cookies: [{ name: SESSION_COOKIE, value: '', maxAgeMs: 0 }] };
    },
  },
  {
    id: 'getAccount', method: 'GET', path: '/v1/account', tag: 'Account (humans)', writes: false,
    summary: 'The signed-in person and their session',
    access: { kind: 'human', session: true, console: '/console' },
    responses: { 200: { description: 'The person', schema: { type: 'object', properties: { person, session: { type: 'object' } } } } },
    handle: async (i) => {
      const h = human(i);
      return {
        status: 200,
        body: {
          person: { id: h.person.id, email: h.person.email, name: h.person.name, role: h.person.role, account_id: h.person.accountId, last_sign_in_at: h.person.lastSignInAt?.toISOString() ?? null },
          session: { authenticated_at: h.session.authenticatedAt.toISOString(), expires_at: h.session.expiresAt.toISOString() },
        },
      };
    },
  },
  {
    id: 'previewKey', method: 'POST', path: '/v1/account/keys/preview', tag: 'Keys (humans)', writes: false,
    summary: 'Review a key before issuing it: its class and plain-language summary (seed A8); issues nothing',
    access: { kind: 'human', session: true, console: '/console/keys/new' },
    body: keyRequest,
    responses: {
      200: {
        description: 'The key as it would be issued',
        schema: { type: 'object', properties: { environment: { type: 'string' }, name: { type: 'string' }, class: { type: 'integer' }, class_name: i18n, policies: { type: 'array', items: policy }, conditions: { type: 'object' }, summary } },
      },
    },
    errors: ['role_forbidden', 'key_lifetime_exceeded', 'expiry_in_past', 'ip_restriction_required', 'ip_restriction_too_wide', 'spend_limit_required', 'domains_required', 'domain_invalid'],
    handle: async (i) => {
      const d = uc.issueKey.preview(human(i).actor, keyInput(i.body));
      return {
        status: 200,
        body: {
          environment: d.environment, name: d.name, class: d.class, policies: d.policies,
          conditions: { cidr: d.conditions.cidr, expires_on: d.conditions.expiresOn, spend_limit: d.conditions.spendLimit === null ? null : { amount: d.conditions.spendLimit, currency: 'UAH' } },
          summary: d.summary,
        },
      };
    },
  },
  {
    id: 'issueKey', method: 'POST', path: '/v1/account/keys', tag: 'Keys (humans)', writes: true,
    summary: 'Issue a key; the key string is returned once and never again',
    access: { kind: 'human', session: true, console: '/console/keys/new' },
    body: keyRequest,
    responses: {
      201: { description: 'Issued', schema: { type: 'object', required: ['key', 'secret', 'summary'], properties: { key: keyView, secret: { type: ['string', 'null'], description: 'dmk_live_… or dmk_test_…; shown once (null in an Idempotency-Key replay).' }, secret_note: i18n, summary } } },
    },
    errors: ['role_forbidden', 'key_lifetime_exceeded', 'expiry_in_past', 'ip_restriction_required', 'ip_restriction_too_wide', 'spend_limit_required', 'domains_required', 'domain_invalid'],
    handle: async (i) => {
      const r = await uc.issueKey.issue(human(i).actor, keyInput(i.body));
      return { status: 201, headers: { Location: `/v1/account/keys/${r.key.id}`, 'Cache-Control': 'no-store' }, body: r };
    },
    // The key string is shown once: a replay shows the issued key without it (revoke and reissue if lost).
    replayable: (reply) => ({
      ...reply,
      body: {
        ...(reply.body as object),
        secret: null,
        secret_note: {
          uk: 'Рядок ключа показується лише один раз. Якщо його втрачено, відкличте цей ключ і випустіть новий.',
          en: 'The key string is shown only once. If it was lost, revoke this key and issue a new one.',
        },
      },
    }),
  },
  {
    id: 'listKeys', method: 'GET', path: '/v1/account/keys', tag: 'Keys (humans)', writes: false,
    summary: 'List keys: owners see every key of the account, members their own',
    access: { kind: 'human', session: true, console: '/console/keys' },
    query: pageQuery(),
    responses: { 200: { description: 'A page of keys', schema: page(keyView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listKeys.execute(human(i).actor, { cursor: i.query.cursor as string | undefined, limit: i.query.limit as number | undefined }),
    }),
  },
  {
    id: 'revokeKey', method: 'DELETE', path: '/v1/account/keys/{id}', tag: 'Keys (humans)', writes: true,
    summary: 'Revoke a key (at once in this process, within 5 s everywhere)',
    access: { kind: 'human', session: true, console: '/console/keys' },
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[0-9A-Za-z]{12}$' } } },
    responses: { 200: { description: 'The revoked key', schema: keyView } },
    errors: ['key_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.revokeKey.execute(human(i).actor, i.params.id!) }),
  },
  {
    id: 'listAccountNotices', method: 'GET', path: '/v1/account/notices', tag: 'Account (humans)', writes: false,
    summary: 'Notices to the signed-in person (e.g. class 2 keys issued), newest first',
    access: { kind: 'human', session: true, console: '/console/notices' },
    query: pageQuery({ environment: { type: 'string', enum: ['live', 'test'] } }),
    responses: { 200: { description: 'A page of notices', schema: page({ type: 'object', properties: { id: { type: 'string' }, kind: { type: 'string' }, message: i18n, created_at: { type: 'string' } } }) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listNotices.execute(human(i).actor, {
        environment: i.query.environment as Environment | undefined, cursor: i.query.cursor as string | undefined, limit: i.query.limit as number | undefined,
      }),
    }),
  },
];
