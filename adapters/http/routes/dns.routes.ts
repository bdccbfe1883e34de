import { RECORD_TYPES } from '../../../core/dns/zone/record-set.js';
import { DNSSEC_TYPES } from '../../../core/dns/zone/zone-signing.js';
import { normalizeDomain } from '../../../core/kernel/domain-name.js';
import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { domainParam, i18n, page, pageQuery } from '../schemas.js';
import type { AcmeChallenges } from '../../../core/dns/acme/acme-challenges.use-case.js';
import type { DnsPlans } from '../../../core/dns/plans/dns-plans.use-case.js';
import type { ReadZone } from '../../../core/dns/zone/read-zone.use-case.js';
import type { ImportZone } from '../../../core/dns/imports/import-zone.use-case.js';
import type { ZoneImportView } from '../../../core/dns/imports/zone-import.js';
import { errorBody } from '../error-table.js';

const recordSet = schema({
  type: 'object',
  required: ['name', 'type', 'ttl', 'values'],
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    ttl: { type: 'integer' },
    values: { type: 'array', items: { type: 'string' } },
  },
});
const values = schema({ type: 'array', items: { type: 'string', maxLength: 4096 }, maxItems: 1000 });
const change = schema({
  type: 'object',
  additionalProperties: false,
  required: ['action', 'name', 'type'],
  properties: {
    action: { type: 'string', enum: ['create', 'update', 'delete'] },
    name: { type: 'string', maxLength: 1000, description: 'FQDN, a name relative to the zone, or @ for the apex.' },
    type: {
      type: 'string',
      enum: [...RECORD_TYPES, ...DNSSEC_TYPES],
      description: 'DNSSEC types are the service’s: accepted here only to be refused by the check dnssec-service-owned.',
    },
    ttl: { type: 'integer', description: 'Checked by the plan (0…2147483647).' },
    values,
    current: { type: 'object', additionalProperties: false, required: ['ttl', 'values'], properties: { ttl: { type: 'integer' }, values } },
  },
});
const check = schema({
  type: 'object',
  properties: {
    severity: { type: 'string', enum: ['error', 'warning'] },
    rule: { type: 'string' },
    name: { type: 'string' },
    type: { type: ['string', 'null'] },
    message: i18n,
  },
});
const plan = schema({
  type: 'object',
  required: ['id', 'valid', 'base_serial', 'changes', 'checks', 'expires_at'],
  properties: {
    id: { type: 'string' },
    domain: { type: 'string' },
    source: { type: 'string', enum: ['changes', 'records', 'zone_file'] },
    valid: { type: 'boolean' },
    base_serial: { type: 'integer' },
    changes: { type: 'array', items: change },
    checks: { type: 'array', items: check },
    counts: {
      type: 'object',
      properties: {
        create: { type: 'integer' },
        update: { type: 'integer' },
        delete: { type: 'integer' },
        errors: { type: 'integer' },
        warnings: { type: 'integer' },
      },
      additionalProperties: { type: 'integer' },
    },
    expires_at: { type: 'string', format: 'date-time' },
    applied_at: { type: ['string', 'null'], format: 'date-time' },
    serial: { type: 'integer' },
  },
});
/** dns.acme_challenge is the narrow alternative to dns.edit (seed 2.4): either lets a key touch the ACME
 * path; the plan's use case then refuses an ACME-only key any change outside _acme-challenge TXT records. */
const acmeOrEdit = ['dns.edit', 'dns.acme_challenge'] as const;
const planParams = schema({
  type: 'object',
  required: ['domain', 'id'],
  properties: { domain: { type: 'string', minLength: 1, maxLength: 300 }, id: { type: 'string', maxLength: 40 } },
});

/** DNS (/v1/domains/{domain}/dns): records, checked plans, the zone file, the ACME-only path. */
export interface DnsUseCases {
  readonly readZone: Pick<ReadZone, 'records' | 'zoneFile'>;
  readonly importZone: Pick<ImportZone, 'start' | 'get' | 'maxBytes'>;
  readonly dnsPlans: Pick<DnsPlans, 'create' | 'get' | 'apply'>;
  readonly acmeChallenges: Pick<AcmeChallenges, 'add' | 'remove' | 'list'>;
}

