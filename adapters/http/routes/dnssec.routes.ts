import type { DisableDnssec } from '../../../core/dnssec/disable-dnssec.use-case.js';
import type { EnableDnssec } from '../../../core/dnssec/enable-dnssec.use-case.js';
import type { AddForeignDnskey } from '../../../core/dnssec/add-foreign-key.use-case.js';
import type { RemoveForeignDnskey } from '../../../core/dnssec/remove-foreign-key.use-case.js';
import type { ReadDnssec } from '../../../core/dnssec/read-dnssec.use-case.js';
import type { RequestOperation } from '../../../core/operations/request-operation.use-case.js';
import type { SwitchOffDnssec } from '../../../core/operations/switch-off-dnssec.use-case.js';
import { route, type Route } from '../route.js';
import { operationView, pendingOperation } from './operations.routes.js';
import { schema } from '../schema-type.js';
import { domainParam } from '../schemas.js';

/** DNSSEC of a zone (/v1/domains/{domain}/dnssec; DESIGN: DNSSEC). */
export interface DnssecUseCases {
  readonly enableDnssec: Pick<EnableDnssec, 'execute'>;
  readonly readDnssec: Pick<ReadDnssec, 'execute'>;
  readonly disableDnssec: Pick<DisableDnssec, 'execute'>;
  readonly switchOffDnssec: Pick<SwitchOffDnssec, 'execute'>;
  readonly requestOperation: Pick<RequestOperation, 'execute'>;
  readonly addForeignDnskey: Pick<AddForeignDnskey, 'execute'>;
  /** The console's immediate removal by an owner (a human's act); keys request the operation instead. */
  readonly removeForeignDnskey: Pick<RemoveForeignDnskey, 'execute'>;
}

const rolloverSchema = {
  type: ['object', 'null'],
  description: 'A key rollover: its kind, the step reached, when the next runs, and every step with its time.',
  properties: {
    kind: { type: 'string', enum: ['csk', 'algorithm'] },
    step: { type: 'string' },
    next_step_at: { type: ['string', 'null'], format: 'date-time' },
    started_at: { type: 'string', format: 'date-time' },
    old_key_tag: { type: 'integer' },
    new_key_tag: { type: 'integer' },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: { step: { type: 'string' }, at: { type: 'string', format: 'date-time' }, note: { type: 'string' } },
      },
    },
  },
} as const;

