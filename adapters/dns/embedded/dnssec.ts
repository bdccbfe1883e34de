import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { StoredSignature } from '../../../core/dns/ports/zone-signature-repository.port.js';
import type { ZoneSigning, ZoneSigningKey } from '../../../core/dns/zone/zone-signing.js';
import { encodedSet, T, type EncodedSet } from './wire.js';

/**
 * DNSSEC signing of a compiled zone (RFC 4033–4035), done once when the zone is published, never per
 * query: the apex DNSKEY set (and CDS/CDNSKEY, RFC 7344), a precomputed NSEC chain (RFC 4034 §4) over the
 * authoritative names and delegation points, and an RRSIG over every authoritative RRset (RFC 4035 §2.2:
 * not the NS set of a cut, nor glue below it). NSEC rather than NSEC3: RFC 9276 §3.1 prefers NSEC where
 * walking the zone is not a concern, and NSEC3 with no iterations and no salt (what RFC 9276 allows) hides
 * names only from the idle — any zone's names fall to a dictionary; NSEC answers are smaller and need no
 * hashing, and resolvers synthesise from them best (RFC 8198).
 *
 * Re-signing only what changed: the signatures of the last compile of each zone are kept (SignatureCache)
 * and an RRset whose records, TTL, key and window are the same gets its old signature back. Signatures are
 * made by one signer and stored (see the README, "DNSSEC: one signer"); the other servers serve the stored
 * ones, found by the digest of the data they sign.
 */

export const RR = { RRSIG: 46, NSEC: 47, DNSKEY: 48, CDS: 59, CDNSKEY: 60, DS: 43 } as const;

/** The DNSKEY RDATA: flags, protocol 3, algorithm, public key (RFC 4034 §2.1). */
export const dnskeyRdata = (k: { readonly flags: number; readonly algorithm: number; readonly publicKey: string }): Buffer => {
  const pub = Buffer.from(k.publicKey, 'base64');
  const b = Buffer.alloc(4 + pub.length);
  b.writeUInt16BE(k.flags, 0);
  b[2] = 3;
  b[3] = k.algorithm;
  pub.copy(b, 4);
  return b;
};

/** A record tail (type, class IN, TTL, RDLENGTH, RDATA) around RDATA made by hand. */
export const tailOf = (type: number, ttl: number, rdata: Buffer): Buffer => {
  const b = Buffer.allocUnsafe(10 + rdata.length);
  b.writeUInt16BE(type, 0);
  b.writeUInt16BE(1, 2);
  b.writeUInt32BE(ttl >>> 0, 4);
  b.writeUInt16BE(rdata.length, 8);
  rdata.copy(b, 10);
  return b;
};

/** RFC 4034 §4.1.2: the type bit maps field for a set of types. */
export const typeBitmap = (types: Iterable<number>): Buffer => {
  const windows = new Map<number, Buffer>();
  for (const t of types) {
    const w = t >> 8;
    let bits = windows.get(w);
    if (!bits) windows.set(w, (bits = Buffer.alloc(32)));
    bits[(t & 0xff) >> 3]! |= 0x80 >> (t & 7);
  }
  const parts: Buffer[] = [];
  for (const w of [...windows.keys()].sort((a, b) => a - b)) {
    const bits = windows.get(w)!;
    let len = 32;
    while (len > 0 && bits[len - 1] === 0) len--;
    parts.push(Buffer.from([w, len]), bits.subarray(0, len));
  }
  return Buffer.concat(parts);
};

/** Labels of a wire name, without the root: what RRSIG's Labels field counts (RFC 4034 §3.1.3), a leading "*" aside. */
const labelCount = (wire: Buffer): number => {
  let n = 0;
  let first = true;
  for (let o = 0; wire[o]! !== 0; o += 1 + wire[o]!) {
    if (!(first && wire[o] === 1 && wire[o + 1] === 0x2a)) n++;
    first = false;
  }
  return n;
};

/** A signing key opened for use. */
export interface OpenKey {
  readonly tag: number;
  readonly algorithm: 13 | 15;
  readonly key: KeyObject;
}

export const openKey = (k: ZoneSigningKey, open: (sealed: string) => string): OpenKey => ({
  tag: k.tag,
  algorithm: k.algorithm,
  key: createPrivateKey({ key: Buffer.from(open(k.sealedPrivateKey), 'base64'), format: 'der', type: 'pkcs8' }),
});

