import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { BucketConfig } from '../adapters/http/middleware/rate-limit.js';

/**
 * Configuration from the environment. Reading process.env happens here and only here; the
 * constructors that receive these values validate them (STYLE 4).
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dnsPort: number;
  /** Address the authoritative DNS server listens on (UDP and TCP). */
  readonly dnsHost: string;
  /** Addresses (or CIDRs) allowed to transfer zones (AXFR over TCP). */
  readonly axfrAllow: readonly string[];
  /** Secondaries told of every change (RFC 1996 NOTIFY), as host:port. */
  readonly dnsSecondaries: ReadonlyArray<{ host: string; port: number }>;
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
  readonly liveRegistrar: 'none';
  readonly seedDemo: boolean;
  /** SMTP for e-mailed notices (live environment); without it they wait in the outbox. */
  readonly smtp: { readonly url: string; readonly from: string } | null;
  readonly runWorker: boolean;
  readonly maxBodyBytes: number;
  /** COOKIE_SECURE: true behind a TLS proxy (set it in production), false, or auto (by request host). */
  readonly secureCookies: boolean | 'auto';
  readonly rateLimit: { readonly key: BucketConfig; readonly anonymous: BucketConfig };
  /**
   * The test environment's certificate authority: our in-process sandbox CA (default), or an ACME
   * directory (Let's Encrypt staging, a local Pebble) — SANDBOX_CA=acme with SANDBOX_ACME_DIRECTORY_URL.
   */
  readonly sandboxCa: { readonly kind: 'internal' } | { readonly kind: 'acme'; readonly directoryUrl: string; readonly caFile: string | null };
  /** ACME for live certificates (used once a live adapter set is configured): Let's Encrypt production by default. */
  readonly acme: { readonly directoryUrl: string; readonly email: string | null; readonly caFile: string | null };
  /** Renew issued certificates this many days before expiry (CERT_RENEW_BEFORE_DAYS, default 30). */
  readonly certRenewBeforeDays: number;
  readonly argon2: { readonly memoryCost: number; readonly timeCost: number; readonly parallelism: number };
}

export class ConfigError extends Error {}

const int = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${v}"`);
  return n;
};

const bool = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(`${name} must be true or false, got "${v}"`);
};

/** A secret from the environment (hex), or in development one generated once into var/<file> (0600). */
const secretFrom = (env: NodeJS.ProcessEnv, name: string, varDir: string, fileName: string, exact: boolean): Buffer => {
  const v = env[name];
  if (v) {
    if (!(exact ? /^[0-9a-fA-F]{64}$/ : /^[0-9a-fA-F]{64,}$/).test(v)) {
      throw new ConfigError(`${name} must be ${exact ? 'exactly' : 'at least'} 64 hex digits (32 bytes)`);
    }
    return Buffer.from(v, 'hex');
  }
  const file = join(varDir, fileName);
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
    throw new ConfigError(`${name} must be an https URL, got "${v}"`);
  }
  if (parsed.protocol !== 'https:') throw new ConfigError(`${name} must be an https URL (RFC 8555 §6.1), got "${v}"`);
  return v;
};

const sandboxCa = (env: NodeJS.ProcessEnv): Config['sandboxCa'] => {
  const kind = env.SANDBOX_CA || 'internal';
  if (kind === 'internal') return { kind };
  if (kind === 'acme') return { kind, directoryUrl: url(env, 'SANDBOX_ACME_DIRECTORY_URL', LETS_ENCRYPT_STAGING), caFile: env.SANDBOX_ACME_CA_FILE || null };
  throw new ConfigError(`SANDBOX_CA must be "internal" or "acme", got "${kind}"`);
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const databaseUrl = env.DATABASE_URL || './var/domivka.sqlite';
  const varDir = resolve(env.VAR_DIR || (databaseUrl.startsWith('postgres') ? './var' : dirname(databaseUrl)));
  const live = env.LIVE_REGISTRAR || 'none';
  if (live !== 'none') throw new ConfigError(`LIVE_REGISTRAR "${live}" is not available in this build (only "none")`);
  return {
    port: int(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    dnsPort: int(env, 'DNS_PORT', 5353),
    dnsHost: env.DNS_HOST || '127.0.0.1',
    axfrAllow: (env.AXFR_ALLOW || '127.0.0.1').split(',').map((s) => s.trim()).filter(Boolean),
    dnsSecondaries: (env.DNS_SECONDARIES || '').split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      const m = /^(.+):(\d+)$/.exec(s);
      if (!m) throw new ConfigError(`DNS_SECONDARIES entries are host:port, got "${s}"`);
      return { host: m[1]!, port: Number(m[2]) };
    }),
    runDns: bool(env, 'RUN_DNS', true),
    dnsWorkers: int(env, 'DNS_WORKERS', defaultDnsWorkers(), 1),
    databaseUrl,
    ...(env.DATABASE_SCHEMA ? { databaseSchema: env.DATABASE_SCHEMA } : {}),
    varDir,
    keyPepper: secretFrom(env, 'KEY_PEPPER', varDir, 'key-pepper', false),
    dataKey: secretFrom(env, 'DATA_KEY', varDir, 'data-key', true),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    proxyHops: int(env, 'TRUST_PROXY_HOPS', 1, 1),
    logLevel: env.LOG_LEVEL || 'info',
    liveRegistrar: 'none',
    seedDemo: bool(env, 'SEED_DEMO', true),
    smtp: env.SMTP_URL ? { url: env.SMTP_URL, from: env.SMTP_FROM || 'Domivka <notices@domivka.net>' } : null,
    runWorker: bool(env, 'RUN_WORKER', true),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 256 * 1024, 1024),
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
  };
};