const dnssecView = schema({
  type: 'object',
  required: ['enabled', 'algorithm', 'status', 'keys', 'ds'],
  properties: {
    enabled: { type: 'boolean' },
    algorithm: { type: ['integer', 'null'], description: '13: ECDSA P-256 SHA-256; 15: Ed25519.' },
    status: {
      type: ['string', 'null'],
      enum: ['signed', 'ds_pending', 'secure', 'rolling', 'disabling', null],
      description: 'signed: DS not at the parent yet; secure: the parent holds our DS; null when off.',
    },
    ds_at_parent: {
      type: 'boolean',
      description:
        'DNSSEC on: the parent holds our DS. DNSSEC off: the parent holds a DS all the same (a stray one: validators refuse the unsigned zone; remove it with POST …/dnssec/ds/remove). Read from the registry for a domain registered here.',
    },
    parent_ds: {
      type: ['array', 'null'],
      items: { type: 'string' },
      description:
        'Every DS the registry holds for the domain ("<tag> <alg> <digest type> <hex>"); null when it cannot tell (a hosted domain).',
    },
    keys: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          tag: { type: 'integer' },
          algorithm: { type: 'integer' },
          flags: { type: 'integer', description: '257: a CSK (one key signs everything).' },
          role: { type: 'string', enum: ['csk'] },
          state: {
            type: 'string',
            enum: ['active', 'published', 'signing', 'retired'],
            description:
              'active: published and signing; published: in the DNSKEY set only; signing: signs without being published (an algorithm rollover); retired: gone.',
          },
          dnskey: { type: 'string', description: 'The DNSKEY RDATA in presentation form.' },
          created_at: { type: 'string', format: 'date-time' },
          published_at: { type: ['string', 'null'], format: 'date-time' },
          active_at: { type: ['string', 'null'], format: 'date-time' },
          retired_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
    ds: { type: 'array', items: { type: 'string' }, description: 'The DS to publish at the parent: "<tag> <alg> 2 <sha-256 hex>".' },
    foreign_keys: {
      type: 'array',
      description:
        "Other operators' DNSKEYs published in our DNSKEY set (RFC 8901 model 2), while a signed zone moves in or out; they never sign here.",
      items: {
        type: 'object',
        required: ['tag', 'algorithm', 'flags', 'dnskey', 'added_at', 'note'],
        properties: {
          tag: { type: 'integer' },
          algorithm: { type: 'integer' },
          flags: { type: 'integer' },
          dnskey: { type: 'string', description: 'The DNSKEY RDATA in presentation form.' },
          added_at: { type: 'string', format: 'date-time' },
          note: { type: ['string', 'null'] },
        },
      },
    },
    signatures: {
      type: ['object', 'null'],
      properties: { inception: { type: 'string', format: 'date-time' }, expiration: { type: 'string', format: 'date-time' } },
    },
    stop_signing_at: { type: ['string', 'null'], format: 'date-time', description: 'While disabling: when signing stops.' },
    rollover: rolloverSchema,
    last_rollover: rolloverSchema,
    next_rollover_at: { type: ['string', 'null'], format: 'date-time', description: 'When the automatic CSK rollover starts.' },
  },
});

/** A list of DS records in presentation form (POST …/dnssec/ds and …/ds/remove). */
const dsList = (description: string) =>
  ({ type: 'array', minItems: 1, maxItems: 8, items: { type: 'string', minLength: 1, maxLength: 300 }, description }) as const;

const foreignKeyParams = {
  type: 'object',
  required: ['domain', 'tag'],
  properties: { ...domainParam.properties, tag: { type: 'string', pattern: '^[0-9]{1,5}$', description: 'The key tag.' } },
} as const;

