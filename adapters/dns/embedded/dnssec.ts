import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
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
 * and an RRset whose records, TTL, key and window are the same gets its old signature back.
 */

export const RR = { RRSIG: 46, NSEC: 47, DNSKEY: 48, CDS: 59, CDNSKEY: 60, DS: 43 } as const;

/** The DNSKEY RDATA: flags, protocol 3, algorithm, public key (RFC 4034 §2.1). */
export const dnskeyRdata = (k: Pick<ZoneSigningKey, 'flags' | 'algorithm' | 'publicKey'>): Buffer => {
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
const signData = (k: OpenKey, data: Buffer): Buffer =>
  k.algorithm === 13 ? sign('sha256', data, { key: k.key, dsaEncoding: 'ieee-p1363' }) : sign(null, data, k.key);

/** What a signature was made over, to give it back when nothing changed. */
interface CachedSig {
  readonly tails: readonly Buffer[];
  readonly ttl: number;
  readonly inception: number;
  readonly expiration: number;
  readonly tag: number;
  readonly rrsig: Buffer;
}

/** The signatures of one zone's last compile, by owner and type, so a change re-signs only what it changed. */
export class SignatureCache {
  private sigs = new Map<string, CachedSig[]>();
  private next = new Map<string, CachedSig[]>();
  /** Signatures made (not reused) by the last compile: for tests and logs. */
  made = 0;

  begin(): void {
    this.next = new Map();
    this.made = 0;
  }

  /** Keeps only what the compile just done used. */
  commit(): void {
    this.sigs = this.next;
  }

  find(key: string, tails: readonly Buffer[], ttl: number, signing: ZoneSigning, tag: number): Buffer | null {
    const list = this.sigs.get(key);
    if (!list) return null;
    for (const c of list) {
      if (c.tag !== tag || c.ttl !== ttl || c.inception !== signing.inception || c.expiration !== signing.expiration) continue;
      if (c.tails.length !== tails.length) continue;
      let same = true;
      for (let i = 0; i < tails.length && same; i++) same = c.tails[i] === tails[i] || c.tails[i]!.equals(tails[i]!);
      if (same) return c.rrsig;
    }
    return null;
  }

  keep(key: string, c: CachedSig): void {
    const list = this.next.get(key);
    if (list) list.push(c);
    else this.next.set(key, [c]);
  }
}

/**
 * The RRSIG records (tails) over one RRset, one per signing key (RFC 4035 §2.2). The signed data is the
 * RRSIG RDATA without its signature, then each record in canonical form (owner lower case, uncompressed,
 * RDATA sorted as octet strings; RFC 4034 §3.1.8.1, §6.3). Our tails already hold lower-case, uncompressed
 * names (rdata.ts normalises every name it encodes), so the stored tails are the canonical RDATA.
 */
export const signRrset = (
  owner: Buffer,
  apexWire: Buffer,
  set: EncodedSet,
  keys: readonly OpenKey[],
  signing: ZoneSigning,
  cache: SignatureCache | null,
  cacheKey: string,
): Buffer[] => {
  const out: Buffer[] = [];
  let sorted: Buffer[] | null = null;
  for (const k of keys) {
    const hit = cache?.find(cacheKey, set.tails, set.ttl, signing, k.tag) ?? null;
    if (hit) {
      out.push(hit);
      cache!.keep(cacheKey, {
        tails: set.tails,
        ttl: set.ttl,
        inception: signing.inception,
        expiration: signing.expiration,
        tag: k.tag,
        rrsig: hit,
      });
      continue;
    }
    const head = Buffer.allocUnsafe(18);
    head.writeUInt16BE(set.type, 0);
    head[2] = k.algorithm;
    head[3] = labelCount(owner);
    head.writeUInt32BE(set.ttl >>> 0, 4);
    head.writeUInt32BE(signing.expiration >>> 0, 8);
    head.writeUInt32BE(signing.inception >>> 0, 12);
    head.writeUInt16BE(k.tag, 16);
    sorted ??= [...set.tails].sort((a, b) => Buffer.compare(a.subarray(10), b.subarray(10)));
    const parts: Buffer[] = [head, apexWire];
    for (const t of sorted) {
      // Owner, type, class, original TTL, RDLENGTH, RDATA (RFC 4034 §3.1.8.1); duplicates were dropped at compile.
      parts.push(owner, t);
    }
    const sig = signData(k, Buffer.concat(parts));
    const rrsig = tailOf(RR.RRSIG, set.ttl, Buffer.concat([head, apexWire, sig]));
    cache?.keep(cacheKey, {
      tails: set.tails,
      ttl: set.ttl,
      inception: signing.inception,
      expiration: signing.expiration,
      tag: k.tag,
      rrsig,
    });
    if (cache) cache.made++;
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
    published.map((k) => tailOf(RR.DNSKEY, ttl, dnskeyRdata(k))),
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
