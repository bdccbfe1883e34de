import type { Route } from '../route.js';
import { domainParam, domainView, keyView, money, page, pageQuery } from '../schemas.js';
import type { UseCases } from './use-cases.js';

/** Keyed routes (seed A1): Authorization: Bearer <key>. */
export const keyedRoutes = (uc: UseCases): Route[] => [
  {
    id: 'getKey', method: 'GET', path: '/v1/key', tag: 'Keys', writes: false,
    summary: 'The calling key: id, environment, policies, conditions, class, expiry and spend this month',
    access: { kind: 'key' },
    responses: {
      200: {
        description: 'The key',
        schema: {
          ...keyView,
          properties: {
            ...(keyView.properties as object),
            spend: { type: 'object', properties: { month: { type: 'string' }, used: money, limit: { oneOf: [money, { type: 'null' }] }, remaining: { oneOf: [money, { type: 'null' }] } } },
          },
        },
      },
    },
    handle: async (i) => ({ status: 200, body: await uc.describeKey.execute(i.key!) }),
  },
  {
    id: 'listDomains', method: 'GET', path: '/v1/domains', tag: 'Domains', writes: false,
    summary: 'Domains the key may read (domain.read), by name, cursor pages',
    access: { kind: 'key', right: 'domain.read' },
    query: pageQuery({ label: { type: 'string', maxLength: 63 } }),
    responses: { 200: { description: 'A page of domains', schema: page(domainView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listDomains.execute(i.key!, {
        label: i.query.label as string | undefined, cursor: i.query.cursor as string | undefined, limit: i.query.limit as number | undefined,
      }),
    }),
  },
  {
    id: 'getDomain', method: 'GET', path: '/v1/domains/{domain}', tag: 'Domains', writes: false,
    summary: 'One domain (seed 2.5): status, expiry, automatic renewal, labels, nameservers, transfer lock',
    access: { kind: 'key', right: 'domain.read', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'The domain', schema: domainView } },
    errors: ['domain_not_found', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.getDomain.execute(i.key!, i.params.domain!, i.domain) }),
  },
  {
    id: 'search', method: 'GET', path: '/v1/search', tag: 'Domains', writes: false,
    summary: 'Availability of a name across the TLDs of the price list, with yearly prices; exact match first',
    access: { kind: 'key' },
    query: { type: 'object', additionalProperties: false, required: ['q'], properties: { q: { type: 'string', minLength: 1, maxLength: 253 } } },
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
                  domain: { type: 'string' }, tld: { type: 'string' }, available: { type: 'boolean' }, price: money,
                  registered_until: { type: ['string', 'null'], format: 'date' }, exact: { type: 'boolean' },
                },
              },
            },
          },
        },
      },
    },
    errors: ['tld_not_supported', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.searchDomains.execute(i.key!.environment, i.query.q as string) }),
  },
];
