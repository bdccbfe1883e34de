import { RIGHT_NAMES } from '../../core/kernel/rights.js';
import { TEMPLATE_IDS } from '../../core/access/templates.js';
import type { JsonSchema } from './route.js';
import { schema } from './schema-type.js';

/** JSON Schemas shared by validation (ajv) and the OpenAPI document. */
export const money = schema({
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency'],
  properties: {
    amount: { type: 'integer', description: 'Integer kopiykas (1 UAH = 100).' },
    currency: { type: 'string', enum: ['UAH'] },
  },
});

export const i18n = schema({
  type: 'object',
  required: ['uk', 'en'],
  properties: { uk: { type: 'string' }, en: { type: 'string' } },
});

export const selection = schema({
  type: 'object',
  description: 'Named domains, or every domain that carries a label (seed 2.2).',
  additionalProperties: false,
  properties: {
    domains: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 }, maxItems: 500 },
    label: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
  },
});

export const policy = schema({
  type: 'object',
  additionalProperties: false,
  required: ['right', 'resources'],
  properties: { right: { type: 'string', enum: [...RIGHT_NAMES] }, resources: selection },
});

export const keyView = schema({
  type: 'object',
  required: ['id', 'name', 'environment', 'class', 'policies', 'conditions', 'status', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    environment: { type: 'string', enum: ['live', 'test'] },
    class: { type: 'integer', minimum: 0, maximum: 3 },
    class_name: i18n,
    policies: { type: 'array', items: policy },
    conditions: {
      type: 'object',
      properties: {
        cidr: { type: ['string', 'null'] },
        expires_on: { type: 'string', format: 'date' },
        spend_limit: { oneOf: [money, { type: 'null' }] },
      },
    },
    status: { type: 'string', enum: ['active', 'expired', 'revoked'] },
    created_at: { type: 'string', format: 'date-time' },
    created_by: { type: 'string' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
  },
});

export const summary = schema({
  type: 'object',
  required: ['uk', 'en', 'lines'],
  properties: {
    uk: { type: 'string' },
    en: { type: 'string' },
    lines: {
      type: 'object',
      properties: { uk: { type: 'array', items: { type: 'string' } }, en: { type: 'array', items: { type: 'string' } } },
    },
  },
});

export const keyRequest = schema({
  type: 'object',
  additionalProperties: false,
  required: ['environment'],
  description: 'Seed A8, in order: a template or rights (or explicit policies), domains or a label, conditions.',
  properties: {
    environment: { type: 'string', enum: ['test', 'live'] },
    name: { type: 'string', maxLength: 100 },
    template: { type: 'string', enum: [...TEMPLATE_IDS] },
    rights: { type: 'array', items: { type: 'string', enum: [...RIGHT_NAMES] }, uniqueItems: true, maxItems: RIGHT_NAMES.length },
    domains: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 253 }, maxItems: 500 },
    label: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$' },
    policies: { type: 'array', items: policy, maxItems: 32 },
    conditions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cidr: { type: ['string', 'null'], description: 'IPv4 network, e.g. 203.0.113.0/24. Mandatory (/8 or longer) for class ≥ 2.' },
        expires_on: { type: ['string', 'null'], format: 'date', description: 'Last valid day (Europe/Kyiv). Default: the class cap.' },
        spend_limit: { oneOf: [money, { type: 'null' }], description: 'Monthly limit; mandatory with a spending right.' },
      },
    },
    tsig_algorithm: {
      type: 'string',
      enum: ['hmac-sha256', 'hmac-sha512'],
      description:
        'Algorithm of the TSIG credential issued with a key holding dns.read, dns.edit or dns.acme_challenge (DNS UPDATE, signed queries and transfers). Default hmac-sha256.',
    },
  },
});

/** A key's TSIG credential, shown once beside the key (null for a key without a DNS right, and in a replay). */
export const tsigCredential = schema({
  oneOf: [
    {
      type: 'object',
      required: ['name', 'algorithm', 'secret'],
      properties: {
        name: { type: 'string', description: 'The TSIG key name (RFC 8945), e.g. dmk-test-3f0c…' },
        algorithm: { type: 'string', enum: ['hmac-sha256', 'hmac-sha512'] },
        secret: { type: 'string', description: 'Base64; shown once.' },
      },
    },
    { type: 'null' },
  ],
});

export const domainView = schema({
  type: 'object',
  required: ['domain', 'status', 'expires_at', 'auto_renew'],
  properties: {
    domain: { type: 'string' },
    status: { type: 'array', items: { type: 'string' }, description: 'EPP status values (RFC 5731, RFC 3915).' },
    expires_at: { type: ['string', 'null'], format: 'date', description: 'Null while unknown (a hosted domain).' },
    auto_renew: { type: 'boolean' },
    labels: { type: 'array', items: { type: 'string' } },
    nameservers: { type: 'array', items: { type: 'string' } },
    transfer_lock: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    registrar: {
      type: 'string',
      enum: ['domivka', 'external'],
      description: '`domivka`: registered through us; `external`: registered elsewhere, its DNS hosted here.',
    },
    hosting: {
      type: 'object',
      description: 'A hosted domain only: its delegation and the TXT proof that verifies it.',
      properties: {
        status: { type: 'string', enum: ['pending_delegation', 'active'] },
        nameservers: { type: 'array', items: { type: 'string' }, description: 'Delegate the domain to these at its registrar.' },
        verification: {
          type: 'object',
          properties: {
            type: { type: 'string', enum: ['txt'] },
            name: { type: 'string', description: '_domivka-challenge.<domain>' },
            value: { type: 'string' },
            checked_at: { type: ['string', 'null'], format: 'date-time' },
          },
        },
        problem: {
          type: ['object', 'null'],
          properties: {
            code: { type: 'string' },
            message: { type: 'object', properties: { uk: { type: 'string' }, en: { type: 'string' } } },
          },
        },
      },
    },
  },
});

export const page = <const I extends JsonSchema>(item: I) =>
  schema({
    type: 'object',
    required: ['data', 'next_cursor'],
    properties: { data: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
  });

export const pageQuery = <const E extends Record<string, JsonSchema>>(extra: E) =>
  schema({
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 200, description: 'Page size (default 50, at most 200).' },
      cursor: { type: 'string', maxLength: 500 },
      ...extra,
    },
  });

export const domainParam = schema({
  type: 'object',
  required: ['domain'],
  properties: { domain: { type: 'string', minLength: 1, maxLength: 300, description: 'Unicode or punycode; case-insensitive.' } },
});
