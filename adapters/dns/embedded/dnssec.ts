import { createPrivateKey, hash, sign, type KeyObject } from 'node:crypto';
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

/** Scratch for typeBitmap: 32 octets of bits and the octets in use, per window. */
const bitmapBits = new Uint8Array(256 * 32);
const bitmapLengths = new Uint8Array(256);

/** RFC 4034 §4.1.2: the type bit maps field for a set of types. */
export const typeBitmap = (types: Iterable<number>): Buffer => {
  const windows: number[] = [];
  for (const t of types) {
    const w = t >> 8;
    const octet = (t & 0xff) >> 3;
    if (bitmapLengths[w] === 0) windows.push(w);
    bitmapBits[w * 32 + octet]! |= 0x80 >> (t & 7);
    if (octet + 1 > bitmapLengths[w]!) bitmapLengths[w] = octet + 1;
  }
  windows.sort((a, b) => a - b);
  let length = 0;
  for (const w of windows) length += 2 + bitmapLengths[w]!;
  const b = Buffer.allocUnsafe(length);
  let at = 0;
  for (const w of windows) {
    const len = bitmapLengths[w]!;
    b[at] = w;
    b[at + 1] = len;
    b.set(bitmapBits.subarray(w * 32, w * 32 + len), at + 2);
    at += 2 + len;
    bitmapBits.fill(0, w * 32, w * 32 + 32);
    bitmapLengths[w] = 0;
  }
  return b;
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
export const digestOf = (data: Buffer): string => hash('sha256', data, 'buffer').toString('base64', 0, 16);

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
  /**
   * What the store holds of this zone, to drop what a compile no longer uses: the signatures of the last
   * compile (`sigs`, unless a full read since said otherwise: `sigsStored`), and `storedKeys`
   * (`${rrset}#${tag}`), read from the store beyond them. Nothing is kept per signature while compiling.
   */
  private sigsStored = true;
  private storedKeys = new Set<string>();
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
  /**
   * With `deferred`: takes the jobs laid out so far whenever `flushAt` of them wait, so that they are signed
   * (on other threads) while the compile lays out the rest (compileZoneAsync); what is left at the end stays in `jobs`.
   */
  flush: ((jobs: SigningJob[]) => void) | null = null;
  flushAt = 2048;

  /** Merges signatures read from the store (all of them when `full`, else those newer than `generation`). */
  load(rows: readonly SignatureRow[], generation: number, full: boolean): void {
    if (full) {
      this.stored = new Map();
      this.sigsStored = false;
      this.storedKeys = new Set();
    }
    for (const r of rows) {
      const list = this.stored.get(r.rrset)?.filter((x) => x.tag !== r.keyTag) ?? [];
      list.push({ tag: r.keyTag, digest: r.digest, rrsig: tailOf(RR.RRSIG, 0, Buffer.from(r.rdata, 'base64')) });
      this.stored.set(r.rrset, list);
      this.storedKeys.add(`${r.rrset}#${r.keyTag}`);
    }
    this.generation = generation;
  }

  /** Forgets everything (the store was written by another signer: read it again). */
  reset(): void {
    this.sigs = new Map();
    this.stored = new Map();
    this.sigsStored = true;
    this.storedKeys = new Set();
    this.generation = -1;
  }

  begin(): void {
    this.next = new Map();
    this.made = 0;
    this.fresh = [];
    this.dropped = [];
    this.jobs = [];
  }

  /** Keeps only what the compile just done used; what the store holds beyond it is `dropped`. */
  commit(): void {
    const next = this.next;
    if (this.sigsStored) {
      for (const [key, list] of this.sigs) {
        for (const c of list) if (!hasTag(next.get(key), c.tag)) this.dropped.push({ rrset: key, keyTag: c.tag });
      }
    }
    for (const k of this.storedKeys) {
      const at = k.lastIndexOf('#');
      const key = k.slice(0, at);
      const tag = Number(k.slice(at + 1));
      if (hasTag(next.get(key), tag) || (this.sigsStored && hasTag(this.sigs.get(key), tag))) continue;
      this.dropped.push({ rrset: key, keyTag: tag });
    }
    this.sigs = next;
    this.sigsStored = true;
    this.storedKeys = new Set();
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
    for (const key of keys) {
      const next = this.next.get(key);
      const last = this.sigs.get(key);
      const tagsOf = new Set<number>(tags);
      for (const c of last ?? []) tagsOf.add(c.tag);
      for (const s of this.stored.get(key) ?? []) tagsOf.add(s.tag);
      for (const tag of tagsOf) {
        const k = `${key}#${tag}`;
        // Used: stored once this update is (sigs below, or storedKeys when sigs do not say what is stored).
        if (hasTag(next, tag)) {
          if (!this.sigsStored) this.storedKeys.add(k);
        } else if (this.storedKeys.delete(k) || (this.sigsStored && hasTag(last, tag))) {
          this.dropped.push({ rrset: key, keyTag: tag });
        }
      }
      if (next) this.sigs.set(key, next);
      else this.sigs.delete(key);
    }
    this.next = new Map();
    this.stored = new Map();
  }

  /** The compile failed: what it did is forgotten, the signatures from before are kept. */
  abort(): void {
    this.next = new Map();
    this.fresh = [];
    this.jobs = [];
  }

  /** A signature laid out, to be signed in bulk. */
  defer(job: SigningJob): void {
    this.jobs.push(job);
    if (this.flush && this.jobs.length >= this.flushAt) {
      const jobs = this.jobs;
      this.jobs = [];
      this.flush(jobs);
    }
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
  }
}

