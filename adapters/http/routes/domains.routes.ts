import type { RegistrantContact } from '../../../core/domains/ports/registrar.port.js';
import type { ListDomains, GetDomain } from '../../../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../../../core/domains/search-domains.use-case.js';
import type { RegisterDomain } from '../../../core/domains/register-domain.use-case.js';
import type { RenewDomain } from '../../../core/domains/renew-domain.use-case.js';
import type { SetAutoRenew } from '../../../core/domains/set-auto-renew.use-case.js';
import type { RevealTransferCode } from '../../../core/domains/reveal-transfer-code.use-case.js';
import type { ChangeRegistrant } from '../../../core/domains/change-registrant.use-case.js';
import type { RequestOperation } from '../../../core/operations/request-operation.use-case.js';
import type { LockTransfer } from '../../../core/operations/lock-transfer.use-case.js';
import { route, withBody, type Route } from '../route.js';
import { schema, type FromSchema } from '../schema-type.js';
import { domainParam, domainView, money, page, pageQuery } from '../schemas.js';
import { envBody, REAUTH, str, TAG } from './human-only.js';
import { operationView, pendingOperation } from './operations.routes.js';

/**
 * Domains (/v1/domains, /v1/search, /v1/account/domains): reading, registering and renewing them, the
 * class 3 changes that wait for a second owner (nameservers, transfer lock, labels), and the human-only
 * actions on one domain (its transfer code, its registrant).
 */
export interface DomainsUseCases {
  readonly listDomains: Pick<ListDomains, 'execute'>;
  readonly getDomain: Pick<GetDomain, 'execute'>;
  readonly searchDomains: Pick<SearchDomains, 'execute'>;
  readonly registerDomain: Pick<RegisterDomain, 'execute'>;
  readonly renewDomain: Pick<RenewDomain, 'execute'>;
  readonly setAutoRenew: Pick<SetAutoRenew, 'execute'>;
  readonly requestOperation: Pick<RequestOperation, 'execute'>;
  readonly lockTransfer: Pick<LockTransfer, 'execute'>;
  readonly revealTransferCode: Pick<RevealTransferCode, 'execute'>;
  readonly changeRegistrant: Pick<ChangeRegistrant, 'execute'>;
}

const charged = schema({
  ...domainView,
  properties: {
    ...domainView.properties,
    charge: { type: 'object', properties: { amount: money, ledger_entry_id: { type: 'string' } } },
  },
});

const waiting = { 202: pendingOperation };
const REQUEST_ERRORS = ['domain_not_found', 'operation_pending', 'operation_no_change', 'owner_required'] as const;
const location = (id: string) => ({ Location: `/v1/operations/${id}` });

export const registrantSchema = schema({
  type: 'object',
  additionalProperties: false,
  required: ['name', 'email', 'address'],
  properties: {
    name: str(255),
    organization: { type: ['string', 'null'], maxLength: 255 },
    email: str(320),
    phone: { type: ['string', 'null'], maxLength: 20 },
    address: {
      type: 'object',
      additionalProperties: false,
      required: ['street', 'city', 'country_code'],
      properties: {
        street: { type: 'array', items: str(255), minItems: 1, maxItems: 3 },
        city: str(255),
        region: { type: ['string', 'null'], maxLength: 255 },
        postal_code: { type: ['string', 'null'], maxLength: 16 },
        country_code: str(2),
      },
    },
  },
});

export const toContact = (b: FromSchema<typeof registrantSchema>): RegistrantContact => ({
  name: b.name,
  organization: b.organization ?? null,
  email: b.email,
  phone: b.phone ?? null,
  address: {
    street: b.address.street,
    city: b.address.city,
    region: b.address.region ?? null,
    postalCode: b.address.postal_code ?? null,
    countryCode: b.address.country_code,
  },
});
export const fromContact = (c: RegistrantContact) => ({
  name: c.name,
  organization: c.organization ?? null,
  email: c.email,
  phone: c.phone ?? null,
  address: {
    street: [...c.address.street],
    city: c.address.city,
    region: c.address.region ?? null,
    postal_code: c.address.postalCode ?? null,
    country_code: c.address.countryCode,
  },
});

