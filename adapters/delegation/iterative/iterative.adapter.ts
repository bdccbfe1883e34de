import dgram from 'node:dgram';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import {
  DelegationLookupError,
  type DelegationLookup,
  type DelegationQuery,
  type DelegationResolver,
} from '../../../core/domains/ports/delegation-resolver.port.js';

export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

export interface IterativeResolverConfig {
  /** Root hints: the servers asked first (DELEGATION_ROOT_HINTS, `host[@port]` comma-separated). */
  readonly roots: readonly ServerAddress[];
  /** The port of every server found on the way (53 in the real DNS; one port for a local test chain). */
  readonly port: number;
  /** Per question and server. */
  readonly timeoutMs: number;
}

/** The IANA root servers a.–e. (IPv4): enough hints to start; the root answers for the rest. */
export const IANA_ROOTS = ['198.41.0.4', '170.247.170.2', '192.33.4.12', '199.7.91.13', '192.203.230.10'];

/** `127.0.0.2@5300,127.0.0.3` → addresses (a missing port: `defaultPort`). */
export const parseRootHints = (text: string, defaultPort: number): ServerAddress[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const [host, port] = s.split('@');
      return { host: host!, port: port ? Number(port) : defaultPort };
    });

const lower = (n: string): string => n.toLowerCase().replace(/\.$/, '');
const isBelowOrAt = (name: string, zone: string): boolean => zone === '' || name === zone || name.endsWith(`.${zone}`);

type Reply = Packet & { rcode?: string };

/**
 * The world's view of a delegation, found as a recursive resolver finds it (RFC 1034 §5.3.3): from the root
 * hints, following referrals (non-recursive questions, RD=0) down to the parent of the domain, whose
 * referral carries the domain's NS set (and glue). Then the TXT proof is asked of the delegated
 * nameservers that are not ours, directly. Truncated UDP answers are asked again over TCP (RFC 7766).
 */
export class IterativeDelegationResolver implements DelegationResolver {
  constructor(private readonly config: IterativeResolverConfig) {}

  async lookup(q: DelegationQuery): Promise<DelegationLookup> {
    const domain = lower(q.domain);
    const found = await this.findDelegation(domain, 0);
    if (found === null) return { kind: 'not_delegated' };
    const ours = new Set(q.ours.map(lower));
    const outside = found.nameservers.filter((ns) => !ours.has(ns));
    const txt: string[] = [];
    const asked: string[] = [];
    for (const ns of outside) {
      const addresses = found.glue.get(ns) ?? (await this.addressesOf(ns, 0).catch(() => [] as string[]));
      for (const host of addresses) {
        const reply = await this.ask({ host, port: this.config.port }, q.challenge, 'TXT').catch(() => null);
        if (!reply || (reply.rcode !== 'NOERROR' && reply.rcode !== 'NXDOMAIN')) continue;
        asked.push(ns);
        for (const a of reply.answers ?? []) if (a.type === 'TXT' && lower(a.name) === lower(q.challenge)) txt.push(textOf(a));
        break;
      }
    }
    return { kind: 'delegated', nameservers: found.nameservers, txt, askedNameservers: asked };
  }

  /**
   * Walks down from the root asking for `domain NS`: null when an authority says the name does not exist
   * or holds it without a delegation; the NS set of the referral whose owner is `domain`.
   */
  private async findDelegation(domain: string, depth: number): Promise<{ nameservers: string[]; glue: Map<string, string[]> } | null> {
    let servers: ServerAddress[] = [...this.config.roots];
    let zone = '';
    for (let step = 0; step < 16; step++) {
      const reply = await this.askAny(servers, domain, 'NS');
      if (reply.rcode === 'NXDOMAIN') return null;
      const answerNs = (reply.answers ?? []).filter((a) => a.type === 'NS' && lower(a.name) === domain);
      if (answerNs.length > 0) return { nameservers: nsNames(answerNs), glue: glueOf(reply) };
      const referral = (reply.authorities ?? []).filter((a) => a.type === 'NS');
      const cut = referral.length > 0 ? lower(referral[0]!.name) : null;
      if (cut === null || !isBelowOrAt(domain, cut) || (zone !== '' && !isBelowOrAt(cut, zone)) || cut === zone) {
        // An authoritative answer with no delegation (NODATA, an SOA in authority): the name is not delegated.
        if (reply.flags !== undefined && (reply.flags & packet.AUTHORITATIVE_ANSWER) !== 0) return null;
        throw new DelegationLookupError(`no referral towards ${domain} from the servers of ${zone || 'the root'}`);
      }
      const names = nsNames(referral.filter((a) => lower(a.name) === cut));
      const glue = glueOf(reply);
      if (cut === domain) return { nameservers: names, glue };
      const next: ServerAddress[] = [];
      for (const ns of names) {
        const addresses = glue.get(ns) ?? (isBelowOrAt(ns, cut) ? [] : await this.addressesOf(ns, depth + 1).catch(() => [] as string[]));
        for (const host of addresses) next.push({ host, port: this.config.port });
        if (next.length >= 4) break;
      }
      if (next.length === 0) throw new DelegationLookupError(`no address for the nameservers of ${cut}`);
      servers = next;
      zone = cut;
    }
    throw new DelegationLookupError(`too many referrals towards ${domain}`);
  }

