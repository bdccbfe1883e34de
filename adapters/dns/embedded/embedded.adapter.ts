import dgram from 'node:dgram';
import net from 'node:net';
import type { Nameserver, NameserverCapability, NotifyOutcome, ZoneTransfers } from '../../../core/dns/ports/nameserver.port.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { AnswerCache, type CacheOwner } from './answer-cache.js';
import { catalogMember, catalogMembers, catalogSoa, catalogZone, inCatalog, isBuiltCatalog } from '../catalog.js';
import { checkZone, compileZone, encodeRecordSet, type CompiledZone } from './compiled-zone.js';
import { allowed, validateConfig, type EmbeddedNameserverConfig, type NameserverLogger, type ValidConfig } from './config.js';
import {
  bareReply,
  buildReply,
  EDE,
  parseQuery,
  soaOnly,
  transferMessages,
  transferMessagesOf,
  udpLimit,
  type OptExtras,
  type Query,
} from './message.js';
import { Journal, type WireRecord } from './journal.js';
import { ZoneSignatures, type HeldVersion } from './zone-signatures.js';
import { Notifier } from './notifier.js';
import type { DnsObserver } from './observer.js';
import { normaliseName } from './rdata.js';
import { resolve } from './resolve.js';
import { ResponseRateLimiter, truncateInPlace, Verdict, type RrlStats } from './rrl.js';
import { attach, batchedUdpUnavailable, bindReusePort, type BatchedUdp } from './udp-batch.js';
import { CLASS_ANY, CLASS_IN, MAX_TCP_MESSAGE, nameWire, RCODE, serialBefore, T } from './wire.js';

/** A TCP connection silent this long is closed (RFC 7766 §6.2.3: servers pick a few seconds). */
const TCP_IDLE_MS = 10_000;
/** Concurrent TCP connections; more are refused by the kernel backlog rather than eat memory. */
const MAX_TCP_CONNECTIONS = 512;
/** Unsent reply octets on one connection above which we stop reading its queries until it drains. */
const TCP_HIGH_WATER = 256 * 1024;
/**
 * Kernel buffers of the UDP socket (SO_RCVBUF/SO_SNDBUF; Linux caps them at net.core.rmem_max/wmem_max
 * and doubles them): room for a burst of a few thousand queries while the event loop is busy elsewhere.
 */
const UDP_BUFFER_BYTES = 4 * 1024 * 1024;
/** Replies held for one flush at most; libuv reads up to 32 datagrams from a socket per loop turn. */
const MAX_REPLY_BATCH = 64;

/**
 * dgram resolves the address of every send, even an IP literal (dns.lookup, then a nextTick). Our
 * sends go to the peer's address as the kernel reported it, always a literal, so hand it straight back.
 */
const literalLookup = (address: string, family: unknown, callback: (err: Error | null, address: string, family: number) => void): void => {
  callback(null, address, typeof family === 'number' ? family : net.isIPv6(address) ? 6 : 4);
};

export type Transport = 'udp' | 'tcp';

/** Unsigned zones of at most this many records are held as their record sets' JSON while no query asks for them. */
const DORMANT_MAX_RECORDS = 100;

/**
 * A small unsigned zone's record sets as a dormant zone holds them: one JSON array of [owner, type, TTL,
 * values] with each owner written relative to the zone — 0 for the apex, "www" for www.<apex>, [name] for
 * a name outside it (kept as given: compiling skips it again). Most zones of an account hold the same sets
 * apart from their names (the service's SOA and NS), so their texts are equal and held once (`dormantText`).
 */
type DormantOwner = 0 | string | [string];

const ownerOf = (name: string, domain: string): DormantOwner =>
  name === domain ? 0 : name.endsWith(`.${domain}`) && name.length > domain.length + 1 ? name.slice(0, -domain.length - 1) : [name];

const nameOf = (owner: DormantOwner, domain: string): string =>
  owner === 0 ? domain : typeof owner === 'string' ? `${owner}.${domain}` : owner[0];

/** The dormant texts held, by text: equal texts of different zones are one string. Cleared when full (what was shared stays shared). */
const dormantTexts = new Map<string, string>();
const DORMANT_TEXTS_LIMIT = 4096;

const dormantText = (zone: Zone): string =>
  heldOnce(JSON.stringify(zone.recordSets.map((rs) => [ownerOf(rs.name, zone.domain), rs.type, rs.ttl, rs.values])));

/** The text held for `text`: one string for equal texts (dormantTexts). */
const heldOnce = (text: string): string => {
  const held = dormantTexts.get(text);
  if (held !== undefined) return held;
  if (dormantTexts.size >= DORMANT_TEXTS_LIMIT) dormantTexts.clear();
  dormantTexts.set(text, text);
  return text;
};

const dormantSets = (text: string, domain: string): Zone['recordSets'] =>
  (JSON.parse(text) as Array<[DormantOwner, RecordSet['type'], number, string[]]>).map(([owner, type, ttl, values]) => ({
    name: nameOf(owner, domain),
    type,
    ttl,
    values,
  }));

/**
 * A small unsigned zone as this server holds it: its record sets as a short text (above: a SOA+NS zone is
 * ~130 octets so, shared with every zone of the same sets, against ~3 KB compiled), and its compiled form
 * while it is among the `awakeZones` most recently asked (config.ts). Compiling the same record sets again
 * gives the same compiled zone, so every answer is the same whichever form it was held in. An account of
 * 10 000 small zones costs a DNS worker a few MB.
 */
class DormantZone {
  /** The zone's domain as published, when it is not written as its apex is (case, a final dot). */
  private readonly domain: string | null;

