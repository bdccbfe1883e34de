import { DNS_MONITOR_TYPES, MONITOR_KINDS } from '../../../core/monitoring/monitor.js';
import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { page, pageQuery } from '../schemas.js';
import type { CreateMonitor } from '../../../core/monitoring/create-monitor.use-case.js';
import type { UpdateMonitor } from '../../../core/monitoring/update-monitor.use-case.js';
import type { DeleteMonitor } from '../../../core/monitoring/delete-monitor.use-case.js';
import type { GetMonitor, ListMonitors } from '../../../core/monitoring/read-monitors.use-case.js';
import type { ListMonitorResults } from '../../../core/monitoring/monitor-results.use-case.js';
import type { MonitorReport } from '../../../core/monitoring/monitor-report.use-case.js';

const iso = schema({ type: ['string', 'null'], format: 'date-time' });
const specProperties = schema({
  name: {
    type: 'string',
    minLength: 1,
    maxLength: 253,
    description: 'dns: the name asked — "@" (default) is the domain, a name ending in the domain is absolute, any other is relative to it.',
  },
  type: {
    type: 'string',
    enum: [...DNS_MONITOR_TYPES, ...DNS_MONITOR_TYPES.map((t) => t.toLowerCase())],
    description: 'dns: the record type (default A).',
  },
  expected: {
    type: ['array', 'null'],
    maxItems: 50,
    items: { type: 'string', minLength: 1, maxLength: 2000 },
    description: 'dns: the answer must hold exactly these values (presentation text: "10 mail.example.net." for MX).',
  },
  nameservers: {
    type: 'array',
    maxItems: 10,
    items: { type: 'string', minLength: 1, maxLength: 60 },
    description:
      'dns: asked besides our own server — IP addresses, optionally with a port ("203.0.113.5:53", "[2001:db8::1]:53"). Live: public addresses only.',
  },
  url: {
    type: 'string',
    minLength: 1,
    maxLength: 2000,
    description: 'http: an http:// or https:// URL whose host is the domain or a name under it. Redirects are not followed.',
  },
  expected_status: { type: 'integer', minimum: 100, maximum: 599, description: 'http: the status that counts as up (default 200).' },
  body_contains: {
    type: ['string', 'null'],
    minLength: 1,
    maxLength: 1000,
    description: 'http: the first MiB of the body must contain this text.',
  },
  max_latency_ms: { type: ['integer', 'null'], minimum: 1, maximum: 60_000, description: 'http: slower than this counts as down.' },
  host: {
    type: 'string',
    minLength: 1,
    maxLength: 253,
    description: 'tls: the host name (default the domain), the domain or a name under it; sent as SNI and checked against the certificate.',
  },
  port: { type: 'integer', minimum: 1, maximum: 65_535, description: 'tls: the port (default 443).' },
  min_days_valid: {
    type: 'integer',
    minimum: 0,
    maximum: 3650,
    description:
      'tls: fail when the certificate expires within this many days (default 14); domain_expiry: when the domain does (default 30).',
  },
});
const common = schema({
  interval_seconds: {
    type: 'integer',
    minimum: 1,
    maximum: 86_400,
    description: 'Seconds between checks: at least 60 in live, 10 in the sandbox (default 300).',
  },
  enabled: { type: 'boolean', description: 'Paused monitors keep their history and run no checks (default true).' },
});
const monitor = schema({
  type: 'object',
  required: ['id', 'kind', 'domain', 'interval_seconds', 'enabled', 'state', 'created_at', 'links'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: [...MONITOR_KINDS] },
    domain: { type: 'string' },
    environment: { type: 'string', enum: ['live', 'test'] },
    ...specProperties,
    ...common,
    state: { type: 'string', enum: ['pending', 'ok', 'failing'], description: 'pending until the first check.' },
    state_changed_at: iso,
    last_checked_at: iso,
    next_check_at: iso,
    last_failure_reason: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    links: { type: 'object', properties: { self: { type: 'string' }, results: { type: 'string' }, report: { type: 'string' } } },
  },
});
const result = schema({
  type: 'object',
  required: ['id', 'checked_at', 'ok', 'latency_ms', 'reason'],
  properties: {
    id: { type: 'string' },
    checked_at: { type: 'string', format: 'date-time' },
    ok: { type: 'boolean' },
    latency_ms: { type: ['integer', 'null'] },
    reason: { type: ['string', 'null'] },
    detail: { type: 'object', additionalProperties: true },
  },
});
const report = schema({
  type: 'object',
  required: ['monitor_id', 'period', 'from', 'to', 'checks', 'failures', 'uptime_percent', 'latency_ms', 'incidents'],
  properties: {
    monitor_id: { type: 'string' },
    period: { type: 'string', enum: ['24h', '7d', '30d'] },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    checks: { type: 'integer' },
    failures: { type: 'integer' },
    uptime_percent: {
      type: ['number', 'null'],
      description: 'Passed checks ÷ all checks in the period × 100 (three decimals); null with no checks.',
    },
    latency_ms: {
      type: 'object',
      properties: { p50: { type: ['integer', 'null'] }, p95: { type: ['integer', 'null'] } },
      description: 'Nearest-rank percentiles over checks that measured a latency.',
    },
    incidents: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          started_at: { type: 'string' },
          ended_at: iso,
          duration_seconds: { type: 'integer', description: 'Within the period.' },
          reason: { type: ['string', 'null'] },
        },
      },
    },
  },
});
const idParam = schema({ type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 60 } } });

