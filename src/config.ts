import { randomBytes } from 'node:crypto';
import { DEFAULT_DNSSEC_TIMINGS, type DnssecTimings } from '../core/dnssec/dnssec-timings.js';
import { availableParallelism } from 'node:os';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { BucketConfig } from '../adapters/http/middleware/rate-limit.js';
import { parseIp, parseRange } from '../adapters/dns/embedded/config.js';
import type { EppSettings } from '../adapters/registrar/epp/index.js';

/**
 * Configuration from the environment. Reading process.env happens here and only here; the
 * constructors that receive these values validate them (STYLE 4).
 */
export interface Config {
  /** NODE_ENV=production: no generated secrets, no development allowances, no demo, sandbox DNS on its own port. */
  readonly production: boolean;
  /** Where KEY_PEPPER and DATA_KEY were read from files rather than the environment (printed at start in production). */
  readonly secretFiles: readonly string[];
  readonly port: number;
  readonly host: string;
  readonly dnsPort: number;
  /** Address the authoritative DNS server listens on (UDP and TCP). */
  readonly dnsHost: string;
  /** Addresses (or CIDRs) allowed to transfer zones (AXFR over TCP). */
  readonly axfrAllow: readonly string[];
  /** Secondaries told of every change (RFC 1996 NOTIFY), as host:port. */
  readonly dnsSecondaries: ReadonlyArray<{ host: string; port: number }>;
  /** The catalog zone (RFC 9432) listing every served zone for the secondaries; null: none offered. */
  readonly dnsCatalogZone: string | null;
  /** Whether npm start runs the DNS server (RUN_DNS=false to leave it out). */
  readonly runDns: boolean;
  /** DNS_WORKERS: 1 = in the API process; more = that many cluster workers sharing the sockets (default: one per core, ≤ 4). */
  readonly dnsWorkers: number;
  readonly databaseUrl: string;
  /** Postgres schema (tests; optional in production). */
  readonly databaseSchema?: string;
  readonly varDir: string;
  readonly keyPepper: Buffer;
  /** 32-byte key that encrypts secrets kept for reading back (TOTP seeds, later certificate keys). */
  readonly dataKey: Buffer;
  readonly trustProxy: boolean;
  /** Proxies of ours in front of the API, each appending to X-Forwarded-For. */
  readonly proxyHops: number;
  readonly logLevel: string;
  /** The live environment's registrar; "none" leaves live keys answering 503 environment_unavailable. */
  readonly liveRegistrar: 'none' | 'epp';
  readonly seedDemo: boolean;
  /** SMTP for e-mailed notices (live environment); without it they wait in the outbox. */
  readonly smtp: { readonly url: string; readonly from: string } | null;
  readonly runWorker: boolean;
  readonly maxBodyBytes: number;
  /** How long a slow client may take (adapters/http/http-server.ts). */
  readonly clientTimeouts: { readonly headersMs: number; readonly bodyIdleMs: number; readonly requestMs: number };
  readonly idempotencyLockMs: number;
  /** ABANDONED_REQUEST_MINUTES: a phased request still unfinished this long after it began is finished by the worker's completer. */
  readonly abandonedRequestMs: number;
  /** COOKIE_SECURE: true behind a TLS proxy (set it in production), false, or auto (by request host). */
  readonly secureCookies: boolean | 'auto';
  readonly rateLimit: { readonly key: BucketConfig; readonly anonymous: BucketConfig };
  /**
   * The test environment's certificate authority: our in-process sandbox CA (default), or an ACME
   * directory (Let's Encrypt staging, a local Pebble) — SANDBOX_CA=acme with SANDBOX_ACME_DIRECTORY_URL.
   */
  readonly sandboxCa:
    { readonly kind: 'internal' } | { readonly kind: 'acme'; readonly directoryUrl: string; readonly caFile: string | null };
  /** ACME for live certificates (used once a live adapter set is configured): Let's Encrypt production by default. */
  readonly acme: { readonly directoryUrl: string; readonly email: string | null; readonly caFile: string | null };
  /** Renew issued certificates this many days before expiry (CERT_RENEW_BEFORE_DAYS, default 30). */
  readonly certRenewBeforeDays: number;
  readonly argon2: { readonly memoryCost: number; readonly timeCost: number; readonly parallelism: number };
  /** The console's public address (PUBLIC_URL + /console), for links in e-mails (invitations). */
  readonly consoleUrl: string;
  /** webhook delivery and the event log. */
  readonly webhooks: {
    /** WEBHOOKS_ALLOW_LOOPBACK=1: test-environment endpoints may be http://127.0.0.1 (tests). Never live. */
    readonly allowLoopback: boolean;
    /** WEBHOOKS_TIMEOUT_MS: per attempt (default 10 000). */
    readonly timeoutMs: number;
    /** WEBHOOKS_LEASE_MS: how long a worker holds a claimed delivery (default 60 000); a crashed worker's claims come free after it. */
    readonly leaseMs: number;
    /** WEBHOOKS_POLL_MS: the dispatcher's first sleep after a pass that found nothing (default 100); idle, it doubles up to WEBHOOKS_IDLE_MAX_MS. */
    readonly pollMs: number;
    /**
     * WEBHOOKS_IDLE_MAX_MS: the longest idle sleep (default 1 000): how late, at most, an idle worker finds events
     * another process appended (a worker started on its own, `npm run worker`) and retries come due; events its own
     * process appends wake it at once. Set it to WEBHOOKS_POLL_MS for no back-off.
     */
    readonly idleMaxMs: number;
    /** WEBHOOKS_CONCURRENCY: deliveries in flight per worker process, across endpoints (default 32). */
    readonly concurrency: number;
    /** WEBHOOKS_PER_ENDPOINT: attempts in flight per endpoint, started in event order (default 4; 1 = strictly in order). */
    readonly perEndpoint: number;
  };
  /** EVENTS_RETENTION_DAYS: how long the event log keeps events (default 30). */
  readonly eventsRetentionDays: number;
  /**
   * Monitoring: MONITORS_ALLOW_LOOPBACK=1 lets sandbox monitors reach 127.0.0.0/8 and ::1
   * (tests; never live); MONITOR_CHECK_TIMEOUT_MS bounds each check (default 10 000);
   * MONITOR_BATCH is how many due checks one worker pass claims and runs at once (default 50);
   * MONITOR_LIMIT caps the monitors of one account per environment (default 200).
   */
  /**
   * Hosted domains: HOSTED_DOMAIN_LIMIT per account and environment (default 100); ZONE_RECORD_LIMIT record
   * sets per zone, a plan check (default 100 000); HOSTING_RECHECK_SECONDS between the worker's delegation
   * re-checks of each active hosted zone (default 3600); the live resolver's DELEGATION_ROOT_HINTS
   * (`host[@port]`, comma-separated; default the IANA roots), DELEGATION_RESOLVER_PORT (the port of every
   * server found on the way, default 53) and DELEGATION_RESOLVER_TIMEOUT_MS (per question, default 2000).
   */
  readonly hosting: {
    readonly limit: number;
    readonly zoneRecordLimit: number;
    readonly recheckSeconds: number;
    readonly rootHints: string;
    readonly resolverPort: number;
    readonly resolverTimeoutMs: number;
  };
  /**
   * DNSSEC schedules (core/dnssec/dnssec-timings.ts): DNSSEC_DS_TTL_SECONDS, the parent's DS TTL that a
   * switch-off and a rollover wait out (default 86400); DNSSEC_PROPAGATION_SECONDS, added to every wait
   * for the secondaries (default 3600); DNSSEC_CSK_LIFETIME_DAYS before the automatic CSK rollover (default
   * 365); DNSSEC_TEST_WAIT_SECONDS, tests only (refused in production): every wait this many seconds.
   */
  readonly dnssec: { readonly timings: DnssecTimings };
  readonly monitors: {
    readonly allowLoopback: boolean;
    readonly checkTimeoutMs: number;
    readonly batch: number;
    readonly maxPerAccount: number;
  };
  /**
   * Zone import (POST …/dns/imports): DNS_IMPORT_MAX_BYTES caps a zone file (the body limit of that route,
   * JSON or text/dns) and an AXFR answer; DNS_IMPORT_MAX_RECORDS the records read; DNS_IMPORT_MAX_SECONDS
   * the whole job; DNS_IMPORT_GENERATE_MAX the records one $GENERATE makes; DNS_IMPORT_ALLOW_LOOPBACK=1 lets
   * AXFR reach loopback servers (development and tests; production refuses it).
   */
  readonly dnsImport: {
    readonly maxBytes: number;
    readonly maxRecords: number;
    readonly maxSeconds: number;
    readonly generateMax: number;
    readonly allowLoopback: boolean;
  };
  /** The EPP registry of the live environment (LIVE_REGISTRAR=epp): EPP_* variables; null otherwise. */
  readonly epp: EppConfig | null;
  /** Stripe for live top-ups (STRIPE_SECRET_KEY); without it live top-ups are refused with a clear error. */
  readonly liveStripe: { readonly secretKey: string; readonly apiBase?: string } | null;
  /** Which environment the public MCP tools read (MCP_ENVIRONMENT: test, the default, or live). */
  readonly mcpEnvironment: 'test' | 'live';
  /** DNS_NSID: the DNS server's NSID (RFC 5001), sent to queries that ask for it; unset: none. */
  readonly dnsNsid?: string;
  /**
   * DNS_RRL_RATE / DNS_RRL_SLIP: UDP response rate limiting, as Knot's RRL: answers per second per source
   * /24 (IPv4) or /56 (IPv6), and every how-many-th limited answer goes out truncated (TC) instead of
   * dropped (default 1; 0 drops all). Rate 0, the default, is off.
   */
  readonly dnsRrl: { readonly rate: number; readonly slip: number } | null;
  /**
   * Where sandbox (test environment) zones are served. Development: null, beside the live zones on
   * DNS_PORT. Production: SANDBOX_DNS_PORT (default 5354) on DNS_HOST, never on DNS_PORT, so never
   * transferred or NOTIFYed to the secondaries the world asks.
   */
  readonly sandboxDns: { readonly host: string; readonly port: number } | null;
  /** METRICS_HOST:METRICS_PORT (default 127.0.0.1:9464) serve GET /metrics; port 0: none. */
  readonly metrics: { readonly host: string; readonly port: number };
  /** SHUTDOWN_TIMEOUT_MS: how long SIGTERM waits for requests, transfers and the worker's job in flight (default 10 000). */
  readonly shutdownTimeoutMs: number;
}