const zoneImport = schema({
  type: 'object',
  required: ['id', 'status', 'records_read', 'skipped', 'plan_id', 'error'],
  properties: {
    id: { type: 'string' },
    domain: { type: 'string' },
    source: { type: 'string', enum: ['zone_file', 'axfr'] },
    server: { type: ['string', 'null'], description: 'host:port of the AXFR source' },
    status: { type: 'string', enum: ['running', 'ready', 'failed'] },
    records_read: { type: 'integer', description: 'Records read, skipped ones included' },
    skipped: {
      type: 'array',
      description: 'What was left out: apex SOA and NS (the service’s), DNSSEC types (we sign zones ourselves), types we do not serve',
      items: {
        type: 'object',
        properties: {
          type: { type: 'string' },
          reason: { type: 'string', enum: ['service-owned', 'dnssec', 'unsupported'] },
          count: { type: 'integer' },
          names: { type: 'array', items: { type: 'string' }, description: 'Up to five examples' },
        },
      },
    },
    plan_id: { type: ['string', 'null'], description: 'The unapplied plan, once ready: review it and apply it through the plan routes' },
    error: {
      type: ['object', 'null'],
      description: 'Why it failed: a stable code (the error catalogue) and its text',
      properties: { code: { type: 'string' }, message: i18n },
    },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
  },
});
const importParams = schema({
  type: 'object',
  required: ['domain', 'id'],
  properties: { domain: { type: 'string', minLength: 1, maxLength: 300 }, id: { type: 'string', maxLength: 40 } },
});

/** The job as the API shows it: a failure worded through the error table, like any error. */
const importBody = (v: ZoneImportView) => ({
  ...v,
  error: v.error ? { code: v.error.code, message: errorBody(v.error.code, v.error.params as never).error.message } : null,
});

