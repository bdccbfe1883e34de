import { CLASS_IN, MAX_UDP_PAYLOAD, T } from './wire.js';

/**
 * The UDP fast path: finished replies, remembered by question, so that a repeated question is answered
 * by reading the query's header and question by hand, one hash-table probe and one copy — no dns-packet
 * decode, no resolution, no layout, and no objects but the reply buffer.
 *
 * A reply is a pure function of (the question name with A–Z lowered, QTYPE, QCLASS, the EDNS variant):
 * the rest of the query shows in the reply only as its ID, its RD and CD bits and the question's case,
 * which are patched in on every hit (owners that are the query name or a suffix of it are compression
 * pointers into the question, so they take the query's case from it, see message.ts). The EDNS variant
 * is: no OPT (512-octet limit), or OPT with DO clear or set and the size limit min(max(512, payload),
 * 1232). So the same slow path (message.ts, resolve.ts) makes every reply, once per question and variant
 * per zone version; the cache only remembers it.
 *
 * Only a plain, well-formed query is looked up here: QR clear, opcode QUERY, one question and nothing
 * else but at most one OPT record, an uncompressed name ≤ 255 octets, class IN, not AXFR/IXFR, EDNS
 * version 0, options that are whole TLVs (and none of those dns-packet parses into fields: ECS,
 * keepalive, key tag; nor NSID or EXPIRE, whose answers carry more options), and not one octet more. Anything else goes to the slow path as before, which
 * keeps every FORMERR/NOTIMP/BADVERS/REFUSED rule where it is.
 *
 * The table is two-way set-associative with a power-of-two number of slots (a question hashes to a
 * set of two; a new reply goes first in its set and the one that was first moves second, dropping the
 * older): memory stays bounded whatever names are asked (a flood of random names just misses), and the
 * octets held are capped too (past the cap the table starts again empty). With one way, 1 100 hot
 * questions in 65 536 slots missed 2.6 % of the time by colliding; with two, 0.3 %.
 * Each reply is stored with its owner: the cell of the zone that answered it (or of "no zone"). A
 * publish or withdraw marks the cells it outdates stale (embedded.adapter.ts) and a reply whose owner is
 * stale is a miss: a change of one zone leaves the other zones' replies in place. `clear()` forgets all.
 */
export interface CacheOwner {
  stale: boolean;
}

export class AnswerCache {
  private readonly replies: Array<Buffer | undefined>;
  /** The owner of each slot's reply (whose staleness makes it a miss). */
  private readonly owners: Array<CacheOwner | undefined>;
  /** The EDNS variant of each slot's reply (0: no OPT). */
  private readonly variants: Int32Array;
  /** End of the question (12 + name + 4) in each slot's reply; 0: empty. */
  private readonly ends: Uint16Array;
  private readonly mask: number;
  private readonly maxBytes: number;
  private filled = 0;
  private bytes = 0;
  private hitCount = 0;

  /** Set by `lookup` for `store`: the last packet's set (its first slot), variant and question end (-1: not cacheable). */
  private slot = -1;
  private variant = 0;
  private end = 0;
  private nameEnd = 0;

  constructor(slots = 1 << 16, maxBytes = 16 * 1024 * 1024) {
    if (!Number.isInteger(Math.log2(slots)) || slots < 2 || slots > 1 << 24)
      throw new TypeError('AnswerCache: slots must be a power of two, 2 to 2^24');
    this.maxBytes = maxBytes;
    this.replies = new Array<Buffer | undefined>(slots).fill(undefined);
    this.owners = new Array<CacheOwner | undefined>(slots).fill(undefined);
    this.variants = new Int32Array(slots);
    this.ends = new Uint16Array(slots);
    this.mask = (slots - 1) & ~1;
  }

  /** Replies held now, their octets, and the queries answered from the cache so far. */
  stats(): { replies: number; bytes: number; hits: number } {
    return { replies: this.filled, bytes: this.bytes, hits: this.hitCount };
  }