  /** A nameserver's IPv4 addresses, resolved iteratively from the root (bounded depth: glueless chains). */
  private async addressesOf(host: string, depth: number): Promise<string[]> {
    if (depth > 3) throw new DelegationLookupError(`nameserver address chain too deep at ${host}`);
    let servers: ServerAddress[] = [...this.config.roots];
    for (let step = 0; step < 16; step++) {
      const reply = await this.askAny(servers, host, 'A');
      const a = (reply.answers ?? []).filter((x) => x.type === 'A' && lower(x.name) === host).map((x) => dataOf(x));
      if (a.length > 0) return a;
      const cname = (reply.answers ?? []).find((x) => x.type === 'CNAME');
      if (cname) return this.addressesOf(lower(dataOf(cname)), depth + 1);
      const referral = (reply.authorities ?? []).filter((x) => x.type === 'NS');
      if (referral.length === 0 || reply.rcode !== 'NOERROR') return [];
      const glue = glueOf(reply);
      const next: ServerAddress[] = [];
      for (const ns of nsNames(referral)) {
        const addrs = glue.get(ns) ?? (await this.addressesOf(ns, depth + 1).catch(() => [] as string[]));
        for (const h of addrs) next.push({ host: h, port: this.config.port });
        if (next.length >= 4) break;
      }
      if (next.length === 0) return [];
      servers = next;
    }
    return [];
  }

  /** The first usable answer of these servers (a lame or failing server: the next one). */
  private async askAny(servers: readonly ServerAddress[], name: string, type: 'NS' | 'A' | 'TXT'): Promise<Reply> {
    let last = 'no servers';
    for (const s of servers) {
      try {
        const reply = await this.ask(s, name, type);
        if (reply.rcode === 'NOERROR' || reply.rcode === 'NXDOMAIN') return reply;
        last = `${s.host}: ${reply.rcode ?? 'no rcode'}`;
      } catch (err) {
        last = `${s.host}: ${(err as Error).message}`;
      }
    }
    throw new DelegationLookupError(`${name} ${type}: ${last}`);
  }

  private async ask(server: ServerAddress, name: string, type: 'NS' | 'A' | 'TXT'): Promise<Reply> {
    const id = randomInt(0, 65536);
    const query = packet.encode({ type: 'query', id, flags: 0, questions: [{ type, name, class: 'IN' }] });
    const reply = await this.udp(server, query, id);
    if (reply.flags !== undefined && (reply.flags & packet.TRUNCATED_RESPONSE) !== 0) return this.tcp(server, query);
    return reply;
  }

  private udp(server: ServerAddress, query: Buffer, id: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
      const timer = setTimeout(() => done(new DelegationLookupError(`timeout asking ${server.host}`)), this.config.timeoutMs);
      const done = (err: Error | null, reply?: Reply) => {
        clearTimeout(timer);
        socket.close();
        if (err) reject(err);
        else resolve(reply!);
      };
      socket.on('error', (err) => done(err));
      socket.on('message', (msg) => {
        try {
          const reply = packet.decode(msg) as Reply;
          if (reply.id !== id) return; // not ours (a spoof or a late answer): keep waiting
          done(null, reply);
        } catch (err) {
          done(err as Error);
        }
      });
      socket.send(query, server.port, server.host);
    });
  }

  private tcp(server: ServerAddress, query: Buffer): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: server.host, port: server.port });
      const chunks: Buffer[] = [];
      const timer = setTimeout(
        () => socket.destroy(new DelegationLookupError(`timeout asking ${server.host} over TCP`)),
        this.config.timeoutMs,
      );
      socket.on('connect', () => socket.write(packet.streamEncode(packet.decode(query))));
      socket.on('data', (d: Buffer) => {
        chunks.push(d);
        const all = Buffer.concat(chunks);
        if (all.length >= 2 && all.length >= 2 + all.readUInt16BE(0)) {
          clearTimeout(timer);
          socket.end();
          try {
            resolve(packet.streamDecode(all) as Reply);
          } catch (err) {
            reject(err as Error);
          }
        }
      });
      socket.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }
}

const dataOf = (a: Answer): string => String((a as { data?: unknown }).data);

const nsNames = (records: readonly Answer[]): string[] => [...new Set(records.map((a) => lower(dataOf(a))))].sort();

const glueOf = (reply: Reply): Map<string, string[]> => {
  const glue = new Map<string, string[]>();
  for (const a of reply.additionals ?? []) {
    if (a.type !== 'A') continue;
    const n = lower(a.name);
    glue.set(n, [...(glue.get(n) ?? []), dataOf(a)]);
  }
  return glue;
};

/** A TXT record's strings joined (RFC 7208 §3.3 style), as text. */
const textOf = (a: Answer): string => {
  const data = (a as { data: unknown }).data;
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : String(p))).join('');
};