export const domainRoutes = (uc: DomainsUseCases): Route[] => [
  route({
    id: 'listDomains',
    method: 'GET',
    path: '/v1/domains',
    tag: 'Domains',
    writes: false,
    summary: 'Domains the key may read (domain.read), by name, cursor pages',
    access: { kind: 'key', right: 'domain.read' },
    query: pageQuery({
      label: { type: 'string', maxLength: 63 },
      registrar: { type: 'string', enum: ['domivka', 'external'] },
      hosting_status: { type: 'string', enum: ['pending_delegation', 'active'] },
    }),
    responses: { 200: { description: 'A page of domains', schema: page(domainView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listDomains.execute(i.key, {
        label: i.query.label,
        registrar: i.query.registrar,
        hostingStatus: i.query.hosting_status,
        cursor: i.query.cursor,
        limit: i.query.limit,
      }),
    }),
  }),
  route({
    id: 'getDomain',
    method: 'GET',
    path: '/v1/domains/{domain}',
    tag: 'Domains',
    writes: false,
    summary: 'One domain (seed 2.5): status, expiry, automatic renewal, labels, nameservers, transfer lock',
    access: { kind: 'key', right: 'domain.read', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'The domain', schema: domainView } },
    errors: ['domain_not_found', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.getDomain.execute(i.key, i.params.domain, i.domain) }),
  }),
  route({
    id: 'search',
    method: 'GET',
    path: '/v1/search',
    tag: 'Domains',
    writes: false,
    summary: 'Availability of a name across the TLDs of the price list, with yearly prices; exact match first',
    access: { kind: 'key', anyKey: true },
    query: {
      type: 'object',
      additionalProperties: false,
      required: ['q'],
      properties: { q: { type: 'string', minLength: 1, maxLength: 253 } },
    },
    responses: {
      200: {
        description: 'Search results',
        schema: {
          type: 'object',
          properties: {
            query: { type: 'string' },
            results: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  domain: { type: 'string' },
                  tld: { type: 'string' },
                  available: { type: 'boolean' },
                  price: money,
                  registered_until: { type: ['string', 'null'], format: 'date' },
                  exact: { type: 'boolean' },
                },
              },
            },
          },
        },
      },
    },
    errors: ['tld_not_supported', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.searchDomains.execute(i.key.environment, i.query.q) }),
  }),
  route({
    id: 'registerDomain',
    method: 'POST',
    path: '/v1/domains',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: 'Register a domain and charge the balance at the price list (domain.register, class 2)',
    description:
      'A key whose domain.register policy selects a label may register any name; the new domain carries that label. A taken name is 409 domain_taken with the date it is registered until.',
    access: { kind: 'key', rights: { names: ['domain.register'], of: (i) => [{ right: 'domain.register', domain: i.body.domain }] } },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['domain', 'years'],
      properties: {
        domain: { type: 'string', minLength: 1, maxLength: 253 },
        years: { type: 'integer', minimum: 1, maximum: 10 },
        auto_renew: { type: 'boolean', description: 'Default true.' },
      },
    },
    responses: { 201: { description: 'Registered and charged', schema: charged } },
    errors: [
      'domain_taken',
      'domain_already_yours',
      'tld_not_supported',
      'insufficient_funds',
      'spend_limit_exceeded',
      'registry_failure',
      'domain_invalid',
      'domain_reserved',
    ],
    handle: async (i) => {
      const r = await uc.registerDomain.execute(i.key, i.body, i.checkpoints);
      return { status: 201, headers: { Location: `/v1/domains/${r.domain}` }, body: r };
    },
  }),
  route({
    id: 'renewDomain',
    method: 'POST',
    path: '/v1/domains/{domain}/renewals',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: 'Renew a domain (domain.renew, class 2); in redemptionPeriod this restores it for a fee',
    access: { kind: 'key', right: 'domain.renew', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['years'],
      properties: { years: { type: 'integer', minimum: 1, maximum: 10 } },
    },
    responses: { 201: { description: 'Renewed and charged', schema: charged } },
    errors: [
      'domain_not_found',
      'domain_not_renewable',
      'insufficient_funds',
      'spend_limit_exceeded',
      'registry_failure',
      'operation_in_progress',
    ],
    handle: async (i) => ({
      status: 201,
      body: await uc.renewDomain.execute({ kind: 'key', key: i.key }, { domain: i.params.domain, years: i.body.years }, i.checkpoints),
    }),
  }),
  route({
    id: 'updateDomain',
    method: 'PATCH',
    path: '/v1/domains/{domain}',
    tag: 'Domains',
    writes: true,
    summary: 'Switch automatic renewal on or off (domain.renew, class 2)',
    access: { kind: 'key', right: 'domain.renew', domainParam: 'domain' },
    params: domainParam,
    body: { type: 'object', additionalProperties: false, required: ['auto_renew'], properties: { auto_renew: { type: 'boolean' } } },
    responses: { 200: { description: 'The domain', schema: domainView } },
    errors: ['domain_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.setAutoRenew.execute(i.key, i.params.domain, i.body.auto_renew) }),
  }),
  route({
    id: 'setNameservers',
    method: 'PUT',
    path: '/v1/domains/{domain}/nameservers',
    tag: 'Operations',
    writes: true,
    phased: true,
    summary: "Change the domain's nameservers (domain.nameservers, class 3): 202, waits for a second owner or 24 hours",
    description:
      'Our zone is kept and its apex NS follows the new delegation. Nameservers outside ours are flagged in `warnings` (`nameservers_outside`): the world stops seeing our zone once the change takes effect.',
    access: { kind: 'key', right: 'domain.nameservers', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['nameservers'],
      properties: { nameservers: { type: 'array', minItems: 2, maxItems: 13, items: { type: 'string', minLength: 1, maxLength: 254 } } },
    },
    responses: waiting,
    errors: [...REQUEST_ERRORS, 'nameservers_invalid', 'domain_not_registered_here'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute(
        { kind: 'key', key: i.key },
        { kind: 'nameservers', domain: i.params.domain, nameservers: i.body.nameservers },
        i.checkpoints,
      );
      return { status: 202, headers: location(op.id), body: op };
    },
  }),
  route({
    id: 'liftTransferLock',
    method: 'DELETE',
    path: '/v1/domains/{domain}/transfer-lock',
    tag: 'Operations',
    writes: true,
    summary: 'Lift the transfer lock (domain.lock, class 3): 202, waits for a second owner or 24 hours',
    description:
      'Removes clientTransferProhibited when it takes effect. It never yields the transfer code (seed A7): revealing it is a human-only action in the console.',
    access: { kind: 'key', right: 'domain.lock', domainParam: 'domain' },
    params: domainParam,
    responses: waiting,
    errors: [...REQUEST_ERRORS, 'domain_not_registered_here'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute({ kind: 'key', key: i.key }, { kind: 'transfer_unlock', domain: i.params.domain });
      return { status: 202, headers: location(op.id), body: op };
    },
  }),
  route({
    id: 'setTransferLock',
    method: 'PUT',
    path: '/v1/domains/{domain}/transfer-lock',
    tag: 'Operations',
    writes: true,
    phased: true,
    summary: 'Set the transfer lock again (domain.lock): at once, 200; cancels a pending request to lift it',
    access: { kind: 'key', right: 'domain.lock', domainParam: 'domain' },
    params: domainParam,
    responses: {
      200: {
        description: 'The domain, locked',
        schema: {
          ...domainView,
          properties: { ...domainView.properties, cancelled_operation: { ...operationView, type: ['object', 'null'] } },
        },
      },
    },
    errors: ['domain_not_found', 'domain_not_registered_here', 'registry_failure', 'registrar_capability_missing'],
    handle: async (i) => ({ status: 200, body: await uc.lockTransfer.execute(i.key, i.params.domain) }),
  }),
  route({
    id: 'setLabels',
    method: 'PUT',
    path: '/v1/domains/{domain}/labels',
    tag: 'Operations',
    writes: true,
    summary: "Replace the domain's labels (domain.labels, class 3: labels widen what label-scoped keys reach): 202, waits",
    access: { kind: 'key', right: 'domain.labels', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['labels'],
      properties: { labels: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 63 } } },
    },
    responses: waiting,
    errors: [...REQUEST_ERRORS, 'labels_invalid'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute(
        { kind: 'key', key: i.key },
        { kind: 'labels', domain: i.params.domain, labels: i.body.labels },
      );
      return { status: 202, headers: location(op.id), body: op };
    },
  }),
  route({
    id: 'revealTransferCode',
    method: 'POST',
    path: '/v1/account/domains/{domain}/transfer-code',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Reveal the transfer (auth) code of a domain (owners, signed in again within 5 minutes; every owner is told)',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: domainParam,
    body: envBody({}, []),
    responses: {
      200: {
        description: 'The code',
        schema: { type: 'object', properties: { domain: { type: 'string' }, transfer_code: { type: 'string' } } },
      },
    },
    errors: [...REAUTH, 'domain_not_found', 'registrar_capability_missing'],
    handle: async (i) => {
      const r = await uc.revealTransferCode.execute(i.human, i.body.environment, i.params.domain);
      return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: { domain: r.domain, transfer_code: r.transferCode } };
    },
    // A replay never shows the code again.
    replayable: (reply) => withBody(reply, { transfer_code: null }),
  }),
  route({
    id: 'changeRegistrant',
    method: 'PUT',
    path: '/v1/account/domains/{domain}/registrant',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Change the registrant (domain holder) through the registrar (owners, signed in again)',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: domainParam,
    body: envBody({ registrant: registrantSchema }, ['registrant']),
    responses: {
      200: { description: 'Changed', schema: { type: 'object', properties: { domain: { type: 'string' }, registrant: registrantSchema } } },
    },
    errors: [...REAUTH, 'domain_not_found', 'registrar_capability_missing', 'registry_failure', 'contact_character_forbidden'],
    handle: async (i) => {
      const b = i.body;
      const r = await uc.changeRegistrant.execute(i.human, b.environment, i.params.domain, toContact(b.registrant));
      return { status: 200, body: { domain: r.domain, registrant: fromContact(r.registrant) } };
    },
  }),
];