  /** Forgets every reply (a zone was published or withdrawn). */
  clear(): void {
    if (this.filled === 0) return;
    this.replies.fill(undefined);
    this.owners.fill(undefined);
    this.ends.fill(0);
    this.filled = 0;
    this.bytes = 0;
  }

  /**
   * The reply to `msg` if it is a plain query whose reply is held: a new buffer, with the query's ID, RD,
   * CD and question patched in. Otherwise null; then, if the query was plain, `cacheable` is true and
   * `store` takes the reply the slow path makes for it.
   */
  lookup(msg: Buffer): Buffer | null {
    const cached = this.probe(msg);
    if (cached === undefined) return null;
    const out = Buffer.allocUnsafe(cached.length);
    patch(cached, msg, this.nameEnd, out, 0);
    return out;
  }

  /**
   * As `lookup`, but a held reply is written into `out` at `at` (the batched UDP path writes replies
   * straight into the arena it sends from, udp-batch.ts): its length, or 0 when none is held (or it
   * does not fit in `room` octets). `cacheable` and `store` work as after `lookup`.
   */
  lookupInto(msg: Buffer, out: Buffer, at: number, room: number): number {
    const cached = this.probe(msg);
    if (cached === undefined || cached.length > room) return 0;
    patch(cached, msg, this.nameEnd, out, at);
    return cached.length;
  }

  /** The held reply to `msg`, counted as a hit; sets the state `store` needs (slot -1: not a plain query). */
  private probe(msg: Buffer): Buffer | undefined {
    this.slot = -1;
    const len = msg.length;
    // Header: QR 0 and opcode QUERY (the top five bits of octet 2); QDCOUNT 1, ANCOUNT 0, NSCOUNT 0, ARCOUNT 0 or 1.
    if (len < 17 || (msg[2]! & 0xf8) !== 0 || msg[4] !== 0 || msg[5] !== 1 || (msg[6]! | msg[7]! | msg[8]! | msg[9]! | msg[10]!) !== 0)
      return undefined;
    const ar = msg[11]!;
    if (ar > 1) return undefined;

    // The name: uncompressed labels of 1–63 octets, at most 255 octets in all; FNV-1a over it, A–Z lowered.
    let h = 0x811c9dc5 | 0;
    let off = 12;
    for (;;) {
      if (off >= len) return undefined;
      const l = msg[off]!;
      if (l === 0) break;
      if (l > 63) return undefined;
      const next = off + 1 + l;
      if (next - 12 > 254 || next > len) return undefined;
      h = Math.imul(h ^ l, 0x01000193);
      for (let i = off + 1; i < next; i++) {
        let c = msg[i]!;
        if (c >= 0x41 && c <= 0x5a) c |= 0x20;
        h = Math.imul(h ^ c, 0x01000193);
      }
      off = next;
    }
    const nameEnd = off + 1;
    const end = nameEnd + 4;
    if (end > len) return undefined;
    const qtype = (msg[nameEnd]! << 8) | msg[nameEnd + 1]!;
    if (qtype === T.AXFR || qtype === T.IXFR || ((msg[nameEnd + 2]! << 8) | msg[nameEnd + 3]!) !== CLASS_IN) return undefined;

    // The EDNS variant: no OPT and nothing after the question, or exactly one OPT that ends the packet.
    let variant = 0;
    if (ar === 0) {
      if (end !== len) return undefined;
    } else {
      // OPT: owner root (1), TYPE 41 (2), CLASS = payload (2), TTL = extended rcode, version, flags (4), RDLENGTH (2).
      if (end + 11 > len || msg[end] !== 0 || msg[end + 1] !== 0 || msg[end + 2] !== T.OPT || msg[end + 6] !== 0) return undefined;
      const rdlen = (msg[end + 9]! << 8) | msg[end + 10]!;
      if (end + 11 + rdlen !== len) return undefined;
      for (let o = end + 11; o < len;) {
        if (o + 4 > len) return undefined;
        const code = (msg[o]! << 8) | msg[o + 1]!;
        // ECS, keepalive, key tag (parsed into fields by dns-packet); NSID and EXPIRE (answered per query, message.ts).
        if (code === 8 || code === 11 || code === 14 || code === 3 || code === 9) return undefined;
        o += 4 + ((msg[o + 2]! << 8) | msg[o + 3]!);
        if (o > len) return undefined;
      }
      const payload = (msg[end + 3]! << 8) | msg[end + 4]!;
      const limit = payload < 512 ? 512 : payload > MAX_UDP_PAYLOAD ? MAX_UDP_PAYLOAD : payload;
      variant = (limit << 1) | (msg[end + 7]! >> 7);
    }
    h = Math.imul(h ^ qtype, 0x01000193);
    h = Math.imul(h ^ variant, 0x01000193);
    const slot = (h ^ (h >>> 15)) & this.mask;
    this.slot = slot;
    this.variant = variant;
    this.end = end;
    this.nameEnd = nameEnd;

    let cached = this.held(slot, msg, end, nameEnd, variant);
    if (cached === undefined) cached = this.held(slot + 1, msg, end, nameEnd, variant);
    if (cached !== undefined) this.hitCount++;
    return cached;
  }

