import ipaddr from 'ipaddr.js';
import { domainToASCII } from 'node:url';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { DNS_MONITOR_TYPES, type DnsMonitorType, type MonitorKind, type MonitorSpec } from './monitor.js';

/** What a client sends for the kind-specific part (snake_case, as on the wire). */
export interface MonitorSpecInput {
  readonly name?: string;
  readonly type?: string;
  readonly expected?: readonly string[] | null;
  readonly nameservers?: readonly string[];
  readonly url?: string;
  readonly expected_status?: number;
  readonly body_contains?: string | null;
  readonly max_latency_ms?: number | null;
  readonly host?: string;
  readonly port?: number;
  readonly min_days_valid?: number;
}

/** Per-environment rules: the interval floor, and whether loopback peers are allowed. */
export interface MonitorRules {
  readonly minIntervalSeconds: (environment: Environment) => number;
  /** Loopback targets / nameservers: never in live; in the sandbox only when MONITORS_ALLOW_LOOPBACK=1. */
  readonly allowLoopback: (environment: Environment) => boolean;
  /** Monitors one account may hold per environment (MONITOR_LIMIT): the worker's load stays bounded. */
  readonly maxPerAccount: number;
}

export const MAX_INTERVAL_SECONDS = 86_400;
export const DEFAULT_INTERVAL_SECONDS = 300;
const FIELDS_OF: Record<MonitorKind, readonly string[]> = {
  dns: ['name', 'type', 'expected', 'nameservers'],
  http: ['url', 'expected_status', 'body_contains', 'max_latency_ms'],
  tls: ['host', 'port', 'min_days_valid'],
  domain_expiry: ['min_days_valid'],
};
export const ALL_SPEC_FIELDS = [...new Set(Object.values(FIELDS_OF).flat())];

type Detail = { field: string; rule: string; message: { uk: string; en: string } };
const problem = (field: string, rule: string, uk: string, en: string): Detail => ({ field: `/body/${field}`, rule, message: { uk, en } });