  constructor(
    readonly apex: string,
    readonly serial: number,
    domain: string,
    /** Its record sets (dormantText). */
    readonly sets: string,
    readonly records: number,
    public compiled: CompiledZone | null,
  ) {
    this.domain = domain === apex ? null : domain;
  }

  wake(): CompiledZone {
    const domain = this.domain ?? this.apex;
    // It compiled when published: a set skipped then (and reported) is skipped again, silently.
    this.compiled ??= compileZone({ domain, serial: this.serial, recordSets: dormantSets(this.sets, domain) }, () => undefined);
    return this.compiled;
  }
}

/**
 * The catalog zone (config `catalog`): held as its member list until a question asks for it (secondaries
 * alone do), then compiled (publishCatalog).
 */
class PendingZone {
  /** A build that failed: not tried again on every question, only with the next version. */
  failed = false;
  private sortedMembers: readonly string[] | null = null;

  constructor(
    readonly apex: string,
    readonly serial: number,
    private readonly members: readonly string[],
  ) {}

  /** The members as the catalog lists them (sorted once, when first needed). */
  sorted(): readonly string[] {
    return (this.sortedMembers ??= catalogMembers(this.members));
  }

  build(): Zone {
    return catalogZone(this.apex, this.serial, this.sorted(), true);
  }
}

/**
 * Who answers the messages this server does not answer alone: UPDATE and TSIG-signed messages, which
 * need the store (keys, zones). Asked only on a cache miss (a signed message is never cached); its
 * answers come later, so UDP replies are sent when they are ready.
 */
export interface SignedMessageHandler {
  wants(packet: Buffer): boolean;
  handle(
    packet: Buffer,
    transport: Transport,
    peer: string,
    server: {
      answerUnsigned(packet: Buffer, transport: Transport, peer: string): Buffer[];
      transferAuthorised(packet: Buffer, transport: Transport, peer: string): Buffer[];
    },
  ): Promise<Buffer[]>;
  /** A synchronous TC answer, for a UDP caller that cannot take a reply later (answer() without the peer's port). */
  truncated(packet: Buffer): Buffer;
}

/**
 * Our authoritative DNS server, on dns-packet, UDP and TCP on one port. Zones are compiled when they
 * are published (every RRset encoded once, see compiled-zone.ts), so a query is a few map lookups and
 * one buffer copy; a UDP question asked before is one table probe and one copy (answer-cache.ts).
 * Secondaries copy zones by AXFR and hear of changes by NOTIFY.
 */
export class EmbeddedNameserver implements Nameserver, ZoneTransfers {
  readonly capabilities: readonly NameserverCapability[] = ['zone_transfers'];
  private readonly config: ValidConfig;
  private readonly log: NameserverLogger;
  /** The zones served, by apex: compiled, or (small unsigned ones) dormant until asked. */
  private readonly zones = new Map<string, CompiledZone | DormantZone | PendingZone>();
  /** The dormant zones compiled now, least recently asked first (at most `awakeZones`). */
  private readonly awake = new Map<string, DormantZone>();
  /** Per zone, the diffs between the versions published here, for incremental IXFR (journal.ts). */
  private readonly journals = new Map<string, Journal>();
  /** The signatures of signed zones: made here (the signer) or read from the store (zone-signatures.ts). */
  readonly signatures: ZoneSignatures;
  private readonly notifier: Notifier;
  private readonly connections = new Set<net.Socket>();
  /** Finished UDP replies by question (answer-cache.ts); a publish or withdraw outdates only the replies it changes. */
  private readonly cache: AnswerCache | null;
  /** The answer cache's owner cell of each zone's replies (made on the first reply stored), and of "no zone" (REFUSED). */
  private readonly owners = new Map<string, CacheOwner>();
  private noZone: CacheOwner = { stale: false };
  /** Whether a reply of no zone was cached under `noZone` since it was last replaced. */
  private noZoneCached = false;
  /** UDP replies waiting for the end of this event-loop turn (onDatagram), with where they go. */
  private readonly outgoing: Buffer[] = [];
  private readonly outgoingPorts: number[] = [];
  private readonly outgoingAddresses: string[] = [];
  private udp: dgram.Socket | null = null;
  /** The native batched reader of `udp` (udp-batch.ts), when it serves; null: dgram's 'message' events do. */
  private batched: BatchedUdp | null = null;
  private tcp: net.Server | null = null;
  private bound: { host: string; port: number } | null = null;
  /** What every OPT record we send may carry from our configuration (NSID, RFC 5001). */
  private readonly extras: OptExtras;
  /** UDP response rate limiting (rrl.ts), null when off. */
  private readonly rrl: ResponseRateLimiter | null;
  /**
   * Packets whose handling threw (a bug of ours: the packet is dropped and logged). Readable by tests and
   * metrics through stats(), never from the network.
   */
  private internalErrors = 0;
  /** Counts what is served (metrics), when one is attached. */
  private observer: DnsObserver | null = null;
  /** UPDATE and signed messages (DNS UPDATE with TSIG), when attached. */
  private signed: SignedMessageHandler | null = null;

  constructor(config: EmbeddedNameserverConfig) {
    this.config = validateConfig(config);
    this.log = this.config.logger;
    this.notifier = new Notifier(this.config.secondaries, this.log, this.config.notify);
    this.cache = this.config.answerCache ? new AnswerCache() : null;
    this.extras = { nsid: this.config.nsid };
    this.rrl = this.config.rrl ? new ResponseRateLimiter(this.config.rrl) : null;
    this.signatures = new ZoneSignatures(this.config.signatures, this.config.openKey, this.config.bulkSigner);
  }