const hasTag = (list: readonly CachedSig[] | undefined, tag: number): boolean => {
  if (list) for (const c of list) if (c.tag === tag) return true;
  return false;
};

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
  let sorted: readonly Buffer[] | null = null;
  for (let i = 0; i < tags.length; i++) {
    const tag = tags[i]!;
    const hit = cache?.find(cacheKey, set.tails, set.ttl, signing, tag) ?? null;
    if (hit) {
      out.push(hit.rrsig);
      cache!.keep(cacheKey, hit);
      continue;
    }
    const k = keys.find((x) => x.tag === tag);
    sorted ??= set.tails.length < 2 ? set.tails : [...set.tails].sort((a, b) => Buffer.compare(a.subarray(10), b.subarray(10)));
    // The signed data in one buffer: the RRSIG RDATA without its signature (type covered, algorithm, labels,
    // original TTL, expiration, inception, key tag, signer's name), then owner, type, class, original TTL,
    // RDLENGTH, RDATA of each record (RFC 4034 §3.1.8.1); duplicates were dropped at compile.
    const head = 18 + apexWire.length;
    let length = head;
    for (const t of sorted) length += owner.length + t.length;
    const data = Buffer.allocUnsafe(length);
    data.writeUInt16BE(set.type, 0);
    data[2] = algorithms[i]!;
    data[3] = labelCount(owner);
    data.writeUInt32BE(set.ttl >>> 0, 4);
    data.writeUInt32BE(signing.expiration >>> 0, 8);
    data.writeUInt32BE(signing.inception >>> 0, 12);
    data.writeUInt16BE(tag, 16);
    let at = 18 + apexWire.copy(data, 18);
    for (const t of sorted) {
      at += owner.copy(data, at);
      at += t.copy(data, at);
    }
    const digest = cache ? digestOf(data) : '';
    let rrsig = cache?.findStored(cacheKey, tag, digest) ?? null;
    if (rrsig) {
      rrsig = rrsig.readUInt32BE(4) === set.ttl >>> 0 ? rrsig : withTtl(rrsig, set.ttl);
    } else {
      if (!k) throw new SignaturesPending(zone);
      rrsig = rrsigTail(set.ttl, data, head);
      if (cache?.deferred) cache.defer({ key: k, data, rrsig });
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

/** An RRSIG tail laid out from the first `head` octets of its signed data (its RDATA but the signature), the signature zero. */
const rrsigTail = (ttl: number, data: Buffer, head: number): Buffer => {
  const rdlength = head + SIGNATURE_LENGTH;
  const b = Buffer.allocUnsafe(10 + rdlength);
  b.writeUInt16BE(RR.RRSIG, 0);
  b.writeUInt16BE(1, 2);
  b.writeUInt32BE(ttl >>> 0, 4);
  b.writeUInt16BE(rdlength, 8);
  data.copy(b, 10, 0, head);
  b.fill(0, 10 + head);
  return b;
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