export const dnssecRoutes = (uc: DnssecUseCases): Route[] => [
  route({
    id: 'addForeignDnskey',
    method: 'POST',
    path: '/v1/domains/{domain}/dnssec/foreign-keys',
    tag: 'DNS',
    writes: true,
    summary: "Publish another operator's DNSKEY in our DNSKEY set (dns.dnssec, class 3): moving a signed zone without going insecure",
    description:
      "RFC 8901 model 2: while a signed zone moves between operators, each publishes the other's zone-signing keys, so a resolver that learnt the DNSKEY set from one validates the other's answers. The key must use the zone's algorithm. 201 with the DNSSEC state when added; 200 when the key was already there. Every owner is told. Taking it out is the class 3 operation `dnssec_foreign_key_remove` (DELETE …/foreign-keys/{tag}). While other operators' keys are present, automatic key rollovers wait, and switching DNSSEC off or changing the algorithm is refused (`dnssec_foreign_keys_present`).",
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['dnskey'],
      properties: {
        dnskey: {
          type: 'string',
          minLength: 1,
          maxLength: 2000,
          description: 'The DNSKEY RDATA ("256 3 13 <base64>"), or the whole record as dig prints it.',
        },
        note: { type: 'string', maxLength: 200, description: 'Whose key it is (shown to owners).' },
      },
    },
    responses: {
      200: { description: 'The key was already published; nothing changed', schema: dnssecView },
      201: { description: 'Published in the DNSKEY set (a new serial)', schema: dnssecView },
    },
    errors: [
      'domain_not_found',
      'dnssec_not_enabled',
      'dnssec_foreign_key_invalid',
      'dnssec_foreign_key_limit',
      'dnssec_rollover_in_progress',
      'zone_busy',
    ],
    handle: async (i) => {
      const r = await uc.addForeignDnskey.execute(i.key, i.params.domain, { dnskey: i.body.dnskey, note: i.body.note ?? null });
      return { status: r.added ? 201 : 200, body: r.view };
    },
  }),
  route({
    id: 'removeForeignDnskey',
    method: 'DELETE',
    path: '/v1/domains/{domain}/dnssec/foreign-keys/{tag}',
    tag: 'Operations',
    writes: true,
    summary: "Take another operator's DNSKEY out of our DNSKEY set (dns.dnssec, class 3): 202, waits for a second owner or 24 hours",
    description:
      "A class 3 operation `dnssec_foreign_key_remove`: while that operator still serves the zone, resolvers that cached our DNSKEY set would refuse its answers. Request it once the other operator's nameservers are gone from the delegation and the NS and DNSKEY TTLs have passed.",
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: foreignKeyParams,
    responses: {
      202: pendingOperation,
    },
    errors: ['domain_not_found', 'dnssec_not_enabled', 'dnssec_foreign_key_not_found', 'operation_pending'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute(
        { kind: 'key', key: i.key },
        { kind: 'dnssec_foreign_key_remove', domain: i.params.domain, keyTag: Number(i.params.tag) },
      );
      return { status: 202, headers: { Location: `/v1/operations/${op.id}` }, body: op };
    },
  }),
  route({
    id: 'publishDs',
    method: 'POST',
    path: '/v1/domains/{domain}/dnssec/ds',
    tag: 'Operations',
    writes: true,
    summary: 'Publish the DS at the registry (dns.dnssec, class 3): 202, waits for a second owner or 24 hours',
    description:
      "A class 3 operation `dnssec_ds_publish` (domains registered through us). When it takes effect the registry receives the DS through the registrar port; the zone becomes `secure`. A registry refusal fails the operation; the zone stays signed and the owners are told. When it takes effect (or a second owner confirms) each DS naming one of our keys must still name a live key, and the zone must still be signed; otherwise it fails with `dnssec_ds_stale` and the registry is not asked. A hosted domain gets `dnssec_ds_hosted`: give the DS to your registrar. With `ds`, exactly those records are added (the registry keeps the ones it has): another operator's DS during a multi-signer move (RFC 8901), or ours beside theirs.",
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ds: dsList('DS records to add ("<tag> <algorithm> <digest type> <hex>"); without it, our active key\'s DS.'),
      },
    },
    responses: {
      202: pendingOperation,
    },
    errors: ['domain_not_found', 'operation_pending', 'operation_no_change', 'dnssec_not_enabled', 'dnssec_ds_hosted', 'dnssec_ds_invalid'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute(
        { kind: 'key', key: i.key },
        { kind: 'dnssec_ds_publish', domain: i.params.domain, ...(i.body.ds ? { ds: i.body.ds } : {}) },
      );
      return { status: 202, headers: { Location: `/v1/operations/${op.id}` }, body: op };
    },
  }),
  route({
    id: 'removeDs',
    method: 'POST',
    path: '/v1/domains/{domain}/dnssec/ds/remove',
    tag: 'Operations',
    writes: true,
    summary: "Remove given DS records at the registry (dns.dnssec, class 3): another operator's, at the end of a multi-signer move",
    description:
      "A class 3 operation `dnssec_ds_remove` (domains registered through us): when it takes effect the registry removes exactly these DS records. Request it once the operator whose key a DS names no longer serves the zone and its NS TTL has passed. Our own key's DS is removed by switching DNSSEC off (`dnssec_ds_is_ours`). With DNSSEC off, any DS the registry still holds (`parent_ds` of GET …/dnssec) is removed this way: an unsigned zone under a DS is refused by validating resolvers.",
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['ds'],
      properties: {
        ds: dsList('DS records to remove ("<tag> <algorithm> <digest type> <hex>").'),
      },
    },
    responses: {
      202: pendingOperation,
    },
    errors: ['domain_not_found', 'operation_pending', 'dnssec_ds_hosted', 'dnssec_ds_invalid', 'dnssec_ds_is_ours'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute(
        { kind: 'key', key: i.key },
        { kind: 'dnssec_ds_remove', domain: i.params.domain, ds: i.body.ds },
      );
      return { status: 202, headers: { Location: `/v1/operations/${op.id}` }, body: op };
    },
  }),
  route({
    id: 'getDnssec',
    method: 'GET',
    path: '/v1/domains/{domain}/dnssec',
    tag: 'DNS',
    writes: false,
    summary: "The zone's DNSSEC (dns.read): status, keys (public parts), the DS to publish",
    access: { kind: 'key', right: 'dns.read', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'DNSSEC state', schema: dnssecView } },
    errors: ['domain_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.readDnssec.execute(i.key, i.params.domain) }),
  }),
  route({
    id: 'enableDnssec',
    method: 'PUT',
    path: '/v1/domains/{domain}/dnssec',
    tag: 'DNS',
    writes: true,
    summary: 'Sign the zone (dns.dnssec, class 3): at once, with a new CSK; another algorithm starts an algorithm rollover',
    description:
      'Signs every RRset, publishes DNSKEY and an NSEC chain; answers with the DS to publish at the parent. The zone is validated only once the parent holds that DS. The same algorithm again changes nothing; the other one starts an algorithm rollover (RFC 6781 §4.1.4; status `rolling`, its steps in `rollover`).',
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['algorithm'],
      properties: { algorithm: { type: 'integer', description: '13 (ECDSA P-256 SHA-256) or 15 (Ed25519).' } },
    },
    responses: { 200: { description: 'Signed (or, with another algorithm, rolling)', schema: dnssecView } },
    errors: ['domain_not_found', 'dnssec_algorithm_unsupported', 'dnssec_rollover_in_progress', 'dnssec_foreign_keys_present', 'zone_busy'],
    handle: async (i) => ({ status: 200, body: await uc.enableDnssec.execute(i.key, i.params.domain, i.body.algorithm) }),
  }),
  route({
    id: 'disableDnssec',
    method: 'DELETE',
    path: '/v1/domains/{domain}/dnssec',
    tag: 'DNS',
    writes: true,
    phased: true,
    summary: 'Stop signing (dns.dnssec, class 3): at once while the parent holds no DS, else the class 3 operation dnssec_disable',
    description:
      'While the parent holds none of our DS (as the registry tells): unsigned at once (200), unless a DS publication (dnssec_ds_publish) is pending: 409 `dnssec_ds_publish_pending`, cancel it first. With our DS at the parent: 202 and the class 3 operation `dnssec_disable`; when it takes effect the registry removes the DS, the zone stays signed (`disabling`) until the DS TTL has passed, then it is served unsigned. A hosted domain whose parent holds the DS: 409 `dnssec_ds_at_parent` (remove it at your registrar first).',
    access: { kind: 'key', right: 'dns.dnssec', domainParam: 'domain' },
    params: domainParam,
    responses: {
      200: { description: 'Unsigned (or, while disabling, the state as it is)', schema: dnssecView },
      202: { description: 'The dnssec_disable operation, pending', schema: operationView },
    },
    errors: [
      'domain_not_found',
      'dnssec_ds_at_parent',
      'dnssec_ds_publish_pending',
      'operation_pending',
      'dnssec_rollover_in_progress',
      'dnssec_foreign_keys_present',
      'zone_busy',
    ],
    handle: async (i) => {
      const r = await uc.switchOffDnssec.execute(i.key, i.params.domain, i.checkpoints);
      if ('off' in r) return { status: 200, body: r.off };
      return { status: 202, headers: { Location: `/v1/operations/${r.operation.id}` }, body: r.operation };
    },
  }),
];