  /**
   * The server's counters, for tests and metrics: packets whose handling failed inside (internalErrors;
   * any above 0 is a bug), and response rate limiting (null when off).
   */
  stats(): { internalErrors: number; rrl: RrlStats | null } {
    return { internalErrors: this.internalErrors, rrl: this.rrl?.stats() ?? null };
  }

  /** A failure of ours while handling a packet: counted, logged, and the packet dropped. */
  private failed(err: unknown, context: Record<string, unknown>, msg: string): void {
    this.internalErrors++;
    this.log.error({ err, ...context }, msg);
  }

  /**
   * Binds UDP and TCP on the configured host and port (with port 0, one free port for both). With
   * `reusePort` (and a fixed port) the UDP socket is this process's own, bound with SO_REUSEPORT.
   */
  async start(): Promise<void> {
    if (this.bound) throw new Error('nameserver: already started');
    const { host } = this.config;
    for (let attempt = 1; ; attempt++) {
      let udp: dgram.Socket | null = null;
      let batched: BatchedUdp | null = null;
      if (this.config.reusePort && this.config.udpBatch && this.config.port !== 0) {
        batched = bindReusePort(host, this.config.port, UDP_BUFFER_BYTES, this.answerInto);
        if (!batched)
          this.log.warn({ reason: batchedUdpUnavailable() }, 'DNS UDP: SO_REUSEPORT needs the udp_batch addon; sharing one socket instead');
      }
      if (!batched) udp = await this.bindDgram(host);
      const port = udp ? udp.address().port : this.config.port;
      const tcp = net.createServer((conn) => this.onConnection(conn));
      tcp.maxConnections = MAX_TCP_CONNECTIONS;
      try {
        await new Promise<void>((ok, fail) => {
          tcp.once('error', fail);
          tcp.listen({ port, host }, () => {
            tcp.off('error', fail);
            ok();
          });
        });
      } catch (err) {
        udp?.close();
        batched?.close();
        // Port 0: the UDP port we got may be taken for TCP; try another.
        if (this.config.port === 0 && attempt < 5 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') continue;
        throw err;
      }
      tcp.on('error', (err) => this.log.error({ err }, 'DNS TCP server error'));
      if (udp && this.config.udpBatch) {
        batched = attach(udp, this.answerInto);
        if (!batched) this.log.warn({ reason: batchedUdpUnavailable() }, 'DNS UDP served one datagram at a time (dgram)');
      }
      this.udp = udp;
      this.batched = batched;
      this.tcp = tcp;
      this.bound = { host, port };
      this.log.info({ host, port, zones: this.zones.size, udp: this.udpMode() }, 'DNS server listening (UDP and TCP)');
      return;
    }
  }

  /** A dgram UDP socket bound to the configured port (0: a free one), answering per 'message' event until batched. */
  private async bindDgram(host: string): Promise<dgram.Socket> {
    const udp = dgram.createSocket({
      type: net.isIPv6(host) ? 'udp6' : 'udp4',
      lookup: literalLookup as unknown as dgram.SocketOptions['lookup'],
      recvBufferSize: UDP_BUFFER_BYTES,
      sendBufferSize: UDP_BUFFER_BYTES,
    });
    udp.on('message', (msg: Buffer, rinfo: dgram.RemoteInfo) => this.onDatagram(msg, rinfo));
    await new Promise<void>((ok, fail) => {
      const failed = (err: Error): void => {
        udp.close();
        fail(err);
      };
      udp.once('error', failed);
      udp.bind({ port: this.config.port, address: host }, () => {
        udp.off('error', failed);
        udp.on('error', (err) => this.log.error({ err }, 'DNS UDP socket error'));
        ok();
      });
    });
    return udp;
  }

  /**
   * Closes both sockets and every TCP connection, and cancels pending NOTIFYs. With `graceMs` (shutdown),
   * each TCP connection first gets that long to take what was written to it (a zone transfer in flight)
   * before it is closed.
   */
  async stop(graceMs = 0): Promise<void> {
    this.notifier.close();
    const udp = this.udp;
    const tcp = this.tcp;
    this.udp = null;
    this.tcp = null;
    this.bound = null;
    this.batched?.close();
    this.batched = null;
    if (graceMs > 0 && this.connections.size > 0) {
      tcp?.close();
      const open = [...this.connections].map(
        (c) => new Promise<void>((ok) => (c.destroyed ? ok() : (c.once('close', () => ok()), c.end()))),
      );
      await Promise.race([Promise.all(open), new Promise((ok) => setTimeout(ok, graceMs).unref())]);
    }
    for (const c of this.connections) c.destroy();
    this.connections.clear();
    await Promise.all([
      udp ? new Promise<void>((ok) => udp.close(() => ok())) : undefined,
      tcp?.listening ? new Promise<void>((ok) => tcp.close(() => ok())) : undefined,
    ]);
  }

  /** Attaches the answerer of UPDATE and TSIG-signed messages; without one, they get the ordinary answers (UPDATE: NOTIMP). */
  acceptSigned(handler: SignedMessageHandler): void {
    this.signed = handler;
  }

  /** The ordinary answer to a query (a signed one, once its TSIG was checked and removed). */
  readonly answerUnsigned = (packet: Buffer, transport: Transport, peer: string): Buffer[] =>
    this.answerSlow(packet, transport, peer, false);

  /** AXFR/IXFR for a peer whose signed request was authorised by its key (not by axfrAllow). */
  readonly transferAuthorised = (packet: Buffer, transport: Transport, peer: string): Buffer[] =>
    this.answerSlow(packet, transport, peer, false, true);

  /** Hands a signed message to its handler; its replies go out by `send` when ready. Never throws. */
  private dispatchSigned(packet: Buffer, transport: Transport, peer: string, send: (reply: Buffer) => void): void {
    const handler = this.signed!;
    const copy = Buffer.from(packet); // the batched reader reuses its buffers
    handler.handle(copy, transport, peer, this).then(
      (replies) => {
        for (const r of replies) {
          this.observer?.answered(r, 0, transport, false);
          send(r);
        }
      },
      (err: unknown) => this.failed(err, { transport, peer }, 'signed DNS message failed; dropped'),
    );
  }

  /** Attaches an observer (metrics) told of every reply, transfer and NOTIFY. */
  observe(observer: DnsObserver): void {
    this.observer = observer;
  }

  /** What the IXFR journal of a zone holds (null: none yet): its diffs, from and to which serial, and their records. */
  journalSpan(domain: string): ReturnType<Journal['span']> | null {
    return this.journals.get(normaliseName(domain))?.span() ?? null;
  }

  /** The zones held as how to build them until asked (the catalog: PendingZone). */
  pendingZones(): number {
    let n = 0;
    for (const z of this.zones.values()) if (z instanceof PendingZone) n++;
    return n;
  }

  /** How the zones are held: compiled (signed or larger ones), dormant (small unsigned ones), and of those how many are compiled now. */
  zoneForms(): { compiled: number; dormant: number; awake: number } {
    let dormant = 0;
    for (const z of this.zones.values()) if (z instanceof DormantZone) dormant++;
    return { compiled: this.zones.size - dormant, dormant, awake: this.awake.size };
  }

  /** The UDP answer cache's figures (null when it is off): replies held, their octets, queries answered from it. */
  answerCacheStats(): { replies: number; bytes: number; hits: number } | null {
    return this.cache?.stats() ?? null;
  }

  /** How UDP is read: 'reuseport' (this process's own SO_REUSEPORT socket, batched), 'batched' (the native addon on dgram's socket, udp-batch.ts) or 'dgram'; null before start. */
  udpMode(): 'reuseport' | 'batched' | 'dgram' | null {
    if (!this.bound) return null;
    return this.batched ? (this.udp ? 'batched' : 'reuseport') : 'dgram';
  }

  /** The batched reader's figures (null when dgram reads): batches, datagrams received, replies sent and dropped. */
  udpBatchStats(): ReturnType<BatchedUdp['stats']> | null {
    return this.batched?.stats() ?? null;
  }

  /** Where it listens, once started. */
  address(): { host: string; port: number } {
    if (!this.bound) throw new Error('nameserver: not started');
    return { ...this.bound };
  }

  /**
   * Compiles and serves the zone; the next query sees it. A zone whose SOA serial is older (RFC 1982)
   * than the one served is ignored: publishes racing after two commits must not move the zone back,
   * nor behind what the secondaries already hold. Secondaries are notified in the background.
   */
  async publish(zone: Zone): Promise<void> {
    return this.publishZone(zone);
  }

  /**
   * The catalog zone (config `catalog`) at `serial`, listing `members`: served from now on, but built and
   * compiled only when a question asks for it — secondaries alone do, and a catalog of 10,000 members takes
   * ~100 ms to compile in every DNS worker and ~2 MB of heap kept. Its diff from the version before (the
   * members that came and went) is journaled now, from the member lists, so any worker answers IXFR from
   * any version it was given, whichever versions it compiled. A compiled one is let go with the next.
   */
  publishCatalog(serial: number, members: readonly string[]): void {
    const apex = this.config.catalog;
    if (apex === null) throw new Error('nameserver: no catalog zone is configured');
    const held = this.zones.get(apex);
    if (held && serialBefore(serial, held.serial)) return;
    const next = new PendingZone(apex, serial, members);
    if (held && this.catalogHeld && this.catalogHeld.serial === held.serial) this.journalCatalog(this.catalogHeld, next);
    else this.journals.delete(apex);
    if (held) this.outdate(apex);
    else this.outdateAbove(apex);
    this.awake.delete(apex);
    this.signatures.forget(apex);
    this.zones.set(apex, next);
    this.catalogHeld = next;
    this.published(apex, serial, members.length + 3);
  }

  /** The catalog version published last (its members), which the next one's diff is taken from. */
  private catalogHeld: PendingZone | null = null;

  /** Journals the catalog's change from `from` to `to`: the members that went and came, found by walking both sorted lists. */
  private journalCatalog(from: PendingZone, to: PendingZone): void {
    if (this.config.ixfrJournal <= 0 || from.serial === to.serial) return;
    const a = from.sorted();
    const b = to.sorted();
    const apex = to.apex;
    const record = (m: string): WireRecord => {
      const rs = catalogMember(apex, m);
      return [nameWire(rs.name), encodeRecordSet(rs, apex).set.tails[0]!];
    };
    const deleted: WireRecord[] = [];
    const added: WireRecord[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (j >= b.length || (i < a.length && a[i]! < b[j]!)) deleted.push(record(a[i++]!));
      else if (i >= a.length || b[j]! < a[i]!) added.push(record(b[j++]!));
      else {
        i++;
        j++;
      }
    }
    const soa = (serial: number): Buffer => encodeRecordSet(catalogSoa(apex, serial), apex).set.tails[0]!;
    let journal = this.journals.get(apex);
    if (!journal) this.journals.set(apex, (journal = new Journal(this.config.ixfrJournal)));
    journal.recordChange(
      { from: from.serial, to: to.serial, fromSoa: soa(from.serial), toSoa: soa(to.serial), deleted, added },
      b.length + 3,
    );
  }

  private async publishZone(zone: Zone): Promise<void> {
    // A zone that will be held dormant (below) keeps no base for an incremental build: it is not built from.
    let values = 0;
    for (const rs of zone.recordSets) values += rs.values.length;
    const sleeps = !zone.signing && values <= DORMANT_MAX_RECORDS;
    const skip = (reason: string, set: RecordSet): void =>
      this.log.error({ zone: zone.domain, name: set.name, type: set.type, reason }, 'record set not served');
    const apex = normaliseName(zone.domain);
    if (this.catalogOwns(apex)) {
      if (apex === this.config.catalog && isBuiltCatalog(zone)) {
        // The catalog published as a zone: held as the members its PTR records list.
        const under = `.zones.${apex}`;
        const members = zone.recordSets
          .filter((rs) => rs.type === 'PTR' && rs.name.toLowerCase().endsWith(under))
          .map((rs) => rs.values[0]!);
        return this.publishCatalog(zone.serial, members);
      }
      // An account's zone of the catalog's name, or under it (the API refuses both: domain_reserved): never
      // served, else it would stand in for the catalog every secondary follows, or hide part of it.
      this.log.warn({ zone: apex }, 'zone not served: its name is the catalog zone’s');
      return;
    }
    if (sleeps && !this.zones.has(apex) && this.signatures.idle(apex)) {
      // A new zone that will sleep (every zone at start): checked, not compiled — nothing would keep the
      // compiled form, and there is no version before it to journal a diff from.
      const checked = checkZone(zone, skip);
      if (checked.recordCount <= DORMANT_MAX_RECORDS && !this.zones.has(apex)) {
        this.outdateAbove(apex);
        this.awake.delete(apex);
        this.zones.set(apex, new DormantZone(apex, checked.serial, zone.domain, dormantText(zone), checked.recordCount, null));
        this.published(apex, checked.serial, checked.recordCount);
        return;
      }
    }
    const compiled = await this.signatures.compile(zone, skip, !sleeps);
    const current = this.zones.get(compiled.apex);
    if (current && serialBefore(compiled.serial, current.serial)) {
      this.log.warn({ zone: compiled.apex, serial: compiled.serial, served: current.serial }, 'publish of an older serial ignored');
      return;
    }
    if (current && !(current instanceof PendingZone) && this.config.ixfrJournal > 0)
      this.journal(current instanceof DormantZone ? current.wake() : current, compiled);
    if (current) this.outdate(compiled.apex);
    else this.outdateAbove(compiled.apex);
    this.awake.delete(compiled.apex);
    if (!zone.signing && compiled.dnssec === null && compiled.recordCount <= DORMANT_MAX_RECORDS) {
      // Asleep from the start: most of an account's zones are asked rarely. Compiling it again when asked is
      // quick at this size, so it keeps no base for an incremental build either.
      this.zones.set(
        compiled.apex,
        new DormantZone(compiled.apex, compiled.serial, zone.domain, dormantText(zone), compiled.recordCount, null),
      );
      this.signatures.forget(compiled.apex);
    } else this.zones.set(compiled.apex, compiled);
    this.published(compiled.apex, compiled.serial, compiled.recordCount);
  }

  /** ZoneSync's HeldTexts: how a zone is held, if as a text (a small unsigned zone, DormantZone). */
  heldText(domain: string): { serial: number; text: string; records: number } | null {
    const z = this.zones.get(domain.toLowerCase().replace(/\.$/, ''));
    return z instanceof DormantZone ? { serial: z.serial, text: z.sets, records: z.records } : null;
  }

  /**
   * ZoneSync's HeldTexts: holds `domain` at `serial` as the text a server of this kind held it as (a
   * snapshot's, zone-snapshot.ts): checked when it was published then, so neither checked nor compiled now.
   */
  holdText(domain: string, serial: number, text: string, records: number): void {
    const apex = normaliseName(domain);
    if (this.catalogOwns(apex)) return; // never an account's zone (publishZone)
    if (this.zones.has(apex)) this.outdate(apex);
    else this.outdateAbove(apex);
    this.awake.delete(apex);
    this.signatures.forget(apex);
    this.zones.set(apex, new DormantZone(apex, serial, domain, heldOnce(text), records, null));
    this.published(apex, serial, records);
  }

  /** A zone is served at a new serial: logged, and the secondaries notified in the background. */
  private published(apex: string, serial: number, records: number): void {
    this.log.debug({ zone: apex, serial, records }, 'zone published');
    if (this.bound && this.config.secondaries.length > 0 && this.config.notifyOnPublish) {
      this.observer?.notified();
      this.notifier.notify(apex, serial).catch((err: unknown) => this.log.error({ err, zone: apex }, 'NOTIFY failed'));
    }
  }

  /**
   * The record sets of the version of `domain` compiled last, and its serial (ZoneSync's ZoneBases: the
   * next version is then built from the store's change log, not from a whole read); null: none kept.
   */
  baseOf(domain: string): HeldVersion | null {
    return this.signatures.baseOf(domain);
  }

  /**
   * The zone `domain` is no longer served. The catalog's name is not an account's zone's to withdraw (a
   * stored zone bearing it was never served, and its removal must not take the catalog away): the catalog
   * leaves by withdrawCatalog alone.
   */
  async withdraw(domain: string): Promise<void> {
    const apex = normaliseName(domain);
    if (this.catalogOwns(apex)) return;
    return this.withdrawZone(apex);
  }

  /** The catalog zone is no longer offered. */
  async withdrawCatalog(): Promise<void> {
    if (this.config.catalog !== null) await this.withdrawZone(this.config.catalog);
  }

  /** Whether `apex` is the catalog zone's name or under it: the service's alone, never an account's zone. */
  private catalogOwns(apex: string): boolean {
    return this.config.catalog !== null && inCatalog(apex, this.config.catalog);
  }

  private async withdrawZone(apex: string): Promise<void> {
    this.journals.delete(apex);
    this.signatures.forget(apex);
    this.awake.delete(apex);
    if (apex === this.config.catalog) this.catalogHeld = null;
    if (this.zones.delete(apex)) {
      this.outdate(apex);
      this.log.debug({ zone: apex }, 'zone withdrawn');
    }
  }

  /** The cached replies of the zone `apex` are stale (a new version, or withdrawn). */
  private outdate(apex: string): void {
    const owner = this.owners.get(apex);
    if (!owner) return;
    owner.stale = true;
    this.owners.delete(apex);
  }

  /**
   * A new zone `apex`: the names below it were answered by the nearest zone above it, or refused (no
   * zone); those replies are stale. No other reply changes (a reply comes from one zone alone, resolve.ts).
   */
  private outdateAbove(apex: string): void {
    // Nothing cached for any zone, or for no zone (a server loading its zones at start): nothing to outdate.
    if (this.owners.size > 0)
      for (let n = apex, dot = n.indexOf('.'); dot >= 0; dot = n.indexOf('.')) {
        n = n.slice(dot + 1);
        if (this.zones.has(n)) {
          this.outdate(n);
          break;
        }
      }
    if (!this.noZoneCached) return;
    this.noZone.stale = true;
    this.noZone = { stale: false };
    this.noZoneCached = false;
  }

  /** The answer cache's owner of the replies of `zone` (undefined: no zone). */
  private ownerOf(zone: CompiledZone | undefined): CacheOwner {
    if (!zone) {
      this.noZoneCached = true;
      return this.noZone;
    }
    let owner = this.owners.get(zone.apex);
    if (!owner) this.owners.set(zone.apex, (owner = { stale: false }));
    return owner;
  }

  /** NOTIFY every secondary for a published zone and wait for the outcome (publish does it too, unawaited). */
  async notifySecondaries(domain: string): Promise<readonly NotifyOutcome[]> {
    const apex = normaliseName(domain);
    const zone = this.zones.get(apex);
    if (!zone) throw new Error(`nameserver: zone ${apex} is not published`);
    return this.notifier.notify(apex, zone.serial);
  }

  /**
   * The messages answering one received packet: none (dropped), one, or several (AXFR). Never throws:
   * whatever goes wrong is logged and the packet is dropped.
   */
  answer(packet: Buffer, transport: Transport, peer: string): Buffer[] {
    if (transport === 'tcp') {
      const out = this.answerSlow(packet, 'tcp', peer, false);
      if (out[0]) this.observer?.answered(out[0], 0, 'tcp', false);
      return out;
    }
    const out = this.answerUdp(packet, peer);
    return out ? [out] : [];
  }

  /** A UDP packet's reply, or null: from the answer cache when the question was answered before. */
  private answerUdp(packet: Buffer, peer: string, port = 0): Buffer | null {
    try {
      const cache = this.cache;
      const hit = cache?.lookup(packet) ?? null;
      if (hit === null && this.signed !== null && this.signed.wants(packet)) {
        // No port (answer() called without one): nowhere to send later, TC sends the client to TCP.
        if (port === 0) return this.signed.truncated(packet);
        this.dispatchSigned(packet, 'udp', peer, (r) => this.sendLate(r, peer, port));
        return null;
      }
      const out = hit ?? this.answerSlow(packet, 'udp', peer, cache !== null && cache.cacheable)[0] ?? null;
      if (out === null) return null;
      if (this.rrl !== null) {
        const verdict = this.rrl.check(peer);
        if (verdict === Verdict.Drop) return null;
        if (verdict !== Verdict.Pass) {
          const slipped = Buffer.from(out);
          return slipped.subarray(0, truncateInPlace(slipped, 0, slipped.length));
        }
      }
      this.observer?.answered(out, 0, 'udp', hit !== null);
      return out;
    } catch (err) {
      this.failed(err, { transport: 'udp', peer }, 'DNS query failed; dropped');
      return null;
    }
  }

  /** One datagram of a batch (udp-batch.ts): its reply written into the send arena, or 0 for none. Never throws. */
  private readonly answerInto = (
    query: Buffer,
    out: Buffer,
    at: number,
    room: number,
    peer: () => string,
    peerPort: () => number,
  ): number => {
    try {
      const cache = this.cache;
      let n = cache !== null ? cache.lookupInto(query, out, at, room) : 0;
      const hit = n > 0;
      if (!hit && this.signed !== null && this.signed.wants(query)) {
        // Its reply is ready only after this batch went out: sent later from the same socket (sendLate).
        const address = peer();
        const port = peerPort();
        this.dispatchSigned(query, 'udp', address, (r) => this.sendLate(r, address, port));
        return 0;
      }
      if (!hit) {
        const reply = this.answerSlow(query, 'udp', peer(), cache !== null && cache.cacheable)[0];
        if (reply === undefined || reply.length > room) return 0;
        n = reply.copy(out, at);
      }
      if (this.rrl !== null) {
        const verdict = this.rrl.check(peer());
        if (verdict === Verdict.Drop) return 0;
        if (verdict !== Verdict.Pass) return truncateInPlace(out, at, n);
      }
      this.observer?.answered(out, at, 'udp', hit);
      return n;
    } catch (err) {
      this.failed(err, { transport: 'udp' }, 'DNS query failed; dropped');
      return 0;
    }
  };

  /**
   * A UDP reply that completed after its datagram's turn (UPDATE, a signed message): from the socket the
   * query came in on — the batched reader's (a worker's own SO_REUSEPORT socket, or dgram's served by the
   * addon), else dgram's. Dropped when the server has stopped meanwhile, as any UDP reply may be.
   */
  private sendLate(reply: Buffer, address: string, port: number): void {
    try {
      if (this.batched) {
        if (!this.batched.sendTo(reply, address, port)) this.log.debug({ peer: address }, 'DNS UDP late reply dropped');
      } else this.udp?.send(reply, port, address);
    } catch (err) {
      this.log.debug({ err }, 'DNS UDP send failed');
    }
  }

  /** Parses with dns-packet, resolves and lays out; `store`: keep the reply in the answer cache. */
  private answerSlow(packet: Buffer, transport: Transport, peer: string, store: boolean, transferAuthorised = false): Buffer[] {
    try {
      const parsed = parseQuery(packet, this.extras);
      if (parsed.kind === 'drop') return [];
      if (parsed.kind === 'reply') return [parsed.reply];
      const q = parsed.query;
      if (q.edns && q.edns.version !== 0) return [bareReply(q, RCODE.BADVERS, false, this.extras)]; // RFC 6891 §6.1.3
      // RFC 1035 §3.2.5: QCLASS * (ANY) matches our IN data; other classes we do not serve.
      if (q.qclass !== CLASS_IN && q.qclass !== CLASS_ANY) return [bareReply(q, RCODE.REFUSED, false, this.extras)];
      const zone = this.zoneFor(q);
      if (q.qtype === T.AXFR || q.qtype === T.IXFR) return this.transfer(q, zone, transport, peer, transferAuthorised);
      const limit = transport === 'tcp' ? MAX_TCP_MESSAGE : udpLimit(q);
      const reply = zone
        ? buildReply(
            q,
            resolve(zone, q.name, q.suffixes, q.qtype, q.edns?.dnssecOk === true),
            limit,
            q.edns?.expire && q.qtype === T.SOA && q.name === zone.apex ? { ...this.extras, expire: zone.expire } : this.extras,
          )
        : bareReply(q, RCODE.REFUSED, false, { ...this.extras, ede: EDE.NOT_AUTHORITATIVE }); // RFC 8914 §4.21
      if (store) this.cache?.store(reply, this.ownerOf(zone));
      return [reply];
    } catch (err) {
      this.failed(err, { transport, peer }, 'DNS query failed; dropped');
      return [];
    }
  }

  /** The zone with the longest apex that is a suffix of the name (a zone and its child may both be ours). */
  private zoneFor(q: Query): CompiledZone | undefined {
    for (const s of q.suffixes) {
      const z = this.zones.get(s);
      if (z) return z instanceof DormantZone ? this.wakeUp(z) : z instanceof PendingZone ? this.compilePending(z) : z;
    }
    return undefined;
  }

  /**
   * A pending zone (the catalog) asked for: compiled now and served from then on (its diffs were journaled
   * when published). One that cannot be built is logged once and answered as no zone until the next version.
   */
  private compilePending(z: PendingZone): CompiledZone | undefined {
    if (z.failed) return undefined;
    let compiled: CompiledZone;
    try {
      compiled = compileZone(z.build(), (reason, set) =>
        this.log.error({ zone: z.apex, name: set.name, type: set.type, reason }, 'record set not served'),
      );
    } catch (err) {
      z.failed = true;
      this.log.error({ err, zone: z.apex, serial: z.serial }, 'catalog zone not built');
      return undefined;
    }
    if (this.zones.get(z.apex) === z) this.zones.set(z.apex, compiled);
    return compiled;
  }

  /** The diff from one compiled version of a zone to the next, journaled for IXFR. */
  private journal(from: CompiledZone, to: CompiledZone): void {
    if (this.config.ixfrJournal <= 0) return;
    let journal = this.journals.get(to.apex);
    if (!journal) this.journals.set(to.apex, (journal = new Journal(this.config.ixfrJournal)));
    journal.record(from, to);
  }

  /**
   * A dormant zone compiled (again, if it was put to sleep), as the most recently asked; past `awakeZones` the
   * least recently asked one sleeps: its compiled form, and the base of its next incremental build, are let go.
   */
  private wakeUp(z: DormantZone): CompiledZone {
    const compiled = z.wake();
    this.awake.delete(z.apex);
    this.awake.set(z.apex, z);
    if (this.awake.size > this.config.awakeZones) {
      const oldest = this.awake.keys().next().value as string;
      const sleeper = this.awake.get(oldest)!;
      this.awake.delete(oldest);
      sleeper.compiled = null;
      this.signatures.forget(oldest);
    }
    return compiled;
  }

  /** AXFR (RFC 5936) and IXFR (RFC 1995: the changes from the journal, else the whole zone AXFR-style) to allowed peers, over TCP. */
  private transfer(q: Query, zone: CompiledZone | undefined, transport: Transport, peer: string, authorised: boolean): Buffer[] {
    if (transport === 'udp' && q.qtype === T.AXFR) return [bareReply(q, RCODE.FORMERR, false, this.extras)]; // RFC 5936 §4.2: TCP only
    // A transfer signed with a key that holds dns.read on the zone is authorised by the key, beside the address list.
    if (!authorised && !allowed(this.config.axfrAllow, peer)) {
      this.log.info({ peer, zone: q.name }, 'zone transfer refused');
      return [bareReply(q, RCODE.REFUSED, false, { ...this.extras, ede: EDE.PROHIBITED })]; // RFC 8914 §4.19
    }
    if (!zone || zone.apex !== q.name) return [bareReply(q, RCODE.NOTAUTH, false, { ...this.extras, ede: EDE.NOT_AUTHORITATIVE })];
    if (q.qtype === T.IXFR) {
      // RFC 1995 §3: an IXFR query carries the requester's SOA in its authority section.
      if (q.clientSerial === null) return [bareReply(q, RCODE.FORMERR, false, this.extras)];
      // Over UDP, or to a secondary that is current (or ahead): the SOA alone (RFC 1995 §2, §4). A serial
      // whose relation to ours is undefined (exactly 2^31 apart, RFC 1982 §3.2) gets the whole zone.
      const current = q.clientSerial === zone.serial || serialBefore(zone.serial, q.clientSerial);
      if (transport === 'udp' || current) return [soaOnly(q, zone, this.extras)];
    }
    // IXFR from a serial the journal reaches back to: only the changes since (RFC 1995 §4).
    const changes = q.qtype === T.IXFR && q.clientSerial !== null ? this.journals.get(zone.apex)?.since(q.clientSerial, zone) : null;
    this.observer?.transferred(q.qtype === T.AXFR ? 'AXFR' : 'IXFR');
    if (changes) {
      const messages = transferMessagesOf(q, changes, { ...this.extras, expire: zone.expire });
      this.log.info(
        {
          peer,
          zone: zone.apex,
          from: q.clientSerial,
          serial: zone.serial,
          records: changes.length,
          messages: messages.length,
          type: 'IXFR',
        },
        'zone changes transferred',
      );
      return messages;
    }
    const messages = transferMessages(q, zone, this.extras);
    this.log.info(
      {
        peer,
        zone: zone.apex,
        serial: zone.serial,
        records: zone.recordCount,
        messages: messages.length,
        type: q.qtype === T.AXFR ? 'AXFR' : 'IXFR (AXFR-style)',
      },
      'zone transferred',
    );
    return messages;
  }

  /**
   * One datagram. Its reply is not sent at once but at the end of this turn of the event loop
   * (setImmediate), together with the replies to the other datagrams libuv read in the same turn (up to
   * 32 from one socket): receiving a burst and then sending its replies costs fewer context switches than
   * alternating, as each send to a waiting client wakes it (measured: the same QPS for ~15–25 % less CPU,
   * or ~10–25 % more QPS when the CPU is short). The wait is microseconds. No send callback: a callback
   * costs a nextTick per packet, and a reply the kernel cannot take is lost like any UDP datagram (the
   * client retries).
   */
  private onDatagram(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const out = this.answerUdp(msg, rinfo.address, rinfo.port);
    if (out === null) return;
    const n = this.outgoing.length;
    if (n === 0) setImmediate(this.flushReplies);
    this.outgoing.push(out);
    this.outgoingPorts.push(rinfo.port);
    this.outgoingAddresses.push(rinfo.address);
    if (n + 1 >= MAX_REPLY_BATCH) this.flushReplies();
  }

  /** Sends the replies waiting since onDatagram; a stopped server drops them. */
  private readonly flushReplies = (): void => {
    const udp = this.udp;
    const n = this.outgoing.length;
    if (udp) {
      for (let i = 0; i < n; i++) {
        try {
          udp.send(this.outgoing[i]!, this.outgoingPorts[i]!, this.outgoingAddresses[i]!);
        } catch (err) {
          this.log.debug({ err }, 'DNS UDP send failed');
        }
      }
    }
    this.outgoing.length = 0;
    this.outgoingPorts.length = 0;
    this.outgoingAddresses.length = 0;
  };

  /** RFC 7766 §8: each message prefixed by its two-octet length; queries may be pipelined. */
  private onConnection(conn: net.Socket): void {
    this.connections.add(conn);
    conn.setNoDelay(true);
    conn.setTimeout(TCP_IDLE_MS, () => conn.destroy());
    conn.on('error', () => conn.destroy());
    conn.on('close', () => this.connections.delete(conn));
    let pending: Buffer = Buffer.alloc(0);
    conn.on('data', (chunk: Buffer) => {
      try {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        conn.cork();
        while (pending.length >= 2) {
          const len = pending.readUInt16BE(0);
          if (pending.length < 2 + len) break;
          const msg = pending.subarray(2, 2 + len);
          pending = pending.subarray(2 + len);
          if (this.signed !== null && this.signed.wants(msg)) {
            // RFC 7766 §7: answers on a connection may come out of order; this one comes when the store has spoken.
            this.dispatchSigned(msg, 'tcp', conn.remoteAddress ?? '', (out) => {
              if (conn.destroyed) return;
              const frame = Buffer.allocUnsafe(2 + out.length);
              frame.writeUInt16BE(out.length, 0);
              out.copy(frame, 2);
              conn.write(frame);
            });
            continue;
          }
          for (const out of this.answer(msg, 'tcp', conn.remoteAddress ?? '')) {
            const frame = Buffer.allocUnsafe(2 + out.length);
            frame.writeUInt16BE(out.length, 0);
            out.copy(frame, 2);
            conn.write(frame);
          }
        }
        process.nextTick(() => conn.uncork());
        // A client that sends queries but does not read the answers is not read from either.
        if (conn.writableLength > TCP_HIGH_WATER) {
          conn.pause();
          conn.once('drain', () => conn.resume());
        }
      } catch (err) {
        this.failed(err, { transport: 'tcp' }, 'DNS TCP handling failed');
        conn.destroy();
      }
    });
  }
}