/** Monitoring (/v1/monitors): monitor.edit class 1, monitor.read class 0, scoped by the key's domains. */
export interface MonitorsUseCases {
  readonly monitors: {
    readonly create: Pick<CreateMonitor, 'execute'>;
    readonly update: Pick<UpdateMonitor, 'execute'>;
    readonly delete: Pick<DeleteMonitor, 'execute'>;
    readonly list: Pick<ListMonitors, 'execute'>;
    readonly get: Pick<GetMonitor, 'execute'>;
    readonly results: Pick<ListMonitorResults, 'execute'>;
    readonly report: Pick<MonitorReport, 'execute'>;
  };
}

export const monitorRoutes = (uc: MonitorsUseCases): Route[] => [
  route({
    id: 'createMonitor',
    method: 'POST',
    path: '/v1/monitors',
    tag: 'Monitoring',
    writes: true,
    summary: 'Create a monitor (dns, http, tls or domain_expiry) on one of your domains',
    description:
      "Needs monitor.edit on the domain. Targets (a dns name, an http URL's host, a tls host) must be the domain or a name under it. The worker runs the first check at once, then every interval_seconds; a change between ok and failing opens or closes an incident, appends monitor.check_failed / monitor.check_recovered and notifies the owners.",
    access: { kind: 'key', rights: { names: ['monitor.edit'], of: (i) => [{ right: 'monitor.edit', domain: i.body.domain }] } },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'domain'],
      properties: {
        kind: { type: 'string', enum: [...MONITOR_KINDS] },
        domain: { type: 'string', minLength: 1, maxLength: 300 },
        ...specProperties,
        ...common,
      },
    },
    responses: { 201: { description: 'Created (state pending until the first check)', schema: monitor } },
    errors: ['domain_not_found', 'right_missing', 'monitor_interval_too_short', 'monitor_limit_reached'],
    handle: async (i) => {
      const m = await uc.monitors.create.execute(i.key, i.body);
      return { status: 201, headers: { Location: m.links.self }, body: m };
    },
  }),
  route({
    id: 'listMonitors',
    method: 'GET',
    path: '/v1/monitors',
    tag: 'Monitoring',
    writes: false,
    summary: 'Monitors of the domains the key may read (monitor.read), newest first, cursor pages',
    access: { kind: 'key', rights: { names: ['monitor.read'], of: (i) => [{ right: 'monitor.read', domain: i.query.domain }] } },
    query: pageQuery({ domain: { type: 'string', minLength: 1, maxLength: 300, description: 'Only monitors of this domain.' } }),
    responses: { 200: { description: 'A page of monitors', schema: page(monitor) } },
    errors: ['right_missing', 'cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.monitors.list.execute(i.key, { cursor: i.query.cursor, limit: i.query.limit, domain: i.query.domain }),
    }),
  }),
  route({
    id: 'getMonitor',
    method: 'GET',
    path: '/v1/monitors/{id}',
    tag: 'Monitoring',
    writes: false,
    summary: 'One monitor and its current state (monitor.read)',
    access: { kind: 'key', rightsOfRecord: ['monitor.read'] },
    params: idParam,
    responses: { 200: { description: 'The monitor', schema: monitor } },
    errors: ['monitor_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.monitors.get.execute(i.key, i.params.id) }),
  }),
  route({
    id: 'updateMonitor',
    method: 'PATCH',
    path: '/v1/monitors/{id}',
    tag: 'Monitoring',
    writes: true,
    summary: 'Change a monitor: its kind-specific fields, interval, enabled (monitor.edit). The kind and domain stay.',
    access: { kind: 'key', rightsOfRecord: ['monitor.edit'] },
    params: idParam,
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: {
        kind: { type: 'string', enum: [...MONITOR_KINDS] },
        domain: { type: 'string', minLength: 1, maxLength: 300 },
        ...specProperties,
        ...common,
      },
    },
    responses: { 200: { description: 'The changed monitor', schema: monitor } },
    errors: ['monitor_not_found', 'right_missing', 'monitor_interval_too_short'],
    handle: async (i) => ({ status: 200, body: await uc.monitors.update.execute(i.key, i.params.id, i.body) }),
  }),
  route({
    id: 'deleteMonitor',
    method: 'DELETE',
    path: '/v1/monitors/{id}',
    tag: 'Monitoring',
    writes: true,
    summary: 'Delete a monitor with its results and incidents (monitor.edit)',
    access: { kind: 'key', rightsOfRecord: ['monitor.edit'] },
    params: idParam,
    responses: {
      200: { description: 'Deleted', schema: { type: 'object', properties: { id: { type: 'string' }, deleted: { type: 'boolean' } } } },
    },
    errors: ['monitor_not_found', 'right_missing'],
    handle: async (i) => ({ status: 200, body: await uc.monitors.delete.execute(i.key, i.params.id) }),
  }),
  route({
    id: 'listMonitorResults',
    method: 'GET',
    path: '/v1/monitors/{id}/results',
    tag: 'Monitoring',
    writes: false,
    summary: 'Check results, newest first, within [from, to) — kept 30 days (monitor.read)',
    access: { kind: 'key', rightsOfRecord: ['monitor.read'] },
    params: idParam,
    query: pageQuery({
      from: { type: 'string', maxLength: 40, description: 'RFC 3339 instant or YYYY-MM-DD (inclusive).' },
      to: { type: 'string', maxLength: 40, description: 'RFC 3339 instant or YYYY-MM-DD (exclusive).' },
    }),
    responses: { 200: { description: 'A page of results', schema: page(result) } },
    errors: ['monitor_not_found', 'cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.monitors.results.execute(i.key, i.params.id, {
        from: i.query.from,
        to: i.query.to,
        cursor: i.query.cursor,
        limit: i.query.limit,
      }),
    }),
  }),
  route({
    id: 'getMonitorReport',
    method: 'GET',
    path: '/v1/monitors/{id}/report',
    tag: 'Monitoring',
    writes: false,
    summary: 'Uptime %, p50/p95 latency and incidents over the last 24h, 7d or 30d (monitor.read)',
    access: { kind: 'key', rightsOfRecord: ['monitor.read'] },
    params: idParam,
    query: {
      type: 'object',
      additionalProperties: false,
      properties: { period: { type: 'string', enum: ['24h', '7d', '30d'], description: 'Default 24h.' } },
    },
    responses: { 200: { description: 'The report', schema: report } },
    errors: ['monitor_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.monitors.report.execute(i.key, i.params.id, i.query.period ?? '24h') }),
  }),
];