/** The signature over `data` (RFC 6605 §4: r‖s, 64 octets; RFC 8080 §4: the 64-octet Ed25519 signature). */
export const signData = (k: Pick<OpenKey, 'algorithm' | 'key'>, data: Buffer): Buffer =>
  k.algorithm === 13 ? sign('sha256', data, { key: k.key, dsaEncoding: 'ieee-p1363' }) : sign(null, data, k.key);

/** Both algorithms make 64-octet signatures (RFC 6605 §4, RFC 8080 §4): an RRSIG's length is known before it is signed. */
export const SIGNATURE_LENGTH = 64;

/**
 * What identifies a signature: the first 16 octets of SHA-256 over the data it signs (RRSIG RDATA without
 * the signature, then the RRset in canonical form; RFC 4034 §3.1.8.1), base64. Equal digests: the stored
 * signature is valid for this RRset, TTL, key and window, whoever made it.
 */
export const digestOf = (data: Buffer): string => createHash('sha256').update(data).digest().subarray(0, 16).toString('base64');

/** A signature as the store keeps it. */
export type SignatureRow = StoredSignature;

/** The stored form of an RRSIG tail: its RDATA, base64. */
export const rdataOf = (rrsig: Buffer): string => rrsig.toString('base64', 10);

/** What a signature was made over, to give it back when nothing changed. */
interface CachedSig {
  readonly tails: readonly Buffer[];
  readonly ttl: number;
  readonly inception: number;
  readonly expiration: number;
  readonly tag: number;
  readonly digest: string;
  readonly rrsig: Buffer;
}

/** A signature to make: its RRSIG tail is laid out with a zero signature, filled in place once signed (bulk signing). */
export interface SigningJob {
  readonly key: OpenKey;
  readonly data: Buffer;
  /** The RRSIG tail; its last SIGNATURE_LENGTH octets are the signature. */
  readonly rrsig: Buffer;
}

/** Thrown when a zone must be served with stored signatures that the signer has not stored yet. */
export class SignaturesPending extends Error {
  override readonly name = 'SignaturesPending';
  constructor(readonly zone: string) {
    super(`nameserver: the signatures of zone ${zone} are not stored yet (the signer makes them)`);
  }
}

/**
 * The signatures of one zone. A compile takes each RRset's signature from, in turn: the last compile's
 * (same records, TTL, key and window: compared octet by octet, no hashing), the stored ones (same digest
 * of the signed data), or — in the signer alone, which holds the opened keys — a new one. A server that
 * cannot sign (a DNS worker) and finds an RRset without a signature throws SignaturesPending and keeps
 * serving the version it has.
 */
export class SignatureCache {
  private sigs = new Map<string, CachedSig[]>();
  private next = new Map<string, CachedSig[]>();
  /** Stored signatures not yet matched by a compile, by RRset key. */
  private stored = new Map<string, Array<{ tag: number; digest: string; rrsig: Buffer }>>();
  /** What the store holds of this zone, by `${rrset}#${tag}`: to drop what the compile no longer uses. */
  private inStore = new Set<string>();
  /** The store's generation these signatures were read at (-1: never read). */
  generation = -1;
  /** Signatures made (not reused) by the last compile: for tests and logs. */
  made = 0;
  /** The signatures the last compile made, to be stored (their RRSIG tails are signed once the jobs are done). */
  fresh: Array<{ rrset: string; keyTag: number; digest: string; rrsig: Buffer }> = [];
  /** Stored signatures the last compile did not use, to be removed from the store. */
  dropped: Array<{ rrset: string; keyTag: number }> = [];
  /** Signatures laid out by the last compile and not signed yet (deferred: bulk signing). */
  jobs: SigningJob[] = [];
  /** Lay out new signatures and leave the signing to the caller (jobs), rather than sign one by one. */
  deferred = false;
  private used = new Set<string>();

  /** Merges signatures read from the store (all of them when `full`, else those newer than `generation`). */
  load(rows: readonly SignatureRow[], generation: number, full: boolean): void {
    if (full) {
      this.stored = new Map();
      this.inStore = new Set();
    }
    for (const r of rows) {
      const list = this.stored.get(r.rrset)?.filter((x) => x.tag !== r.keyTag) ?? [];
      list.push({ tag: r.keyTag, digest: r.digest, rrsig: tailOf(RR.RRSIG, 0, Buffer.from(r.rdata, 'base64')) });
      this.stored.set(r.rrset, list);
      this.inStore.add(`${r.rrset}#${r.keyTag}`);
    }
    this.generation = generation;
  }

