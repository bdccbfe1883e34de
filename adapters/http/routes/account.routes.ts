import type { SignIn, SignOut } from '../../../core/accounts/sign-in.use-case.js';
import type { Reauthenticate } from '../../../core/accounts/reauthenticate.use-case.js';
import type { ManagePeople } from '../../../core/accounts/manage-people.use-case.js';
import type { DisableTwoFactor } from '../../../core/accounts/disable-two-factor.use-case.js';
import type { EnableTwoFactor } from '../../../core/accounts/enable-two-factor.use-case.js';
import type { DeleteAccount } from '../../../core/accounts/delete-account.use-case.js';
import { SESSION_COOKIE } from '../app.js';
import { route, withBody, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { REAUTH, str, TAG } from './human-only.js';

/**
 * The account (/v1/account, /v1/invitations): sessions, people, two-factor checks, deleting it. A
 * session only, never a key (seed A6); each route names its console page.
 */
export interface AccountUseCases {
  readonly signIn: Pick<SignIn, 'execute'>;
  readonly signOut: Pick<SignOut, 'execute'>;
  readonly reauthenticate: Pick<Reauthenticate, 'execute'>;
  readonly managePeople: Pick<ManagePeople, 'list' | 'invite' | 'revokeInvitation' | 'inspect' | 'accept' | 'changeRole' | 'remove'>;
  readonly disableTwoFactor: Pick<DisableTwoFactor, 'execute'>;
  readonly enableTwoFactor: Pick<EnableTwoFactor, 'start' | 'confirm'>;
  readonly deleteAccount: Pick<DeleteAccount, 'execute'>;
}

const person = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: ['owner', 'member'] },
    account_id: { type: 'string' },
    last_sign_in_at: { type: ['string', 'null'], format: 'date-time' },
  },
});
const personView = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: ['owner', 'member'] },
    two_factor: { type: 'boolean' },
    last_sign_in_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
  },
});
const invitationView = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    expires_at: { type: 'string' },
    created_at: { type: 'string' },
  },
});
const idParam = schema({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z_.@+-]+$' } },
});
const tokenParam = schema({ type: 'object', required: ['token'], properties: { token: { type: 'string', pattern: '^[0-9A-Za-z]{43}$' } } });