/** The DNS server a sandbox check (ACME challenge propagation, DNS monitors) or a live one asks. */
export const ownDns = (config: Config, environment: 'test' | 'live'): { host: string; port: number } =>
  environment === 'test' && config.sandboxDns ? config.sandboxDns : { host: config.dnsHost, port: config.dnsPort };

/** EPP_* (RFC 5734 over TLS with a client certificate): the adapter's connection settings (host, port,
 * client id, password, and the PEM files or text of our certificate, its key and the registry's CA),
 * which its factory validates, plus what the composition root decides. */
export interface EppConfig extends Pick<EppSettings, 'host' | 'port' | 'clientId' | 'password' | 'cert' | 'key' | 'ca'> {
  readonly poolSize: number;
  readonly nameservers: readonly string[];
  /** Poll the registry's message queue every this many seconds (worker). */
  readonly pollSeconds: number;
}

const eppConfig = (env: NodeJS.ProcessEnv): EppConfig => {
  const need = (name: string): string => {
    const v = env[name];
    if (!v) problem(`${name} is required when LIVE_REGISTRAR=epp`);
    return v ?? '';
  };
  return {
    host: need('EPP_HOST'),
    port: port(env, 'EPP_PORT', 700, 1),
    clientId: need('EPP_CLIENT_ID'),
    password: need('EPP_PASSWORD'),
    cert: need('EPP_CERT'),
    key: need('EPP_KEY'),
    ca: need('EPP_CA'),
    poolSize: int(env, 'EPP_POOL_SIZE', 2, 1),
    nameservers: (env.EPP_NAMESERVERS || 'ns1.domivka.net,ns2.domivka.net')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
    pollSeconds: int(env, 'EPP_POLL_SECONDS', 60, 1),
  };
};