  /** Forgets everything (the store was written by another signer: read it again). */
  reset(): void {
    this.sigs = new Map();
    this.stored = new Map();
    this.inStore = new Set();
    this.generation = -1;
  }

  begin(): void {
    this.next = new Map();
    this.made = 0;
    this.fresh = [];
    this.dropped = [];
    this.jobs = [];
    this.used = new Set();
  }

  /** Keeps only what the compile just done used; what the store holds beyond it is `dropped`. */
  commit(): void {
    this.sigs = this.next;
    for (const k of this.inStore) {
      if (this.used.has(k)) continue;
      const at = k.lastIndexOf('#');
      this.dropped.push({ rrset: k.slice(0, at), keyTag: Number(k.slice(at + 1)) });
    }
    this.inStore = this.used;
    this.stored = new Map();
  }

  /** An incremental update (incremental.ts) begins: it signs only some RRsets, the others keep what they have. */
  beginPartial(): void {
    this.begin();
  }

  /**
   * An incremental update signed the RRsets `keys` (and only those changed): their signatures replace what
   * they had, the others stay as they are; what the store holds of `keys` and the update no longer uses is
   * `dropped`.
   */
  commitPartial(keys: Iterable<string>, tags: readonly number[]): void {
    const used = this.used;
    for (const key of keys) {
      const next = this.next.get(key);
      const tagsOf = new Set<number>(tags);
      for (const c of this.sigs.get(key) ?? []) tagsOf.add(c.tag);
      for (const s of this.stored.get(key) ?? []) tagsOf.add(s.tag);
      for (const tag of tagsOf) {
        const k = `${key}#${tag}`;
        if (used.has(k)) this.inStore.add(k);
        else if (this.inStore.delete(k)) this.dropped.push({ rrset: key, keyTag: tag });
      }
      if (next) this.sigs.set(key, next);
      else this.sigs.delete(key);
    }
    this.next = new Map();
    this.used = new Set();
    this.stored = new Map();
  }

  /** The compile failed: what it did is forgotten, the signatures from before are kept. */
  abort(): void {
    this.next = new Map();
    this.fresh = [];
    this.jobs = [];
  }

  find(key: string, tails: readonly Buffer[], ttl: number, signing: ZoneSigning, tag: number): CachedSig | null {
    const list = this.sigs.get(key);
    if (!list) return null;
    for (const c of list) {
      if (c.tag !== tag || c.ttl !== ttl || c.inception !== signing.inception || c.expiration !== signing.expiration) continue;
      if (c.tails.length !== tails.length) continue;
      let same = true;
      for (let i = 0; i < tails.length && same; i++) same = c.tails[i] === tails[i] || c.tails[i]!.equals(tails[i]!);
      if (same) return c;
    }
    return null;
  }

  findStored(key: string, tag: number, digest: string): Buffer | null {
    const list = this.stored.get(key);
    if (!list) return null;
    for (const s of list) if (s.tag === tag && s.digest === digest) return s.rrsig;
    return null;
  }

  keep(key: string, c: CachedSig): void {
    const list = this.next.get(key);
    if (list) list.push(c);
    else this.next.set(key, [c]);
    this.used.add(`${key}#${c.tag}`);
  }
}

/** Fills the laid-out RRSIGs of `jobs` one after another, in this thread. */
export const signJobs = (jobs: readonly SigningJob[]): void => {
  for (const j of jobs) signData(j.key, j.data).copy(j.rrsig, j.rrsig.length - SIGNATURE_LENGTH);
};

/**
 * The RRSIG records (tails) over one RRset, one per signing key (RFC 4035 §2.2). The signed data is the
 * RRSIG RDATA without its signature, then each record in canonical form (owner lower case, uncompressed,
 * RDATA sorted as octet strings; RFC 4034 §3.1.8.1, §6.3). Our tails already hold lower-case, uncompressed
 * names (rdata.ts normalises every name it encodes), so the stored tails are the canonical RDATA.
 * `keys` empty: this server cannot sign; a signature neither cached nor stored throws SignaturesPending.
 */