/** A zone file sent as a JSON string, handed on in slices so the reading never holds up other requests. */
async function* slices(text: string, size = 256 * 1024): AsyncIterable<string> {
  for (let i = 0; i < text.length; i += size) {
    yield text.slice(i, i + size);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export const dnsRoutes = (uc: DnsUseCases): Route[] => [
  route({
    id: 'listRecords',
    method: 'GET',
    path: '/v1/domains/{domain}/dns/records',
    tag: 'DNS',
    writes: false,
    summary: "The zone's record sets (dns.read), by name then type, cursor pages",
    access: { kind: 'key', right: 'dns.read', domainParam: 'domain' },
    params: domainParam,
    query: pageQuery({ name: { type: 'string', maxLength: 255 }, type: { type: 'string', enum: [...RECORD_TYPES] } }),
    responses: {
      200: {
        description: 'A page of record sets',
        schema: {
          ...page(recordSet),
          properties: {
            ...page(recordSet).properties,
            serial: { type: 'integer' },
            served_by_us: {
              type: 'boolean',
              description: 'False once the domain is delegated to nameservers outside ours (the zone is kept here).',
            },
            nameservers: { type: 'array', items: { type: 'string' }, description: 'The delegation, as our apex NS follows it.' },
          },
        },
      },
    },
    errors: ['domain_not_found', 'cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.readZone.records(i.key, i.params.domain, {
        cursor: i.query.cursor,
        limit: i.query.limit,
        name: i.query.name,
        type: i.query.type,
      }),
    }),
  }),
  route({
    id: 'createPlan',
    method: 'POST',
    path: '/v1/domains/{domain}/dns/plans',
    tag: 'DNS',
    writes: true,
    summary: 'Make a checked plan from changes, the whole desired zone (records) or a BIND zone file; writes nothing to the zone',
    description:
      'Needs dns.edit; a key holding only dns.acme_challenge may plan TXT changes at _acme-challenge.<name> only (anything else is 403 right_missing naming the change).',
    access: { kind: 'key', rightsOfRecord: acmeOrEdit },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      oneOf: [{ required: ['changes'] }, { required: ['records'] }, { required: ['zone_file'] }],
      properties: {
        changes: { type: 'array', items: change, maxItems: 10_000 },
        records: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'type', 'ttl', 'values'],
            properties: {
              name: { type: 'string', maxLength: 1000 },
              type: { type: 'string', enum: [...RECORD_TYPES] },
              ttl: { type: 'integer' },
              values,
            },
          },
          maxItems: 100_000,
        },
        zone_file: { type: 'string', maxLength: 10_000_000 },
      },
    },
    responses: { 201: { description: 'The plan, with every check result', schema: plan } },
    errors: ['domain_not_found', 'right_missing'],
    handle: async (i) => ({ status: 201, body: await uc.dnsPlans.create(i.key, i.params.domain, i.body) }),
  }),
  route({
    id: 'getPlan',
    method: 'GET',
    path: '/v1/domains/{domain}/dns/plans/{id}',
    tag: 'DNS',
    writes: false,
    summary: 'A plan and its checks (dns.read)',
    access: { kind: 'key', right: 'dns.read', domainParam: 'domain' },
    params: planParams,
    responses: { 200: { description: 'The plan', schema: plan } },
    errors: ['plan_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.dnsPlans.get(i.key, i.params.domain, i.params.id) }),
  }),
  route({
    id: 'applyPlan',
    method: 'POST',
    path: '/v1/domains/{domain}/dns/plans/{id}/apply',
    tag: 'DNS',
    writes: true,
    phased: true,
    summary: 'Apply a valid plan atomically, if nothing it touches changed since; returns once our server answers with it',
    description: 'Updating or deleting more than 30% of a zone of ≥ 10 record sets needs {"force": true}.',
    access: { kind: 'key', rights: { names: acmeOrEdit, of: (i) => [{ right: acmeOrEdit, domain: i.params.domain }] } },
    params: planParams,
    body: { type: 'object', additionalProperties: false, properties: { force: { type: 'boolean' } } },
    responses: { 200: { description: 'Applied', schema: plan } },
    errors: [
      'plan_not_found',
      'plan_expired',
      'plan_invalid',
      'plan_stale',
      'plan_unsafe',
      'plan_already_applied',
      'zone_busy',
      'right_missing',
    ],
    handle: async (i) => ({ status: 200, body: await uc.dnsPlans.apply(i.key, i.params.domain, i.params.id, i.body, i.checkpoints) }),
  }),
  route({
    id: 'exportZone',
    method: 'GET',
    path: '/v1/domains/{domain}/dns/zone',
    tag: 'DNS',
    writes: false,
    summary: 'The zone as a BIND zone file (text/dns)',
    access: { kind: 'key', right: 'dns.read', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'RFC 1035 master file', contentType: 'text/dns', schema: { type: 'string' } } },
    errors: ['domain_not_found'],
    handle: async (i) => ({
      status: 200,
      contentType: 'text/dns; charset=utf-8',
      body: await uc.readZone.zoneFile(i.key, i.params.domain),
    }),
  }),
  route({
    id: 'addAcmeChallenge',
    method: 'POST',
    path: '/v1/domains/{domain}/dns/acme-challenges',
    tag: 'DNS',
    writes: true,
    phased: true,
    summary: 'Add one TXT value at _acme-challenge.<name> (additive, 60 s TTL, gone after 24 h) — dns.acme_challenge',
    access: { kind: 'key', rights: { names: acmeOrEdit, of: (i) => [{ right: acmeOrEdit, domain: i.params.domain }] } },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'value'],
      properties: {
        name: { type: 'string', maxLength: 300, description: '_acme-challenge.<host> (trailing dot optional) or the bare <host>.' },
        value: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      },
    },
    responses: {
      201: {
        description: 'Added and served',
        schema: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            name: { type: 'string' },
            value: { type: 'string' },
            ttl: { type: 'integer' },
            expires_at: { type: 'string', format: 'date-time' },
          },
        },
      },
    },
    errors: ['domain_not_found', 'zone_busy', 'right_missing'],
    handle: async (i) => {
      const c = await uc.acmeChallenges.add(i.key, i.params.domain, i.body, i.checkpoints);
      // The canonical (A-label) name: the path segment as typed may hold what no header can carry.
      const domain = normalizeDomain(i.params.domain);
      return { status: 201, headers: { Location: `/v1/domains/${domain}/dns/acme-challenges/${c.id}` }, body: c };
    },
  }),
  route({
    id: 'removeAcmeChallenge',
    method: 'DELETE',
    path: '/v1/domains/{domain}/dns/acme-challenges/{id}',
    tag: 'DNS',
    writes: true,
    phased: true,
    summary: 'Remove one ACME challenge value',
    access: { kind: 'key', rights: { names: acmeOrEdit, of: (i) => [{ right: acmeOrEdit, domain: i.params.domain }] } },
    params: planParams,
    responses: { 204: { description: 'Removed' } },
    errors: ['challenge_not_found', 'zone_busy', 'right_missing'],
    handle: async (i) => {
      await uc.acmeChallenges.remove(i.key, i.params.domain, i.params.id, i.checkpoints);
      return { status: 204 };
    },
  }),
  route({
    id: 'startZoneImport',
    method: 'POST',
    path: '/v1/domains/{domain}/dns/imports',
    tag: 'DNS',
    writes: true,
    secretFields: ['axfr.tsig.secret'],
    summary: 'Import the zone from its current provider — a BIND zone file or an AXFR pull — into an unapplied plan (dns.edit)',
    description:
      'Body: {"zone_file": "<BIND text>"}, a raw text/dns body (both up to DNS_IMPORT_MAX_BYTES), or {"axfr": {"server": "host:port", "tsig"?: {"name", "algorithm", "secret"}}}. ' +
      'Answers 202 at once; GET the import until it is ready (plan_id: review the plan, then apply it) or failed (error). $INCLUDE, names outside the zone and classes other than IN are refused; ' +
      'apex SOA/NS and DNSSEC records are skipped (listed in skipped). The TSIG secret is kept sealed only while the pull runs.',
    access: { kind: 'key', right: 'dns.edit', domainParam: 'domain' },
    params: domainParam,
    textBody: ['text/dns'],
    maxBodyBytes: uc.importZone.maxBytes,
    body: {
      type: 'object',
      additionalProperties: false,
      oneOf: [{ required: ['zone_file'] }, { required: ['axfr'] }],
      properties: {
        zone_file: { type: 'string' },
        axfr: {
          type: 'object',
          additionalProperties: false,
          required: ['server'],
          properties: {
            server: { type: 'string', minLength: 3, maxLength: 300, description: 'host:port or [IPv6]:port' },
            tsig: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'algorithm', 'secret'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 255 },
                algorithm: {
                  type: 'string',
                  enum: ['hmac-sha256', 'hmac-sha512'],
                  description: 'RFC 8945 §6: hmac-sha256 (MUST) and hmac-sha512 (RECOMMENDED)',
                },
                secret: { type: 'string', minLength: 4, maxLength: 1024, pattern: '^[A-Za-z0-9+/]+={0,2}$', description: 'base64' },
              },
            },
          },
        },
      },
    },
    responses: { 202: { description: 'The import job (running)', schema: zoneImport } },
    errors: ['domain_not_found', 'payload_too_large', 'zone_file_invalid', 'import_in_progress'],
    handle: async (i) => {
      const input = i.text
        ? { text: i.text }
        : 'axfr' in i.body && i.body.axfr
          ? { axfr: i.body.axfr }
          : { text: slices(String((i.body as { zone_file?: string }).zone_file ?? '')) };
      const v = await uc.importZone.start(i.key, i.params.domain, input);
      const domain = normalizeDomain(i.params.domain);
      return { status: 202, headers: { Location: `/v1/domains/${domain}/dns/imports/${v.id}` }, body: importBody(v) };
    },
  }),
  route({
    id: 'getZoneImport',
    method: 'GET',
    path: '/v1/domains/{domain}/dns/imports/{id}',
    tag: 'DNS',
    writes: false,
    summary: 'A zone import: running, ready (with its plan_id) or failed (with its error) — dns.read',
    access: { kind: 'key', right: 'dns.read', domainParam: 'domain' },
    params: importParams,
    responses: { 200: { description: 'The import job', schema: zoneImport } },
    errors: ['import_not_found'],
    handle: async (i) => ({ status: 200, body: importBody(await uc.importZone.get(i.key, i.params.domain, i.params.id)) }),
  }),
];
