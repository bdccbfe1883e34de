import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { page, pageQuery } from '../schemas.js';
import type { Certificates } from '../../../core/certificates/certificates.use-case.js';

const iso = schema({ type: ['string', 'null'], format: 'date-time' });
const certificate = schema({
  type: 'object',
  required: [
    'id',
    'status',
    'domains',
    'ca',
    'issuer',
    'not_before',
    'not_after',
    'auto_renew',
    'private_key_held',
    'failure',
    'created_at',
    'links',
  ],
  properties: {
    id: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'issued', 'failed', 'expired', 'revoked'] },
    domains: { type: 'array', items: { type: 'string' } },
    ca: { type: 'string', enum: ['sandbox', 'acme'], description: 'sandbox: our in-process CA (test keys); acme: a public ACME CA.' },
    issuer: { type: ['string', 'null'], description: "The issuer's distinguished name." },
    serial: { type: ['string', 'null'] },
    not_before: iso,
    not_after: iso,
    renew_after: { ...iso, description: 'When the worker renews it (in place: same id, new chain).' },
    auto_renew: { type: 'boolean' },
    private_key_held: {
      type: 'boolean',
      description: 'We generated the key (no CSR was sent): GET …/private-key hands it to keys holding cert.issue.',
    },
    failure: {
      type: ['object', 'null'],
      properties: { reason: { type: 'string', description: "The CA's own words." }, attempts: { type: 'integer' }, next_attempt_at: iso },
    },
    created_at: { type: 'string', format: 'date-time' },
    issued_at: iso,
    revoked_at: iso,
    links: {
      type: 'object',
      properties: { self: { type: 'string' }, chain: { type: ['string', 'null'] }, private_key: { type: ['string', 'null'] } },
    },
  },
});
const idParam = schema({ type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 60 } } });
const pem = (description: string) => ({ description, contentType: 'application/x-pem-file', schema: { type: 'string' } });

/** Free certificates (/v1/certificates): cert.issue class 1, cert.read class 0. */
export interface CertificatesUseCases {
  readonly certificates: Pick<Certificates, 'request' | 'list' | 'get' | 'chain' | 'privateKey' | 'revoke'>;
}

export const certificateRoutes = (uc: CertificatesUseCases): Route[] => [
  route({
    id: 'requestCertificate',
    method: 'POST',
    path: '/v1/certificates',
    tag: 'Certificates',
    writes: true,
    summary: 'Request a certificate for names inside your domains (wildcards allowed); issued in the background',
    description:
      'Needs cert.issue on every domain the names belong to. With a CSR (PEM) the private key never reaches us; without one we generate an ECDSA P-256 key, keep it encrypted, and hand it out only to keys holding cert.issue for those names. Answers 202 with status pending: poll GET /v1/certificates/{id}. Test keys get the sandbox CA (root at /v1/sandbox/ca.pem); live keys a public ACME CA (DNS-01 through our own DNS).',
    access: { kind: 'key', rightsOfRecord: ['cert.issue'] },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['domains'],
      properties: {
        domains: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: { type: 'string', minLength: 1, maxLength: 300 },
          description: 'Host names or *.<host name>, inside your domains.',
        },
        csr: { type: 'string', minLength: 1, maxLength: 65_536, description: 'PKCS#10 request (PEM) naming exactly these names.' },
        auto_renew: { type: 'boolean', description: 'Renew 30 days before expiry (default true).' },
      },
    },
    responses: { 202: { description: 'Accepted: pending until the CA issues it', schema: certificate } },
    errors: ['domain_not_found', 'right_missing', 'csr_invalid', 'csr_names_mismatch', 'environment_unavailable'],
    handle: async (i) => {
      const c = await uc.certificates.request(i.key, i.body);
      return { status: 202, headers: { Location: c.links.self }, body: c };
    },
  }),
  route({
    id: 'listCertificates',
    method: 'GET',
    path: '/v1/certificates',
    tag: 'Certificates',
    writes: false,
    summary: 'Certificates whose domains the key may read (cert.read), newest first, cursor pages',
    // ?domain= may name a host below a registered domain: the use case finds that domain, then asks.
    access: { kind: 'key', rightsOfRecord: ['cert.read'] },
    query: pageQuery({ domain: { type: 'string', minLength: 1, maxLength: 300, description: 'Only certificates covering this domain.' } }),
    responses: { 200: { description: 'A page of certificates', schema: page(certificate) } },
    errors: ['right_missing', 'cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.certificates.list(i.key, { cursor: i.query.cursor, limit: i.query.limit, domain: i.query.domain }),
    }),
  }),
  route({
    id: 'getCertificate',
    method: 'GET',
    path: '/v1/certificates/{id}',
    tag: 'Certificates',
    writes: false,
    summary: 'One certificate: status, validity, issuer, failure (cert.read)',
    access: { kind: 'key', rightsOfRecord: ['cert.read'] },
    params: idParam,
    responses: { 200: { description: 'The certificate', schema: certificate } },
    errors: ['certificate_not_found', 'right_missing'],
    handle: async (i) => ({ status: 200, body: await uc.certificates.get(i.key, i.params.id) }),
  }),
  route({
    id: 'getCertificateChain',
    method: 'GET',
    path: '/v1/certificates/{id}/chain',
    tag: 'Certificates',
    writes: false,
    summary: 'The certificate chain as PEM, leaf first (cert.read)',
    access: { kind: 'key', rightsOfRecord: ['cert.read'] },
    params: idParam,
    responses: { 200: pem('Leaf then intermediates (PEM)') },
    errors: ['certificate_not_found', 'certificate_not_ready', 'right_missing'],
    handle: async (i) => ({ status: 200, contentType: 'application/x-pem-file', body: await uc.certificates.chain(i.key, i.params.id) }),
  }),
  route({
    id: 'getCertificatePrivateKey',
    method: 'GET',
    path: '/v1/certificates/{id}/private-key',
    tag: 'Certificates',
    writes: false,
    summary: 'The private key we generated (PKCS#8 PEM) — only to keys holding cert.issue for every name',
    access: { kind: 'key', rightsOfRecord: ['cert.issue'] },
    params: idParam,
    responses: { 200: pem('PKCS#8 private key (PEM)') },
    errors: ['certificate_not_found', 'private_key_not_held', 'right_missing'],
    handle: async (i) => ({
      status: 200,
      contentType: 'application/x-pem-file',
      headers: { 'Cache-Control': 'no-store' },
      body: await uc.certificates.privateKey(i.key, i.params.id),
    }),
  }),
  route({
    id: 'revokeCertificate',
    method: 'POST',
    path: '/v1/certificates/{id}/revoke',
    tag: 'Certificates',
    writes: true,
    phased: true,
    summary: 'Revoke an issued certificate at its CA (cert.issue)',
    access: { kind: 'key', rightsOfRecord: ['cert.issue'] },
    params: idParam,
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        reason: {
          type: 'integer',
          enum: [0, 1, 3, 4, 5],
          description: 'RFC 5280 reason code: 0 unspecified, 1 keyCompromise, 3 affiliationChanged, 4 superseded, 5 cessationOfOperation.',
        },
      },
    },
    responses: { 200: { description: 'Revoked', schema: certificate } },
    errors: ['certificate_not_found', 'certificate_not_revocable', 'certificate_authority_failed', 'right_missing'],
    handle: async (i) => ({ status: 200, body: await uc.certificates.revoke(i.key, i.params.id, i.body.reason) }),
  }),
];