export const signRrset = (
  owner: Buffer,
  apexWire: Buffer,
  set: EncodedSet,
  keys: readonly OpenKey[],
  tags: readonly number[],
  algorithms: readonly number[],
  signing: ZoneSigning,
  cache: SignatureCache | null,
  cacheKey: string,
  zone: string,
): Buffer[] => {
  const out: Buffer[] = [];
  let sorted: Buffer[] | null = null;
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    const hit = cache?.find(cacheKey, set.tails, set.ttl, signing, tag) ?? null;
    if (hit) {
      out.push(hit.rrsig);
      cache!.keep(cacheKey, hit);
      continue;
    }
    const k = keys.find((x) => x.tag === tag);
    const head = Buffer.allocUnsafe(18);
    head.writeUInt16BE(set.type, 0);
    head[2] = algorithms[i]!;
    head[3] = labelCount(owner);
    head.writeUInt32BE(set.ttl >>> 0, 4);
    head.writeUInt32BE(signing.expiration >>> 0, 8);
    head.writeUInt32BE(signing.inception >>> 0, 12);
    head.writeUInt16BE(tag, 16);
    sorted ??= [...set.tails].sort((a, b) => Buffer.compare(a.subarray(10), b.subarray(10)));
    const parts: Buffer[] = [head, apexWire];
    for (const t of sorted) {
      // Owner, type, class, original TTL, RDLENGTH, RDATA (RFC 4034 §3.1.8.1); duplicates were dropped at compile.
      parts.push(owner, t);
    }
    const data = Buffer.concat(parts);
    const digest = cache ? digestOf(data) : '';
    let rrsig = cache?.findStored(cacheKey, tag, digest) ?? null;
    if (rrsig) {
      rrsig = rrsig.readUInt32BE(4) === set.ttl >>> 0 ? rrsig : withTtl(rrsig, set.ttl);
    } else {
      if (!k) throw new SignaturesPending(zone);
      rrsig = tailOf(RR.RRSIG, set.ttl, Buffer.concat([head, apexWire, Buffer.alloc(SIGNATURE_LENGTH)]));
      if (cache?.deferred) cache.jobs.push({ key: k, data, rrsig });
      else signData(k, data).copy(rrsig, rrsig.length - SIGNATURE_LENGTH);
      if (cache) {
        cache.made++;
        cache.fresh.push({ rrset: cacheKey, keyTag: tag, digest, rrsig });
      }
    }
    cache?.keep(cacheKey, {
      tails: set.tails,
      ttl: set.ttl,
      inception: signing.inception,
      expiration: signing.expiration,
      tag,
      digest,
      rrsig,
    });
    out.push(rrsig);
  }
  return out;
};

/** An RRSIG tail with another TTL (the negative answer's SOA: RFC 2308 §3 lowers its TTL, not the original TTL field). */
export const withTtl = (tail: Buffer, ttl: number): Buffer => {
  const b = Buffer.from(tail);
  b.writeUInt32BE(ttl >>> 0, 4);
  return b;
};

/** A canonical sort key of a presentation name (RFC 4034 §6.1): labels from the root down, octets unescaped. */
export const canonicalLabels = (name: string): string[] => {
  if (name === '') return [];
  const labels = name.split('.');
  const out = new Array<string>(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const l = labels[labels.length - 1 - i]!;
    out[i] = l.includes('\\') ? l.replace(/\\(\d{3}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(Number(e)) : e)) : l;
  }
  return out;
};

/** RFC 4034 §6.1 canonical order of two names given as canonicalLabels (lower case already). */
export const canonicalCompare = (a: readonly string[], b: readonly string[]): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
};

/** The DS digest input and the sets the apex carries for the keys: DNSKEY, and CDS/CDNSKEY when asked. */
export const keySets = (
  signing: ZoneSigning,
  ttl: number,
  ds: (k: ZoneSigningKey) => Buffer,
): { dnskey: EncodedSet; cds: EncodedSet | null; cdnskey: EncodedSet | null } => {
  const published = signing.keys.filter((k) => k.published);
  const dnskey = encodedSet(
    RR.DNSKEY,
    ttl,
    [...published, ...(signing.foreign ?? [])].map((k) => tailOf(RR.DNSKEY, ttl, dnskeyRdata(k))),
  );
  if (!signing.cds) return { dnskey, cds: null, cdnskey: null };
  const active = signing.keys.filter((k) => k.signing && k.flags === 257);
  return {
    dnskey,
    cds: encodedSet(
      RR.CDS,
      ttl,
      active.map((k) => tailOf(RR.CDS, ttl, ds(k))),
    ),
    cdnskey: encodedSet(
      RR.CDNSKEY,
      ttl,
      active.map((k) => tailOf(RR.CDNSKEY, ttl, dnskeyRdata(k))),
    ),
  };
};

export { T };
