import { readFileSync } from 'node:fs';
import { NS } from './xml.js';
import { EppRegistrar } from './epp.adapter.js';
import type { EppClientOptions, EppLog } from './client.js';

export { EppRegistrar, clTRIDFor, type EppRegistrarOptions, type Quote } from './epp.adapter.js';
export { EppPool, EppSession, EppTransportError, FrameReader, frame, type EppClientOptions, type EppLog, type EppTls } from './client.js';
export { NS as EPP_NS, buildEpp, buildCommand, readResponse, readGreeting, redact, parseEpp } from './xml.js';

/** What configuration gives (src/config.ts reads EPP_* from the environment; this validates and fills defaults). */
export interface EppSettings {
  readonly host: string;
  readonly port: number;
  readonly clientId: string;
  readonly password: string;
  /** PEM text or a path to a PEM file. */
  readonly cert: string;
  readonly key: string;
  readonly ca: string;
  readonly poolSize?: number;
  readonly defaultNameservers?: readonly string[];
  readonly keepAliveMs?: number;
  readonly commandTimeoutMs?: number;
  readonly greetingTimeoutMs?: number;
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly connectAttempts?: number;
  readonly retries?: number;
  /** How long a DS read (domain:info) is answered again without asking the registry; 0: never. Default 30 s. */
  readonly dsReadCacheMs?: number;
  /** The time, in ms (tests move it); default the wall clock. */
  readonly now?: () => number;
  readonly servername?: string;
  readonly log?: EppLog;
}

const pem = (what: string, v: string): string => {
  if (v.includes('-----BEGIN')) return v;
  try {
    return readFileSync(v, 'utf8');
  } catch (err) {
    throw new Error(`EPP ${what}: cannot read ${v}: ${(err as Error).message}`);
  }
};

/** The config factory (STYLE 4): checks settings, reads the PEM files, builds the registrar. */
export const createEppRegistrar = (s: EppSettings): EppRegistrar => {
  if (!s.host) throw new Error('EPP_HOST is required');
  if (!Number.isInteger(s.port) || s.port < 1 || s.port > 65535) throw new Error(`EPP_PORT must be a TCP port, got ${s.port}`);
  if (!s.clientId || s.clientId.length < 3 || s.clientId.length > 16)
    throw new Error('EPP_CLIENT_ID must be 3–16 characters (RFC 5730 clIDType)');
  if (!s.password || s.password.length < 6 || s.password.length > 64)
    throw new Error('EPP_PASSWORD must be 6–64 characters (RFC 5730 pwType)');
  const client: EppClientOptions = {
    host: s.host,
    port: s.port,
    clientId: s.clientId,
    password: s.password,
    tls: {
      cert: pem('certificate', s.cert),
      key: pem('key', s.key),
      ca: pem('CA', s.ca),
      ...(s.servername ? { servername: s.servername } : {}),
    },
    poolSize: s.poolSize ?? 2,
    greetingTimeoutMs: s.greetingTimeoutMs ?? 10_000,
    commandTimeoutMs: s.commandTimeoutMs ?? 30_000,
    keepAliveMs: s.keepAliveMs ?? 5 * 60_000,
    backoffMs: s.backoffMs ?? 250,
    maxBackoffMs: s.maxBackoffMs ?? 30_000,
    connectAttempts: s.connectAttempts ?? 3,
    wantObjURIs: [NS.domain, NS.host, NS.contact],
    wantExtURIs: [NS.rgp, NS.fee, NS.secDNS],
    ...(s.log ? { log: s.log } : {}),
  };
  return new EppRegistrar(client, {
    defaultNameservers: s.defaultNameservers ?? ['ns1.domivka.net', 'ns2.domivka.net'],
    retries: s.retries ?? 2,
    dsReadCacheMs: s.dsReadCacheMs ?? 30_000,
    now: s.now ?? Date.now,
  });
};