/** A host name (labels of letters, digits, '-' and '_'), lower case A-labels, no trailing dot; null when not one. */
export const hostName = (input: string): string | null => {
  const raw = input.trim().replace(/\.$/, '').toLowerCase();
  if (raw === '' || raw.length > 253 || /[\s/?#\\%@:[\]]/.test(raw)) return null;
  const ascii = /^[\x00-\x7f]*$/.test(raw) ? raw : domainToASCII(raw);
  if (!ascii) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null; // an IPv4 literal is not a name
  return ascii;
};

/** The domain itself or a name under it (targets of every kind must stay inside the monitor's domain). */
export const inDomain = (name: string, domain: string): boolean => name === domain || name.endsWith(`.${domain}`);

/** A name as a client writes it in a dns monitor: "@" or nothing is the apex, a name ending in the domain is absolute, any other is relative. */
const dnsName = (input: string | undefined, domain: string): string | null => {
  if (input === undefined || input === '@' || input === '') return domain;
  const abs = hostName(input.replace(/\.$/, ''));
  // A trailing dot makes a name absolute (RFC 1034 §3.1), as does ending in the domain.
  if (abs && (inDomain(abs, domain) || input.endsWith('.'))) return abs;
  return hostName(`${input.replace(/\.$/, '')}.${domain}`);
};

/** "ip" or "ip:port" or "[v6]:port" → canonical text, or null. */
const nameserver = (input: string, allowLoopback: boolean): { value: string } | { error: 'syntax' | 'range' } => {
  const m =
    /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(input) ?? /^([0-9.]+)(?::(\d{1,5}))?$/.exec(input) ?? /^([0-9a-fA-F:]+)()$/.exec(input);
  if (!m || !ipaddr.isValid(m[1]!)) return { error: 'syntax' };
  const port = m[2] ? Number(m[2]) : 53;
  if (port < 1 || port > 65_535) return { error: 'syntax' };
  let addr = ipaddr.parse(m[1]!);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  if (range !== 'unicast' && !(allowLoopback && range === 'loopback')) return { error: 'range' };
  const text = addr.toString();
  return { value: addr.kind() === 'ipv6' ? `[${text}]:${port}` : `${text}:${port}` };
};

/**
 * Builds the kind-specific part of a monitor from the request and checks every rule at once: each
 * problem becomes one `details` entry of a 422 validation_failed, in the seed's error shape.
 * Targets: a dns name, an http URL's host and a tls host must be the monitor's domain or a name under
 * it (no IP literals, no other domains): a key scoped to a domain can only watch that domain.
 */
export const buildSpec = (
  kind: MonitorKind,
  input: MonitorSpecInput,
  domain: string,
  environment: Environment,
  rules: MonitorRules,
): MonitorSpec => {
  const details: Detail[] = [];
  for (const f of ALL_SPEC_FIELDS) {
    if (!FIELDS_OF[kind].includes(f) && (input as Record<string, unknown>)[f] !== undefined) {
      details.push(
        problem(f, 'field-kind', `поле ${f} не належить до перевірки виду ${kind}`, `the field ${f} does not belong to a ${kind} monitor`),
      );
    }
  }
  const outside = (field: string, value: string) =>
    details.push(
      problem(
        field,
        'target-in-domain',
        `${value} має бути доменом ${domain} або іменем у ньому`,
        `${value} must be the domain ${domain} or a name under it`,
      ),
    );
  let spec: MonitorSpec | null = null;
  switch (kind) {
    case 'dns': {
      const name = dnsName(input.name, domain);
      if (!name) details.push(problem('name', 'name-syntax', 'неправильне DNS-ім’я', 'not a valid DNS name'));
      else if (!inDomain(name, domain)) outside('name', name);
      const type = (input.type ?? 'A').toUpperCase();
      if (!(DNS_MONITOR_TYPES as readonly string[]).includes(type)) {
        details.push(
          problem(
            'type',
            'record-type',
            `тип запису має бути одним із ${DNS_MONITOR_TYPES.join(', ')}`,
            `the record type must be one of ${DNS_MONITOR_TYPES.join(', ')}`,
          ),
        );
      }
      const nameservers: string[] = [];
      for (const [i, ns] of (input.nameservers ?? []).entries()) {
        const r = nameserver(ns.trim(), rules.allowLoopback(environment));
        if ('value' in r) nameservers.push(r.value);
        else if (r.error === 'syntax')
          details.push(
            problem(
              `nameservers/${i}`,
              'nameserver-address',
              'сервер імен задається IP-адресою, за потреби з портом (203.0.113.5:53, [2001:db8::1]:53)',
              'a nameserver is an IP address, optionally with a port (203.0.113.5:53, [2001:db8::1]:53)',
            ),
          );
        else
          details.push(
            problem(
              `nameservers/${i}`,
              'nameserver-public',
              'сервер імен має бути публічною адресою (не локальною, приватною чи службовою)',
              'a nameserver must be a public address (not loopback, private or reserved)',
            ),
          );
      }
      if (name && details.length === 0) {
        spec = {
          kind,
          name,
          type: type as DnsMonitorType,
          nameservers: [...new Set(nameservers)],
          expected: input.expected === undefined || input.expected === null ? null : [...new Set(input.expected.map((v) => v.trim()))],
        };
      }
      break;
    }
    case 'http': {
      let url: URL | null = null;
      try {
        url = new URL(input.url ?? '');
      } catch {
        details.push(
          problem('url', 'url-syntax', 'потрібна повна адреса http:// або https://', 'a full http:// or https:// URL is required'),
        );
      }
      if (url) {
        const host = hostName(url.hostname);
        if (url.protocol !== 'http:' && url.protocol !== 'https:')
          details.push(
            problem('url', 'url-scheme', 'адреса має починатися з http:// або https://', 'the URL must start with http:// or https://'),
          );
        else if (url.username || url.password)
          details.push(
            problem(
              'url',
              'url-credentials',
              'адреса не може містити ім’я користувача чи пароль',
              'the URL must not carry a user name or password',
            ),
          );
        else if (!host)
          details.push(
            problem('url', 'url-host-name', 'у адресі має бути доменне ім’я, не IP-адреса', 'the URL must name a host, not an IP address'),
          );
        else if (!inDomain(host, domain)) outside('url', host);
      }
      const expectedStatus = input.expected_status ?? 200;
      if (!Number.isInteger(expectedStatus) || expectedStatus < 100 || expectedStatus > 599) {
        details.push(problem('expected_status', 'status-range', 'код відповіді від 100 до 599', 'a status code from 100 to 599'));
      }
      if (url && details.length === 0) {
        spec = {
          kind,
          url: url.toString(),
          expectedStatus,
          bodyContains: input.body_contains ?? null,
          maxLatencyMs: input.max_latency_ms ?? null,
        };
      }
      break;
    }
    case 'tls': {
      const host = hostName(input.host ?? domain);
      if (!host)
        details.push(problem('host', 'host-name', 'потрібне доменне ім’я, не IP-адреса', 'a host name is required, not an IP address'));
      else if (!inDomain(host, domain)) outside('host', host);
      if (host && details.length === 0) spec = { kind, host, port: input.port ?? 443, minDaysValid: input.min_days_valid ?? 14 };
      break;
    }
    case 'domain_expiry':
      if (details.length === 0) spec = { kind, minDaysValid: input.min_days_valid ?? 30 };
      break;
  }
  if (details.length > 0 || !spec) throw new DomainError('validation_failed', {}, details);
  return spec;
};

/** The interval rule: at least 60 s in live, 10 s in the sandbox; at most a day. */
export const checkInterval = (seconds: number, environment: Environment, rules: MonitorRules): void => {
  const min = rules.minIntervalSeconds(environment);
  if (!Number.isInteger(seconds) || seconds < min || seconds > MAX_INTERVAL_SECONDS) {
    throw new DomainError(
      'monitor_interval_too_short',
      { minimum: min, maximum: MAX_INTERVAL_SECONDS, interval_seconds: seconds, environment },
      [
        problem(
          'interval_seconds',
          'interval-range',
          `інтервал від ${min} до ${MAX_INTERVAL_SECONDS} секунд (${environment === 'live' ? 'робоче середовище' : 'тестове середовище'})`,
          `the interval must be ${min} to ${MAX_INTERVAL_SECONDS} seconds (${environment} environment)`,
        ),
      ],
    );
  }
};
