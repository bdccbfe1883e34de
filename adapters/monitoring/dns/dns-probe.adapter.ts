import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { octetsText } from '../../../core/dns/types/text.js';
import type { DnsMonitorType, DnsSpec } from '../../../core/monitoring/monitor.js';
import type { DnsProbe, ProbeOutcome } from '../../../core/monitoring/ports/probes.port.js';

export interface DnsProbeOptions {
  /** Our own authoritative server (DNS_HOST/DNS_PORT): always asked first. */
  readonly own: { readonly host: string; readonly port: number };
}

type Answer = { server: string; ok: boolean; values: string[]; error: string | null; latency_ms: number };

const NAME_TYPES: ReadonlySet<DnsMonitorType> = new Set(['CNAME', 'NS', 'MX', 'SRV', 'SOA']);

/** One value in comparable presentation form: names lower case without the trailing dot, IPs canonical. */
export const normalizeValue = (type: DnsMonitorType, value: string): string => {
  const v = value.trim().replace(/\s+/g, ' ');
  if (type === 'A' || type === 'AAAA') return ipaddr.isValid(v) ? ipaddr.parse(v).toString() : v.toLowerCase();
  if (type === 'TXT') return v.replace(/^"(.*)"$/, '$1');
  if (type === 'CAA') {
    const m = /^(\d+) (\S+) "?(.*?)"?$/.exec(v);
    return m ? `${m[1]} ${m[2]!.toLowerCase()} ${m[3]}` : v;
  }
  if (NAME_TYPES.has(type))
    return v
      .split(' ')
      .map((t) => t.toLowerCase().replace(/\.$/, ''))
      .join(' ');
  return v;
};

/** What node:dns hands back for each type, as presentation text. */
const present = (type: DnsMonitorType, answer: unknown): string[] => {
  switch (type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'NS':
      return (answer as string[]).map((v) => normalizeValue(type, v));
    case 'TXT':
      // c-ares hands each character string over as Latin-1 (one character per octet): back to the octets,
      // then to TXT text as plans write it (UTF-8, other octets as U+DC80–U+DCFF; core/dns/types/text.ts).
      return (answer as string[][]).map((chunks) => octetsText(Buffer.from(chunks.join(''), 'latin1')));
    case 'MX':
      return (answer as Array<{ priority: number; exchange: string }>).map((r) => normalizeValue(type, `${r.priority} ${r.exchange}`));
    case 'SRV':
      return (answer as Array<{ priority: number; weight: number; port: number; name: string }>).map((r) =>
        normalizeValue(type, `${r.priority} ${r.weight} ${r.port} ${r.name}`),
      );
    case 'CAA':
      return (answer as Array<Record<string, unknown> & { critical: number }>).map((r) => {
        const tag = Object.keys(r).find((k) => k !== 'critical')!;
        return `${r.critical} ${tag} ${String(r[tag])}`;
      });
    case 'SOA': {
      const s = answer as {
        nsname: string;
        hostmaster: string;
        serial: number;
        refresh: number;
        retry: number;
        expire: number;
        minttl: number;
      };
      return [normalizeValue(type, `${s.nsname} ${s.hostmaster} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minttl}`)];
    }
  }
};

const ERRORS: Record<string, string> = {
  ENOTFOUND: 'NXDOMAIN (the name does not exist)',
  ENODATA: 'no records of this type',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ETIMEOUT: 'no answer (timeout)',
  ECONNREFUSED: 'connection refused',
};

/**
 * The dns probe, on node:dns's Resolver (c-ares) pointed at one server at a time with setServers:
 * c-ares does UDP with the retry to TCP when an answer comes back truncated (TC), timeouts and parsing,
 * which dns-packet would leave to us to hand-write. Every server must answer NOERROR with at least one
 * record — and, when `expected` is set, exactly those values (order, case of names and trailing dots
 * aside).
 */
export class DnsProbeAdapter implements DnsProbe {
  constructor(private readonly options: DnsProbeOptions) {}

  private ownServer(): string {
    const host = this.options.own.host === '0.0.0.0' ? '127.0.0.1' : this.options.own.host === '::' ? '::1' : this.options.own.host;
    return host.includes(':') ? `[${host}]:${this.options.own.port}` : `${host}:${this.options.own.port}`;
  }

  async check(spec: DnsSpec, timeoutMs: number): Promise<ProbeOutcome> {
    const servers = [this.ownServer(), ...spec.nameservers.filter((s) => s !== this.ownServer())];
    const expected = spec.expected ? [...new Set(spec.expected.map((v) => normalizeValue(spec.type, v)))].sort() : null;
    const answers = await Promise.all(servers.map((s) => this.ask(s, spec, Math.max(100, Math.floor(timeoutMs / 2)))));
    const problems: string[] = [];
    for (const a of answers) {
      if (!a.ok) problems.push(`${a.server}: ${a.error}`);
      else if (expected && JSON.stringify([...new Set(a.values)].sort()) !== JSON.stringify(expected)) {
        a.ok = false;
        problems.push(`${a.server}: answered ${a.values.join(', ') || '(nothing)'}, expected ${expected.join(', ')}`);
      }
    }
    const latencyMs = Math.max(...answers.map((a) => a.latency_ms));
    return {
      ok: problems.length === 0,
      latencyMs,
      reason: problems.length === 0 ? null : `${spec.name} ${spec.type}: ${problems.join('; ')}`,
      detail: { name: spec.name, type: spec.type, servers: answers },
    };
  }

  private async ask(server: string, spec: DnsSpec, timeoutMs: number): Promise<Answer> {
    const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
    resolver.setServers([server]);
    const started = performance.now();
    try {
      const answer = await resolver.resolve(spec.name, spec.type as 'A');
      const values = present(spec.type, answer);
      return {
        server,
        ok: values.length > 0,
        values,
        error: values.length > 0 ? null : 'no records of this type',
        latency_ms: Math.round(performance.now() - started),
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
      return { server, ok: false, values: [], error: ERRORS[code] ?? code, latency_ms: Math.round(performance.now() - started) };
    } finally {
      resolver.cancel();
    }
  }
}