/** A configuration refused: every problem found, each naming its variable. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.join('; '));
    this.problems = list;
  }
}

/**
 * While loadConfig runs, every problem is noted here and parsing goes on with the fallback, so that one
 * start reports them all; loadConfig throws them together at the end.
 */
let problems: string[] | null = null;
const problem = (message: string): void => {
  if (problems) problems.push(message);
  else throw new ConfigError(message);
};

const int = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) {
    problem(`${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `${min}–${max}`}, got "${v}"`);
    return fallback;
  }
  return n;
};

/** A TCP/UDP port: 0 (where the variable says what 0 means) or 1 up, to 65535. */
const port = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number => int(env, name, fallback, min, 65535);

/** An address the DNS server binds or sends to: an IP literal (it binds no name). */
const ipAddress = (env: NodeJS.ProcessEnv, name: string, fallback: string): string => {
  const v = env[name] || fallback;
  if (parseIp(v)) return v;
  problem(`${name} must be an IP address, got "${v}"`);
  return fallback;
};

const bool = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  problem(`${name} must be true or false, got "${v}"`);
  return fallback;
};

/**
 * A secret from the environment (hex), or from var/<file>: in development generated there once (0600);
 * in production never generated — the file must exist (its path goes to `files`, printed at start).
 */
const secretFrom = (
  env: NodeJS.ProcessEnv,
  name: string,
  varDir: string,
  fileName: string,
  exact: boolean,
  production: boolean,
  files: string[],
): Buffer => {
  const v = env[name];
  const shape = exact ? /^[0-9a-fA-F]{64}$/ : /^[0-9a-fA-F]{64,}$/;
  const wrong = `${name} must be ${exact ? 'exactly' : 'at least'} 64 hex digits (32 bytes)`;
  if (v) {
    if (!shape.test(v)) {
      problem(wrong);
      return Buffer.alloc(32);
    }
    return Buffer.from(v, 'hex');
  }
  const file = join(varDir, fileName);
  if (production) {
    if (!existsSync(file)) {
      problem(
        `${name} is not set and ${file} does not exist: production never generates it (set ${name}, 64 hex digits, or put it in that file)`,
      );
      return Buffer.alloc(32);
    }
    const text = readFileSync(file, 'utf8').trim();
    if (!shape.test(text)) {
      problem(`${wrong} (read from ${file})`);
      return Buffer.alloc(32);
    }
    files.push(`${name} from ${file}`);
    return Buffer.from(text, 'hex');
  }
  if (!existsSync(file)) {
    mkdirSync(varDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
};

/**
 * DNS workers by default: one per core, at most 4 (every datagram wakes each idle worker on the shared
 * socket); in the API process on a single core. Measured on 2 cores (bench:dns): 2 workers beat one
 * process in 7 runs of 10 and keep zone compiling off the API's event loop.
 */
const defaultDnsWorkers = (): number => {
  const n = availableParallelism();
  return n >= 2 ? Math.min(n, 4) : 1;
};

const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';
const LETS_ENCRYPT_STAGING = 'https://acme-staging-v02.api.letsencrypt.org/directory';

const url = (env: NodeJS.ProcessEnv, name: string, fallback: string): string => {
  const v = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    problem(`${name} must be an https URL, got "${v}"`);
    return fallback;
  }
  if (parsed.protocol !== 'https:') problem(`${name} must be an https URL (RFC 8555 §6.1), got "${v}"`);
  return v;
};

const sandboxCa = (env: NodeJS.ProcessEnv): Config['sandboxCa'] => {
  const kind = env.SANDBOX_CA || 'internal';
  if (kind === 'internal') return { kind };
  if (kind === 'acme')
    return { kind, directoryUrl: url(env, 'SANDBOX_ACME_DIRECTORY_URL', LETS_ENCRYPT_STAGING), caFile: env.SANDBOX_ACME_CA_FILE || null };
  problem(`SANDBOX_CA must be "internal" or "acme", got "${kind}"`);
  return { kind: 'internal' };
};

const mcpEnvironment = (env: NodeJS.ProcessEnv): 'test' | 'live' => {
  const v = env.MCP_ENVIRONMENT || 'test';
  if (v !== 'test' && v !== 'live') {
    problem(`MCP_ENVIRONMENT must be "test" or "live", got "${v}"`);
    return 'test';
  }
  return v;
};

/** SMTP_URL: smtp:// or smtps:// (nodemailer's form: smtp://user:pass@host:587). */
const smtpUrl = (v: string): string => {
  let url: URL | null = null;
  try {
    url = new URL(v);
  } catch {
    /* named below */
  }
  // Never echoed: the URL may hold the mail server's password.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '')
    problem('SMTP_URL must be an smtp:// or smtps:// URL with a host');
  return v;
};

/** DNS_CATALOG_ZONE: a domain name (empty: no catalog zone). */
const catalogZoneName = (v: string): string | null => {
  const name = v.trim().toLowerCase().replace(/\.$/, '');
  if (name === '') return null;
  if (name.length > 253 || !name.split('.').every((l) => /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/.test(l))) {
    problem(`DNS_CATALOG_ZONE must be a domain name (or empty for none), got "${v}"`);
    return null;
  }
  return name;
};

/** Development allowances that production refuses (each lets a test environment reach loopback). */
const DEVELOPMENT_ALLOWANCES = ['WEBHOOKS_ALLOW_LOOPBACK', 'MONITORS_ALLOW_LOOPBACK', 'DNS_IMPORT_ALLOW_LOOPBACK'];

/** What production adds to the checks: no development allowance, Secure cookies, no demo, a sandbox DNS port of its own. */
const productionProblems = (env: NodeJS.ProcessEnv, c: Config): void => {
  for (const name of DEVELOPMENT_ALLOWANCES) {
    if (bool(env, name, false)) problem(`${name} is a development allowance; production refuses it (unset it)`);
  }
  if (c.secureCookies !== true)
    problem(`COOKIE_SECURE must be true in production (cookies only over TLS), got "${env.COOKIE_SECURE ?? ''}"`);
  if (bool(env, 'SEED_DEMO', false)) problem('SEED_DEMO: production never seeds the demo account (unset it)');
  if (env.DNSSEC_TEST_WAIT_SECONDS)
    problem('DNSSEC_TEST_WAIT_SECONDS shortens DNSSEC waits below the TTLs, for tests only; production refuses it (unset it)');
  if (c.sandboxDns && c.sandboxDns.port === c.dnsPort)
    problem(
      `SANDBOX_DNS_PORT must differ from DNS_PORT in production (sandbox zones are never served on DNS_PORT), got ${c.sandboxDns.port}`,
    );
};

/**
 * Reads and checks the whole configuration; throws one ConfigError listing every problem, each naming
 * its variable (a production start shows them all at once).
 */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  problems = [];
  try {
    const config = readConfig(env);
    if (config.production) productionProblems(env, config);
    if (problems.length > 0) throw new ConfigError(problems);
    return config;
  } finally {
    problems = null;
  }
};