export const accountRoutes = (uc: AccountUseCases): Route[] => [
  route({
    id: 'signIn',
    method: 'POST',
    path: '/v1/account/sessions',
    tag: 'Account (humans)',
    writes: true,
    secretFields: ['password', 'totp'],
    summary: 'Sign in with e-mail, password and TOTP code; sets the session cookie',
    access: { kind: 'human', session: false, console: '/console/sign-in' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'password', 'totp'],
      properties: {
        email: { type: 'string', maxLength: 320 },
        password: { type: 'string', maxLength: 1024 },
        totp: { type: 'string', maxLength: 10 },
      },
    },
    responses: {
      201: {
        description: 'Signed in',
        schema: { type: 'object', properties: { person, expires_at: { type: 'string', format: 'date-time' } } },
      },
    },
    errors: ['sign_in_failed', 'too_many_attempts'],
    handle: async (i) => {
      const b = i.body;
      const s = await uc.signIn.execute({ ...b, address: i.ip });
      return {
        status: 201,
        cookies: [{ name: SESSION_COOKIE, value: s.token, expires: s.session.expiresAt }],
        body: {
          person: {
            id: s.person.id,
            email: s.person.email,
            name: s.person.name,
            role: s.person.role,
            account_id: s.person.accountId,
            last_sign_in_at: s.session.authenticatedAt.toISOString(),
          },
          expires_at: s.session.expiresAt.toISOString(),
        },
      };
    },
  }),
  route({
    id: 'signOut',
    method: 'DELETE',
    path: '/v1/account/sessions/current',
    tag: 'Account (humans)',
    writes: true,
    summary: 'Sign out (ends this session)',
    access: { kind: 'human', session: true, console: '/console' },
    responses: { 204: { description: 'Signed out' } },
    handle: async (i) => {
      await uc.signOut.execute(i.human.session);
      return { status: 204, cookies: [{ name: SESSION_COOKIE, value: '', maxAgeMs: 0 }] };
    },
  }),
  route({
    id: 'getAccount',
    method: 'GET',
    path: '/v1/account',
    tag: 'Account (humans)',
    writes: false,
    summary: 'The signed-in person and their session',
    access: { kind: 'human', session: true, console: '/console' },
    responses: {
      200: {
        description: 'The person',
        schema: { type: 'object', properties: { person, session: { type: 'object', additionalProperties: true } } },
      },
    },
    handle: async (i) => {
      const h = i.human;
      return {
        status: 200,
        body: {
          person: {
            id: h.person.id,
            email: h.person.email,
            name: h.person.name,
            role: h.person.role,
            account_id: h.person.accountId,
            last_sign_in_at: h.person.lastSignInAt?.toISOString() ?? null,
          },
          session: { authenticated_at: h.session.authenticatedAt.toISOString(), expires_at: h.session.expiresAt.toISOString() },
        },
      };
    },
  }),
  route({
    id: 'reauthenticate',
    method: 'POST',
    path: '/v1/account/reauthentications',
    tag: TAG,
    writes: true,
    secretFields: ['password', 'totp'],
    summary: 'Sign in again (password + TOTP): the sensitive actions accept it for 5 minutes',
    access: { kind: 'human', session: true, console: '/console/reauth' },
    body: { type: 'object', additionalProperties: false, required: ['password'], properties: { password: str(1024), totp: str(10) } },
    responses: {
      201: {
        description: 'Signed in again',
        schema: { type: 'object', properties: { authenticated_at: { type: 'string' }, valid_until: { type: 'string' } } },
      },
    },
    errors: ['sign_in_failed', 'too_many_attempts'],
    handle: async (i) => {
      const b = i.body;
      const r = await uc.reauthenticate.execute(i.human, { ...b, address: i.ip });
      return {
        status: 201,
        body: {
          authenticated_at: r.authenticatedAt.toISOString(),
          valid_until: new Date(r.authenticatedAt.getTime() + 5 * 60_000).toISOString(),
        },
      };
    },
  }),
  route({
    id: 'listPeople',
    method: 'GET',
    path: '/v1/account/people',
    tag: TAG,
    writes: false,
    summary: 'The people of the account (and, for owners, pending invitations)',
    access: { kind: 'human', session: true, console: '/console/people' },
    responses: {
      200: {
        description: 'People',
        schema: {
          type: 'object',
          properties: { people: { type: 'array', items: personView }, invitations: { type: 'array', items: invitationView } },
        },
      },
    },
    handle: async (i) => ({ status: 200, body: await uc.managePeople.list(i.human.actor) }),
  }),
  route({
    id: 'invitePerson',
    method: 'POST',
    path: '/v1/account/invitations',
    tag: TAG,
    writes: true,
    summary: 'Invite a person by e-mail (owners); the link carries a one-time token, valid 7 days',
    access: { kind: 'human', session: true, console: '/console/people' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['email', 'role'],
      properties: { email: str(320), role: { type: 'string', enum: ['owner', 'member'] } },
    },
    responses: {
      201: {
        description: 'Invited',
        schema: { type: 'object', properties: { invitation: invitationView, link: { type: ['string', 'null'] } } },
      },
    },
    errors: ['owner_only', 'person_exists'],
    handle: async (i) => {
      const r = await uc.managePeople.invite(i.human.actor, i.body);
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { invitation: r.invitation, link: r.link } };
    },
    replayable: (reply) => withBody(reply, { link: null }),
  }),
  route({
    id: 'revokeInvitation',
    method: 'DELETE',
    path: '/v1/account/invitations/{id}',
    tag: TAG,
    writes: true,
    summary: 'Withdraw a pending invitation (owners)',
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    responses: { 204: { description: 'Withdrawn' } },
    errors: ['owner_only', 'invitation_invalid'],
    handle: async (i) => {
      await uc.managePeople.revokeInvitation(i.human.actor, i.params.id);
      return { status: 204 };
    },
  }),
  route({
    id: 'inspectInvitation',
    method: 'GET',
    path: '/v1/invitations',
    tag: TAG,
    writes: false,
    summary: 'What an invitation link offers (no sign-in: the token is the proof; in the query, so request logs never hold it)',
    access: { kind: 'human', session: false, console: '/console/invitations' },
    query: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: tokenParam.properties.token } },
    responses: { 200: { description: 'The invitation', schema: invitationView } },
    errors: ['invitation_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.managePeople.inspect(i.query.token) }),
  }),
  route({
    id: 'acceptInvitation',
    method: 'POST',
    path: '/v1/invitations/accept',
    tag: TAG,
    writes: true,
    secretFields: ['token', 'password'],
    summary: 'Accept an invitation: its token, a name and a password; the TOTP secret is answered once',
    access: { kind: 'human', session: false, console: '/console/invitations' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['token', 'name', 'password'],
      properties: { token: tokenParam.properties.token, name: str(200), password: str(1024) },
    },
    responses: {
      201: {
        description: 'Joined',
        schema: { type: 'object', properties: { person: personView, totp_secret: { type: 'string' }, totp_uri: { type: 'string' } } },
      },
    },
    errors: ['invitation_invalid', 'person_exists'],
    handle: async (i) => {
      const b = i.body;
      const r = await uc.managePeople.accept(b.token, { name: b.name, password: b.password });
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store' },
        body: { person: r.person, totp_secret: r.totpSecret, totp_uri: r.totpUri },
      };
    },
  }),
  route({
    id: 'changeRole',
    method: 'PATCH',
    path: '/v1/account/people/{id}',
    tag: TAG,
    writes: true,
    summary: "Change a person's role (owners); the last owner cannot be demoted",
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['role'],
      properties: { role: { type: 'string', enum: ['owner', 'member'] } },
    },
    responses: { 200: { description: 'The person', schema: personView } },
    errors: ['owner_only', 'person_not_found', 'last_owner'],
    handle: async (i) => ({ status: 200, body: await uc.managePeople.changeRole(i.human.actor, i.params.id, i.body.role) }),
  }),
  route({
    id: 'removePerson',
    method: 'DELETE',
    path: '/v1/account/people/{id}',
    tag: TAG,
    writes: true,
    summary: 'Remove a person (owners) or leave (yourself); their sessions and keys end; the last owner cannot leave',
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    responses: { 204: { description: 'Removed' } },
    errors: ['owner_only', 'person_not_found', 'last_owner'],
    handle: async (i) => {
      await uc.managePeople.remove(i.human.actor, i.params.id);
      return { status: 204 };
    },
  }),
  route({
    id: 'disableTwoFactor',
    method: 'DELETE',
    path: '/v1/account/two-factor',
    tag: TAG,
    writes: true,
    summary: 'Switch off two-factor checks for yourself (signed in again; every owner is told)',
    access: { kind: 'human', session: true, console: '/console/security' },
    responses: { 200: { description: 'Switched off', schema: { type: 'object', properties: { two_factor: { type: 'boolean' } } } } },
    errors: ['reauth_required'],
    handle: async (i) => ({ status: 200, body: await uc.disableTwoFactor.execute(i.human) }),
  }),
  // Switching two-factor checks on again, in two steps: a new secret, then a code from it (the same action
  // as switching them off, so human-only too: a key must never choose a person's second factor).
  route({
    id: 'startTwoFactorEnrolment',
    method: 'POST',
    path: '/v1/account/two-factor/enrolment',
    tag: TAG,
    writes: true,
    summary:
      'Start switching two-factor checks on again: a new TOTP secret, answered once (signed in again; while two-factor checks are off)',
    description:
      'The secret waits, pending, until PUT /v1/account/two-factor confirms it with a code; calling this again replaces it. An Idempotency-Key replay never shows the secret again.',
    access: { kind: 'human', session: true, console: '/console/security' },
    responses: {
      201: {
        description: 'A new secret, pending until a code from it confirms it',
        schema: {
          type: 'object',
          properties: {
            secret: { type: ['string', 'null'], description: 'Base32 TOTP seed (RFC 6238: SHA-1, 6 digits, 30 s)' },
            otpauth_uri: { type: ['string', 'null'], description: 'otpauth:// URI for authenticator apps' },
          },
        },
      },
    },
    errors: ['reauth_required', 'two_factor_already_on'],
    handle: async (i) => {
      const r = await uc.enableTwoFactor.start(i.human);
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { secret: r.secret, otpauth_uri: r.otpauthUri } };
    },
    replayable: (reply) => withBody(reply, { secret: null, otpauth_uri: null }),
  }),
  route({
    id: 'enableTwoFactor',
    method: 'PUT',
    path: '/v1/account/two-factor',
    tag: TAG,
    writes: true,
    secretFields: ['totp'],
    summary: 'Switch two-factor checks on again: a current code from the pending secret makes it yours (every owner is told)',
    access: { kind: 'human', session: true, console: '/console/security' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['totp'],
      properties: { totp: { type: 'string', pattern: '^[0-9]{6}$', description: 'Six digits from the new secret' } },
    },
    responses: { 200: { description: 'Switched on', schema: { type: 'object', properties: { two_factor: { type: 'boolean' } } } } },
    errors: ['two_factor_already_on', 'two_factor_enrolment_missing', 'totp_invalid', 'too_many_attempts'],
    handle: async (i) => ({ status: 200, body: await uc.enableTwoFactor.confirm(i.human, i.body.totp, i.ip) }),
  }),
  route({
    id: 'deleteAccount',
    method: 'DELETE',
    path: '/v1/account',
    tag: TAG,
    writes: true,
    summary: 'Delete the account (owners, signed in again); refused while it holds domains or a non-zero balance',
    access: { kind: 'human', session: true, console: '/console/account' },
    responses: { 200: { description: 'Deleted', schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } } },
    errors: [...REAUTH, 'account_not_empty'],
    handle: async (i) => ({ status: 200, body: await uc.deleteAccount.execute(i.human) }),
  }),
];
