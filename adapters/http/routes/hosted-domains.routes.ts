import type { HostDomain } from '../../../core/domains/host-domain.use-case.js';
import type { VerifyHosting } from '../../../core/domains/verify-hosting.use-case.js';
import type { DeleteHostedDomain } from '../../../core/operations/delete-hosted-domain.use-case.js';
import { route, type Route } from '../route.js';
import { domainParam, domainView } from '../schemas.js';
import { pendingOperation } from './operations.routes.js';

/**
 * Hosted domains (/v1/hosted-domains, /v1/domains/{domain}/hosting): DNS for a domain registered at another
 * registrar. Served once a proof that does not come from our own servers verifies it (DESIGN).
 */
export interface HostedDomainsUseCases {
  readonly hostDomain: Pick<HostDomain, 'execute'>;
  readonly verifyHosting: Pick<VerifyHosting, 'execute'>;
  readonly deleteHostedDomain: Pick<DeleteHostedDomain, 'execute'>;
}

const HOSTING_REFUSALS = [
  'domain_invalid',
  'domain_public_suffix',
  'domain_already_yours',
  'domain_hosted_elsewhere',
  'domain_registered_here',
  'domain_parent_held_elsewhere',
  'domain_parent_in_account',
  'domain_reserved',
  'hosted_domain_limit_reached',
] as const;

export const hostedDomainRoutes = (uc: HostedDomainsUseCases): Route[] => [
  route({
    id: 'createHostedDomain',
    method: 'POST',
    path: '/v1/hosted-domains',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: 'Host the DNS of a domain registered elsewhere (domain.host, class 1): its zone is served once verified',
    description:
      'Creates the domain (`registrar: "external"`) with an empty zone (the service\'s apex SOA and NS) that every DNS route can edit at once. The zone is answered only once verified: publish the TXT value at `hosting.verification.name` on the nameservers the domain is delegated to now, then point the delegation at `hosting.nameservers`. A label-scoped key does not label the new domain.',
    access: { kind: 'key', rights: { names: ['domain.host'], of: (i) => [{ right: 'domain.host', domain: i.body.domain }] } },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['domain'],
      properties: { domain: { type: 'string', minLength: 1, maxLength: 253 } },
    },
    responses: { 201: { description: 'Added; `hosting.status` says whether it is served yet', schema: domainView } },
    // domain_not_found: a retry of a claim removed since it was made (it is not made again).
    errors: [...HOSTING_REFUSALS, 'domain_not_found'],
    handle: async (i) => {
      const r = await uc.hostDomain.execute(i.key, i.body, i.checkpoints);
      return { status: 201, headers: { Location: `/v1/domains/${r.domain}` }, body: r };
    },
  }),
  route({
    id: 'verifyHosting',
    method: 'POST',
    path: '/v1/domains/{domain}/hosting/verify',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: "Check a hosted domain's delegation and TXT proof now (domain.host)",
    description:
      'Asks the DNS from the root down where the domain is delegated. Pending → active when the delegated nameservers that are not ours serve the TXT value, or when the domain is delegated to ours after this claim saw that proof on the previous ones. Anything else sets `hosting.problem`.',
    access: { kind: 'key', right: 'domain.host', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'The domain after the check', schema: domainView } },
    errors: ['domain_not_found', 'domain_not_hosted'],
    handle: async (i) => ({ status: 200, body: await uc.verifyHosting.execute(i.key, i.params.domain, i.domain) }),
  }),
  route({
    id: 'deleteHostedDomain',
    method: 'DELETE',
    path: '/v1/hosted-domains/{domain}',
    tag: 'Operations',
    writes: true,
    summary: 'Remove a hosted domain and its zone (domain.host): at once while unverified; 202, a class 3 operation, when active',
    access: { kind: 'key', right: 'domain.host', domainParam: 'domain' },
    params: domainParam,
    responses: {
      200: {
        description: 'Removed at once (it was not served)',
        schema: { type: 'object', properties: { deleted: { type: 'boolean' }, domain: { type: 'string' } } },
      },
      202: pendingOperation,
    },
    errors: ['domain_not_found', 'domain_not_hosted', 'operation_pending', 'owner_required'],
    handle: async (i) => {
      const r = await uc.deleteHostedDomain.execute(i.key, i.params.domain);
      if ('deleted' in r) return { status: 200, body: r };
      return { status: 202, headers: { Location: `/v1/operations/${r.operation.id}` }, body: r.operation };
    },
  }),
];