const readConfig = (env: NodeJS.ProcessEnv): Config => {
  const production = env.NODE_ENV === 'production';
  const secretFiles: string[] = [];
  const databaseUrl = env.DATABASE_URL || './var/domivka.sqlite';
  const varDir = resolve(env.VAR_DIR || (databaseUrl.startsWith('postgres') ? './var' : dirname(databaseUrl)));
  let live = env.LIVE_REGISTRAR || 'none';
  if (live !== 'none' && live !== 'epp') {
    problem(`LIVE_REGISTRAR must be "none" or "epp", got "${live}"`);
    live = 'none';
  }
  const dnsHost = ipAddress(env, 'DNS_HOST', '127.0.0.1');
  return {
    production,
    secretFiles,
    port: port(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    dnsPort: port(env, 'DNS_PORT', 5353),
    dnsHost,
    axfrAllow: (env.AXFR_ALLOW || '127.0.0.1')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .filter((s) => parseRange(s) !== null || (problem(`AXFR_ALLOW entries are IP addresses or CIDR networks, got "${s}"`), false)),
    dnsSecondaries: (env.DNS_SECONDARIES || '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => {
        const m = /^\[?(.+?)\]?:(\d+)$/.exec(s);
        if (!m || !parseIp(m[1]) || Number(m[2]) < 1 || Number(m[2]) > 65535) {
          problem(`DNS_SECONDARIES entries are an IP address and a port 1–65535 (192.0.2.1:53, [2001:db8::1]:53), got "${s}"`);
          return null;
        }
        return { host: m[1]!, port: Number(m[2]) };
      })
      .filter((x): x is { host: string; port: number } => x !== null),
    dnsCatalogZone: catalogZoneName(env.DNS_CATALOG_ZONE ?? 'catalog.domivka.invalid'),
    runDns: bool(env, 'RUN_DNS', true),
    dnsWorkers: int(env, 'DNS_WORKERS', defaultDnsWorkers(), 1),
    databaseUrl,
    ...(env.DATABASE_SCHEMA ? { databaseSchema: env.DATABASE_SCHEMA } : {}),
    varDir,
    keyPepper: secretFrom(env, 'KEY_PEPPER', varDir, 'key-pepper', false, production, secretFiles),
    dataKey: secretFrom(env, 'DATA_KEY', varDir, 'data-key', true, production, secretFiles),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    proxyHops: int(env, 'TRUST_PROXY_HOPS', 1, 1),
    logLevel: env.LOG_LEVEL || 'info',
    liveRegistrar: live as 'none' | 'epp',
    seedDemo: !production && bool(env, 'SEED_DEMO', true),
    smtp: env.SMTP_URL ? { url: smtpUrl(env.SMTP_URL), from: env.SMTP_FROM || 'Domivka <notices@domivka.net>' } : null,
    runWorker: bool(env, 'RUN_WORKER', true),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 256 * 1024, 1024),
    clientTimeouts: {
      headersMs: int(env, 'HTTP_HEADERS_TIMEOUT_SECONDS', 30, 1) * 1000,
      bodyIdleMs: int(env, 'HTTP_BODY_IDLE_SECONDS', 30, 1) * 1000,
      requestMs: int(env, 'HTTP_REQUEST_TIMEOUT_SECONDS', 600, 1) * 1000,
    },
    idempotencyLockMs: int(env, 'IDEMPOTENCY_LOCK_SECONDS', 60, 1) * 1000,
    abandonedRequestMs: int(env, 'ABANDONED_REQUEST_MINUTES', 15, 1) * 60_000,
    secureCookies: !env.COOKIE_SECURE || env.COOKIE_SECURE === 'auto' ? 'auto' : bool(env, 'COOKIE_SECURE', false),
    rateLimit: {
      key: { burst: int(env, 'RATE_LIMIT_BURST', 200, 100), perSecond: int(env, 'RATE_LIMIT_PER_SECOND', 20, 1) },
      anonymous: { burst: int(env, 'RATE_LIMIT_ANON_BURST', 100, 10), perSecond: int(env, 'RATE_LIMIT_ANON_PER_SECOND', 5, 1) },
    },
    sandboxCa: sandboxCa(env),
    acme: {
      directoryUrl: url(env, 'ACME_DIRECTORY_URL', LETS_ENCRYPT),
      email: env.ACME_EMAIL || null,
      caFile: env.ACME_CA_FILE || null,
    },
    certRenewBeforeDays: int(env, 'CERT_RENEW_BEFORE_DAYS', 30, 1),
    argon2: {
      memoryCost: int(env, 'ARGON2_MEMORY_KIB', 19456, 1024),
      timeCost: int(env, 'ARGON2_TIME_COST', 2, 1),
      parallelism: 1,
    },
    consoleUrl: `${(env.PUBLIC_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || '8080'}`).replace(/\/$/, '')}/console`,
    webhooks: {
      allowLoopback: bool(env, 'WEBHOOKS_ALLOW_LOOPBACK', false),
      timeoutMs: int(env, 'WEBHOOKS_TIMEOUT_MS', 10_000, 100),
      leaseMs: int(env, 'WEBHOOKS_LEASE_MS', 60_000, 1000),
      pollMs: int(env, 'WEBHOOKS_POLL_MS', 100, 10),
      idleMaxMs: int(env, 'WEBHOOKS_IDLE_MAX_MS', 1000, 10),
      concurrency: int(env, 'WEBHOOKS_CONCURRENCY', 32, 1),
      perEndpoint: int(env, 'WEBHOOKS_PER_ENDPOINT', 4, 1),
    },
    eventsRetentionDays: int(env, 'EVENTS_RETENTION_DAYS', 30, 1),
    hosting: {
      limit: int(env, 'HOSTED_DOMAIN_LIMIT', 100, 1),
      zoneRecordLimit: int(env, 'ZONE_RECORD_LIMIT', 100_000, 1),
      recheckSeconds: int(env, 'HOSTING_RECHECK_SECONDS', 3600, 1),
      rootHints: env.DELEGATION_ROOT_HINTS ?? '',
      resolverPort: port(env, 'DELEGATION_RESOLVER_PORT', 53, 1),
      resolverTimeoutMs: int(env, 'DELEGATION_RESOLVER_TIMEOUT_MS', 2000, 50),
    },
    dnssec: {
      timings: {
        dnskeyTtlS: DEFAULT_DNSSEC_TIMINGS.dnskeyTtlS,
        dsTtlS: int(env, 'DNSSEC_DS_TTL_SECONDS', DEFAULT_DNSSEC_TIMINGS.dsTtlS, 0),
        propagationS: int(env, 'DNSSEC_PROPAGATION_SECONDS', DEFAULT_DNSSEC_TIMINGS.propagationS, 0),
        cskLifetimeS: int(env, 'DNSSEC_CSK_LIFETIME_DAYS', DEFAULT_DNSSEC_TIMINGS.cskLifetimeS / 86400, 1) * 86400,
        testWaitS: env.DNSSEC_TEST_WAIT_SECONDS ? int(env, 'DNSSEC_TEST_WAIT_SECONDS', 0, 0) : null,
      },
    },
    monitors: {
      allowLoopback: bool(env, 'MONITORS_ALLOW_LOOPBACK', false),
      checkTimeoutMs: int(env, 'MONITOR_CHECK_TIMEOUT_MS', 10_000, 100),
      batch: int(env, 'MONITOR_BATCH', 50, 1),
      maxPerAccount: int(env, 'MONITOR_LIMIT', 200, 1),
    },
    dnsImport: {
      maxBytes: int(env, 'DNS_IMPORT_MAX_BYTES', 64 * 1024 * 1024, 1024),
      maxRecords: int(env, 'DNS_IMPORT_MAX_RECORDS', 1_000_000, 1),
      maxSeconds: int(env, 'DNS_IMPORT_MAX_SECONDS', 120, 1),
      generateMax: int(env, 'DNS_IMPORT_GENERATE_MAX', 10_000, 1),
      allowLoopback: bool(env, 'DNS_IMPORT_ALLOW_LOOPBACK', false),
    },
    epp: live === 'epp' ? eppConfig(env) : null,
    mcpEnvironment: mcpEnvironment(env),
    liveStripe: env.STRIPE_SECRET_KEY
      ? { secretKey: env.STRIPE_SECRET_KEY, ...(env.STRIPE_API_BASE ? { apiBase: env.STRIPE_API_BASE } : {}) }
      : null,
    ...(env.DNS_NSID ? { dnsNsid: env.DNS_NSID } : {}),
    dnsRrl: int(env, 'DNS_RRL_RATE', 0) > 0 ? { rate: int(env, 'DNS_RRL_RATE', 0), slip: int(env, 'DNS_RRL_SLIP', 1) } : null,
    sandboxDns: production ? { host: dnsHost, port: port(env, 'SANDBOX_DNS_PORT', 5354) } : null,
    metrics: { host: env.METRICS_HOST || '127.0.0.1', port: port(env, 'METRICS_PORT', 9464) },
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0),
  };
};

/**
 * `npm run cluster`: API_PROCESSES API processes sharing PORT (node:cluster), WORKERS workers,
 * one DNS process (the hidden primary; DNS_WORKERS inside it as under npm start). WORKER_INTERVAL_MS is
 * how often each worker runs its pass (default 30 s).
 */
export interface ClusterConfig {
  readonly apiProcesses: number;
  readonly workers: number;
  readonly workerIntervalMs: number;
}

export const loadClusterConfig = (env: NodeJS.ProcessEnv = process.env): ClusterConfig => ({
  apiProcesses: int(env, 'API_PROCESSES', Math.max(2, availableParallelism()), 1),
  workers: int(env, 'WORKERS', 1, 0),
  workerIntervalMs: int(env, 'WORKER_INTERVAL_MS', 30_000, 100),
});
