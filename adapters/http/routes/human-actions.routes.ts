import type { RegistrantContact } from '../../../core/domains/ports/registrar.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { Route, RouteInput } from '../route.js';
import { domainParam } from '../schemas.js';
import type { UseCases } from './use-cases.js';

/**
 * The six human-only actions (seed A6, DESIGN; issue 10): a signed-in person only, never a key — whatever
 * it carries, a key gets 403 human_only with an action pointing to the console page that does the same.
 * Each route calls the same use case as its console page.
 */
const human = (i: RouteInput) => i.human!;
const TAG = 'Human-only actions';
const environment = { type: 'string', enum: ['live', 'test'] };
const envBody = (extra: Record<string, unknown> = {}, required: string[] = []) => ({
  type: 'object', additionalProperties: false, required: ['environment', ...required], properties: { environment, ...extra },
});
const personView = {
  type: 'object',
  properties: {
    id: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string', enum: ['owner', 'member'] },
    two_factor: { type: 'boolean' }, last_sign_in_at: { type: ['string', 'null'] }, created_at: { type: 'string' },
  },
};
const invitationView = { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, expires_at: { type: 'string' }, created_at: { type: 'string' } } };
const cardView = { type: 'object', properties: { environment, brand: { type: 'string' }, last4: { type: 'string' } } };
const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z_.@+-]+$' } } };
const tokenParam = { type: 'object', required: ['token'], properties: { token: { type: 'string', pattern: '^[0-9A-Za-z]{43}$' } } };
const str = (max: number) => ({ type: 'string', maxLength: max });
export const registrantSchema = {
  type: 'object', additionalProperties: false, required: ['name', 'email', 'address'],
  properties: {
    name: str(255), organization: { type: ['string', 'null'], maxLength: 255 }, email: str(320), phone: { type: ['string', 'null'], maxLength: 20 },
    address: {
      type: 'object', additionalProperties: false, required: ['street', 'city', 'country_code'],
      properties: {
        street: { type: 'array', items: str(255), minItems: 1, maxItems: 3 }, city: str(255), region: { type: ['string', 'null'], maxLength: 255 },
        postal_code: { type: ['string', 'null'], maxLength: 16 }, country_code: str(2),
      },
    },
  },
};

type RegistrantBody = {
  name: string; organization?: string | null; email: string; phone?: string | null;
  address: { street: string[]; city: string; region?: string | null; postal_code?: string | null; country_code: string };
};
export const toContact = (b: RegistrantBody): RegistrantContact => ({
  name: b.name, organization: b.organization ?? null, email: b.email, phone: b.phone ?? null,
  address: { street: b.address.street, city: b.address.city, region: b.address.region ?? null, postalCode: b.address.postal_code ?? null, countryCode: b.address.country_code },
});
export const fromContact = (c: RegistrantContact) => ({
  name: c.name, organization: c.organization ?? null, email: c.email, phone: c.phone ?? null,
  address: { street: [...c.address.street], city: c.address.city, region: c.address.region ?? null, postal_code: c.address.postalCode ?? null, country_code: c.address.countryCode },
});

const REAUTH = ['reauth_required', 'owner_only'] as const;