  /** The reply in `slot` if it answers this question (name compared with A–Z lowered, QTYPE, variant). */
  private held(slot: number, msg: Buffer, end: number, nameEnd: number, variant: number): Buffer | undefined {
    const cached = this.replies[slot];
    if (cached === undefined || this.ends[slot] !== end || this.variants[slot] !== variant || this.owners[slot]!.stale) return undefined;
    for (let i = 12; i < nameEnd; i++) {
      let c = msg[i]!;
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      if (c !== cached[i]) return undefined;
    }
    if (cached[nameEnd] !== msg[nameEnd] || cached[nameEnd + 1] !== msg[nameEnd + 1]) return undefined;
    return cached;
  }

  /** Whether the packet last given to `lookup` was a plain query (its reply may be stored). */
  get cacheable(): boolean {
    return this.slot !== -1;
  }

  /**
   * Remembers the slow path's reply to the packet last given to `lookup` (a copy, its question name
   * lowered), as `owner`'s: it is a miss once the owner is stale.
   */
  store(reply: Buffer, owner: CacheOwner = FOREVER): void {
    const slot = this.slot;
    if (slot === -1 || reply.length < this.end) return;
    this.slot = -1;
    // Over the octet budget (only big replies get it there): start again rather than grow.
    const dropped = this.replies[slot + 1]?.length ?? 0;
    if (this.bytes - dropped + reply.length > this.maxBytes) this.clear();
    const copy = Buffer.allocUnsafeSlow(reply.length);
    reply.copy(copy);
    for (let i = 12; i < this.nameEnd; i++) {
      const c = copy[i]!;
      if (c >= 0x41 && c <= 0x5a) copy[i] = c | 0x20;
    }
    // The set's first way moves to the second (dropping what was there); the new reply goes first.
    const gone = this.replies[slot + 1];
    if (gone !== undefined) {
      this.filled--;
      this.bytes -= gone.length;
    }
    this.replies[slot + 1] = this.replies[slot];
    this.owners[slot + 1] = this.owners[slot];
    this.variants[slot + 1] = this.variants[slot]!;
    this.ends[slot + 1] = this.ends[slot]!;
    this.replies[slot] = copy;
    this.owners[slot] = owner;
    this.variants[slot] = this.variant;
    this.ends[slot] = this.end;
    this.filled++;
    this.bytes += copy.length;
  }
}

/** The owner of a reply stored without one: never stale (only clear() forgets it). */
const FOREVER: CacheOwner = { stale: false };

/** A held reply written to `out` at `at`, with the query's ID, RD, CD and question case patched in. */
const patch = (cached: Buffer, msg: Buffer, nameEnd: number, out: Buffer, at: number): void => {
  out.set(cached, at);
  out[at] = msg[0]!;
  out[at + 1] = msg[1]!;
  out[at + 2] = (cached[2]! & 0xfe) | (msg[2]! & 0x01); // RD
  out[at + 3] = (cached[3]! & 0xef) | (msg[3]! & 0x10); // CD
  for (let i = 12; i < nameEnd; i++) out[at + i] = msg[i]!; // the question's case as sent
};