export const humanActionRoutes = (uc: UseCases): Route[] => [
  {
    id: 'reauthenticate', method: 'POST', path: '/v1/account/reauthentications', tag: TAG, writes: true,
    summary: 'Sign in again (password + TOTP): the sensitive actions accept it for 5 minutes',
    access: { kind: 'human', session: true, console: '/console/reauth' },
    body: { type: 'object', additionalProperties: false, required: ['password'], properties: { password: str(1024), totp: str(10) } },
    responses: { 201: { description: 'Signed in again', schema: { type: 'object', properties: { authenticated_at: { type: 'string' }, valid_until: { type: 'string' } } } } },
    errors: ['sign_in_failed'],
    handle: async (i) => {
      const b = i.body as { password: string; totp?: string };
      const r = await uc.reauthenticate.execute(human(i), b);
      return { status: 201, body: { authenticated_at: r.authenticatedAt.toISOString(), valid_until: new Date(r.authenticatedAt.getTime() + 5 * 60_000).toISOString() } };
    },
  },
  {
    id: 'revealTransferCode', method: 'POST', path: '/v1/account/domains/{domain}/transfer-code', tag: TAG, writes: true,
    summary: 'Reveal the transfer (auth) code of a domain (owners, signed in again within 5 minutes; every owner is told)',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: domainParam, body: envBody(),
    responses: { 200: { description: 'The code', schema: { type: 'object', properties: { domain: { type: 'string' }, transfer_code: { type: 'string' } } } } },
    errors: [...REAUTH, 'domain_not_found', 'registrar_capability_missing'],
    handle: async (i) => {
      const r = await uc.revealTransferCode.execute(human(i), (i.body as { environment: Environment }).environment, i.params.domain!);
      return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { domain: r.domain, transfer_code: r.transferCode } };
    },
    // A replay never shows the code again.
    replayable: (reply) => ({ ...reply, body: { ...(reply.body as object), transfer_code: null } }),
  },
  {
    id: 'changeRegistrant', method: 'PUT', path: '/v1/account/domains/{domain}/registrant', tag: TAG, writes: true,
    summary: 'Change the registrant (domain holder) through the registrar (owners, signed in again)',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: domainParam, body: envBody({ registrant: registrantSchema }, ['registrant']),
    responses: { 200: { description: 'Changed', schema: { type: 'object', properties: { domain: { type: 'string' }, registrant: registrantSchema } } } },
    errors: [...REAUTH, 'domain_not_found', 'registrar_capability_missing', 'registry_failure'],
    handle: async (i) => {
      const b = i.body as { environment: Environment; registrant: RegistrantBody };
      const r = await uc.changeRegistrant.execute(human(i), b.environment, i.params.domain!, toContact(b.registrant));
      return { status: 200, body: { domain: r.domain, registrant: fromContact(r.registrant) } };
    },
  },
  {
    id: 'listPeople', method: 'GET', path: '/v1/account/people', tag: TAG, writes: false,
    summary: 'The people of the account (and, for owners, pending invitations)',
    access: { kind: 'human', session: true, console: '/console/people' },
    responses: { 200: { description: 'People', schema: { type: 'object', properties: { people: { type: 'array', items: personView }, invitations: { type: 'array', items: invitationView } } } } },
    handle: async (i) => ({ status: 200, body: await uc.managePeople.list(human(i).actor) }),
  },
  {
    id: 'invitePerson', method: 'POST', path: '/v1/account/invitations', tag: TAG, writes: true,
    summary: 'Invite a person by e-mail (owners); the link carries a one-time token, valid 7 days',
    access: { kind: 'human', session: true, console: '/console/people' },
    body: { type: 'object', additionalProperties: false, required: ['email', 'role'], properties: { email: str(320), role: { type: 'string', enum: ['owner', 'member'] } } },
    responses: { 201: { description: 'Invited', schema: { type: 'object', properties: { invitation: invitationView, link: { type: ['string', 'null'] } } } } },
    errors: ['owner_only', 'person_exists'],
    handle: async (i) => {
      const r = await uc.managePeople.invite(human(i).actor, i.body as { email: string; role: 'owner' | 'member' });
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { invitation: r.invitation, link: r.link } };
    },
    replayable: (reply) => ({ ...reply, body: { ...(reply.body as object), link: null } }),
  },
  {
    id: 'revokeInvitation', method: 'DELETE', path: '/v1/account/invitations/{id}', tag: TAG, writes: true,
    summary: 'Withdraw a pending invitation (owners)',
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    responses: { 204: { description: 'Withdrawn' } },
    errors: ['owner_only', 'invitation_invalid'],
    handle: async (i) => {
      await uc.managePeople.revokeInvitation(human(i).actor, i.params.id!);
      return { status: 204 };
    },
  },
  {
    id: 'inspectInvitation', method: 'GET', path: '/v1/invitations', tag: TAG, writes: false,
    summary: 'What an invitation link offers (no sign-in: the token is the proof; in the query, so request logs never hold it)',
    access: { kind: 'human', session: false, console: '/console/invitations' },
    query: { type: 'object', additionalProperties: false, required: ['token'], properties: { token: tokenParam.properties.token } },
    responses: { 200: { description: 'The invitation', schema: invitationView } },
    errors: ['invitation_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.managePeople.inspect(i.query.token as string) }),
  },
  {
    id: 'acceptInvitation', method: 'POST', path: '/v1/invitations/accept', tag: TAG, writes: true,
    summary: 'Accept an invitation: its token, a name and a password; the TOTP secret is answered once',
    access: { kind: 'human', session: false, console: '/console/invitations' },
    body: { type: 'object', additionalProperties: false, required: ['token', 'name', 'password'], properties: { token: tokenParam.properties.token, name: str(200), password: str(1024) } },
    responses: { 201: { description: 'Joined', schema: { type: 'object', properties: { person: personView, totp_secret: { type: 'string' }, totp_uri: { type: 'string' } } } } },
    errors: ['invitation_invalid', 'person_exists'],
    handle: async (i) => {
      const b = i.body as { token: string; name: string; password: string };
      const r = await uc.managePeople.accept(b.token, { name: b.name, password: b.password });
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { person: r.person, totp_secret: r.totpSecret, totp_uri: r.totpUri } };
    },
  },
  {
    id: 'changeRole', method: 'PATCH', path: '/v1/account/people/{id}', tag: TAG, writes: true,
    summary: 'Change a person\'s role (owners); the last owner cannot be demoted',
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    body: { type: 'object', additionalProperties: false, required: ['role'], properties: { role: { type: 'string', enum: ['owner', 'member'] } } },
    responses: { 200: { description: 'The person', schema: personView } },
    errors: ['owner_only', 'person_not_found', 'last_owner'],
    handle: async (i) => ({ status: 200, body: await uc.managePeople.changeRole(human(i).actor, i.params.id!, (i.body as { role: 'owner' | 'member' }).role) }),
  },
  {
    id: 'removePerson', method: 'DELETE', path: '/v1/account/people/{id}', tag: TAG, writes: true,
    summary: 'Remove a person (owners) or leave (yourself); their sessions and keys end; the last owner cannot leave',
    access: { kind: 'human', session: true, console: '/console/people' },
    params: idParam,
    responses: { 204: { description: 'Removed' } },
    errors: ['owner_only', 'person_not_found', 'last_owner'],
    handle: async (i) => {
      await uc.managePeople.remove(human(i).actor, i.params.id!);
      return { status: 204 };
    },
  },
  {
    id: 'getPaymentMethod', method: 'GET', path: '/v1/account/payment-method', tag: TAG, writes: false,
    summary: 'The saved card of an environment (brand and last four digits)',
    access: { kind: 'human', session: true, console: '/console/billing' },
    query: { type: 'object', additionalProperties: false, required: ['environment'], properties: { environment } },
    responses: { 200: { description: 'The card, or null', schema: { type: 'object', properties: { card: { oneOf: [cardView, { type: 'null' }] } } } } },
    handle: async (i) => ({ status: 200, body: { card: await uc.changePaymentMethod.current(human(i), i.query.environment as Environment) } }),
  },
  {
    id: 'saveSandboxCard', method: 'PUT', path: '/v1/account/payment-method', tag: TAG, writes: true,
    summary: 'Change the test environment\'s card to a sandbox card number (owners, signed in again)',
    access: { kind: 'human', session: true, console: '/console/billing' },
    body: { type: 'object', additionalProperties: false, required: ['environment', 'card_number'], properties: { environment: { type: 'string', enum: ['test'] }, card_number: str(23) } },
    responses: { 200: { description: 'Saved', schema: cardView } },
    errors: [...REAUTH, 'card_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.changePaymentMethod.saveSandboxCard(human(i), (i.body as { card_number: string }).card_number) }),
  },
  {
    id: 'startCardSetup', method: 'POST', path: '/v1/account/payment-method/setups', tag: TAG, writes: true,
    summary: 'Start saving a live card (Stripe SetupIntent): confirm it in the browser with client_secret, then complete it',
    access: { kind: 'human', session: true, console: '/console/billing' },
    body: envBody(),
    responses: { 201: { description: 'Started', schema: { type: 'object', properties: { setup_id: { type: 'string' }, client_secret: { type: 'string' } } } } },
    errors: [...REAUTH, 'card_setup_unavailable', 'payment_failed'],
    handle: async (i) => ({ status: 201, headers: { 'Cache-Control': 'no-store' }, body: await uc.changePaymentMethod.startSetup(human(i), (i.body as { environment: Environment }).environment) }),
  },
  {
    id: 'completeCardSetup', method: 'POST', path: '/v1/account/payment-method/setups/{id}/complete', tag: TAG, writes: true,
    summary: 'Save the card of a confirmed setup as the payment method',
    access: { kind: 'human', session: true, console: '/console/billing' },
    params: idParam, body: envBody(),
    responses: { 200: { description: 'Saved', schema: cardView } },
    errors: [...REAUTH, 'card_setup_unavailable', 'card_declined', 'payment_failed'],
    handle: async (i) => ({ status: 200, body: await uc.changePaymentMethod.completeSetup(human(i), (i.body as { environment: Environment }).environment, i.params.id!) }),
  },
  {
    id: 'disableTwoFactor', method: 'DELETE', path: '/v1/account/two-factor', tag: TAG, writes: true,
    summary: 'Switch off two-factor checks for yourself (signed in again; every owner is told)',
    access: { kind: 'human', session: true, console: '/console/security' },
    responses: { 200: { description: 'Switched off', schema: { type: 'object', properties: { two_factor: { type: 'boolean' } } } } },
    errors: ['reauth_required'],
    handle: async (i) => ({ status: 200, body: await uc.disableTwoFactor.execute(human(i)) }),
  },
  // Switching two-factor checks on again, in two steps: a new secret, then a code from it (the same action
  // as switching them off, so human-only too: a key must never choose a person's second factor).
  {
    id: 'startTwoFactorEnrolment', method: 'POST', path: '/v1/account/two-factor/enrolment', tag: TAG, writes: true,
    summary: 'Start switching two-factor checks on again: a new TOTP secret, answered once (signed in again; while two-factor checks are off)',
    description: 'The secret waits, pending, until PUT /v1/account/two-factor confirms it with a code; calling this again replaces it. An Idempotency-Key replay never shows the secret again.',
    access: { kind: 'human', session: true, console: '/console/security' },
    responses: {
      201: {
        description: 'A new secret, pending until a code from it confirms it',
        schema: { type: 'object', properties: { secret: { type: ['string', 'null'], description: 'Base32 TOTP seed (RFC 6238: SHA-1, 6 digits, 30 s)' }, otpauth_uri: { type: ['string', 'null'], description: 'otpauth:// URI for authenticator apps' } } },
      },
    },
    errors: ['reauth_required', 'two_factor_already_on'],
    handle: async (i) => {
      const r = await uc.enableTwoFactor.start(human(i));
      return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { secret: r.secret, otpauth_uri: r.otpauthUri } };
    },
    replayable: (reply) => ({ ...reply, body: { ...(reply.body as object), secret: null, otpauth_uri: null } }),
  },
  {
    id: 'enableTwoFactor', method: 'PUT', path: '/v1/account/two-factor', tag: TAG, writes: true,
    summary: 'Switch two-factor checks on again: a current code from the pending secret makes it yours (every owner is told)',
    access: { kind: 'human', session: true, console: '/console/security' },
    body: { type: 'object', additionalProperties: false, required: ['totp'], properties: { totp: { type: 'string', pattern: '^[0-9]{6}$', description: 'Six digits from the new secret' } } },
    responses: { 200: { description: 'Switched on', schema: { type: 'object', properties: { two_factor: { type: 'boolean' } } } } },
    errors: ['two_factor_already_on', 'two_factor_enrolment_missing', 'totp_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.enableTwoFactor.confirm(human(i), (i.body as { totp: string }).totp) }),
  },
  {
    id: 'deleteAccount', method: 'DELETE', path: '/v1/account', tag: TAG, writes: true,
    summary: 'Delete the account (owners, signed in again); refused while it holds domains or a non-zero balance',
    access: { kind: 'human', session: true, console: '/console/account' },
    responses: { 200: { description: 'Deleted', schema: { type: 'object', properties: { deleted: { type: 'boolean' } } } } },
    errors: [...REAUTH, 'account_not_empty'],
    handle: async (i) => ({ status: 200, body: await uc.deleteAccount.execute(human(i)) }),
  },
];

