import { DomainError } from '../kernel/errors.js';
import { canonicalBase64, dnskeyRdata, isAlgorithm, keyTag } from './dnskey.js';
import type { DnssecCrypto } from './ports/dnssec-crypto.port.js';
import type { DnssecState, ForeignDnskey } from './dnssec-state.js';

/** Why another operator's DNSKEY is refused (the error's `problem`, with its own uk/en text). */
export type ForeignKeyProblem = 'format' | 'owner' | 'protocol' | 'flags' | 'algorithm' | 'public_key' | 'ours' | 'tag_taken' | 'present';

/** The zone-key flag (bit 7) and the Secure Entry Point flag (bit 15) of RFC 4034 §2.1.1; REVOKE (RFC 5011) is refused. */
const ZONE_KEY = 256;
const SEP = 1;

/** A DNSKEY as given: the RDATA in presentation form, or a whole record as `dig` prints it. */
export interface ParsedDnskey {
  readonly flags: number;
  readonly algorithm: number;
  readonly publicKey: string;
  readonly tag: number;
}

const invalid = (domain: string, problem: ForeignKeyProblem, extra: Record<string, string | number> = {}) =>
  new DomainError('dnssec_foreign_key_invalid', { domain, problem, ...extra });

/**
 * "256 3 13 <base64>" or "example.com. 3600 IN DNSKEY 256 3 13 <base64 in pieces>" (RFC 4034 §2.2): the
 * base64 may be split by spaces, as zone files and `dig` print it. A record's owner must be the zone.
 */
export const parseDnskey = (domain: string, input: string): ParsedDnskey => {
  const tokens = input.replace(/[()]/g, ' ').trim().split(/\s+/).filter(Boolean);
  const at = tokens.findIndex((t) => t.toUpperCase() === 'DNSKEY');
  if (at > 0 && tokens[0]!.toLowerCase().replace(/\.$/, '') !== domain) throw invalid(domain, 'owner');
  const rdata = at >= 0 ? tokens.slice(at + 1) : tokens;
  const [flagsText, protocolText, algorithmText, ...key] = rdata;
  if (
    !flagsText ||
    !protocolText ||
    !algorithmText ||
    key.length === 0 ||
    ![flagsText, protocolText, algorithmText].every((t) => /^\d{1,5}$/.test(t))
  )
    throw invalid(domain, 'format');
  const flags = Number(flagsText);
  const algorithm = Number(algorithmText);
  if (Number(protocolText) !== 3) throw invalid(domain, 'protocol');
  if (flags > 0xffff || (flags & ~(ZONE_KEY | SEP)) !== 0 || (flags & ZONE_KEY) === 0) throw invalid(domain, 'flags', { flags });
  const typed = key.join('');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(typed)) throw invalid(domain, 'format');
  const publicKey = canonicalBase64(typed);
  return { flags, algorithm, publicKey, tag: keyTag(dnskeyRdata(flags, algorithm, publicKey)) };
};

/**
 * The checks a foreign key passes before it joins our DNSKEY set: the zone's own algorithm (RFC 4035
 * §2.2; RFC 8901 §10 notes that operators with different algorithms cannot share a zone), a real key of
 * that algorithm, not one of ours, and a key tag no other key of the zone has (a validator picks keys by
 * tag; a collision costs it a second try, and us a clear way to name the key to remove).
 */
export const checkForeignKey = (crypto: Pick<DnssecCrypto, 'isPublicKey'>, state: DnssecState, key: ParsedDnskey): void => {
  const domain = state.domain;
  if (key.algorithm !== state.algorithm || !isAlgorithm(key.algorithm))
    throw invalid(domain, 'algorithm', { algorithm: key.algorithm, zone_algorithm: state.algorithm });
  if (!crypto.isPublicKey(key.algorithm, key.publicKey)) throw invalid(domain, 'public_key');
  if (state.keys.some((k) => canonicalBase64(k.publicKey) === key.publicKey)) throw invalid(domain, 'ours');
  const present = (state.foreignKeys ?? []).find((k) => k.publicKey === key.publicKey);
  if (present) throw invalid(domain, 'present', { flags: present.flags });
  const taken = [...state.keys.filter((k) => k.state !== 'retired').map((k) => k.tag), ...(state.foreignKeys ?? []).map((k) => k.tag)];
  if (taken.includes(key.tag)) throw invalid(domain, 'tag_taken', { key_tag: key.tag });
};

/** The DNSKEY RDATA in presentation form, as GET …/dnssec shows every key. */
export const presentDnskey = (k: { flags: number; algorithm: number; publicKey: string }): string =>
  `${k.flags} 3 ${k.algorithm} ${k.publicKey}`;

/** The state without the given foreign keys (presentation forms), and the keys that left. */
export const withoutForeignKeys = <S extends DnssecState>(
  state: S,
  dnskeys: readonly string[],
): { next: S; gone: readonly ForeignDnskey[] } => {
  const leaving = new Set(dnskeys);
  const all = state.foreignKeys ?? [];
  return {
    next: { ...state, foreignKeys: all.filter((k) => !leaving.has(presentDnskey(k))) },
    gone: all.filter((k) => leaving.has(presentDnskey(k))),
  };
};

/** Digest types a DS may use here: SHA-256 (RFC 4509) and SHA-384 (RFC 6605); SHA-1 is not to be published (RFC 8624 §3.3). */
const DIGEST_HEX: Readonly<Record<number, number>> = { 2: 64, 4: 96 };

/**
 * A DS in presentation form ("<tag> <algorithm> <digest type> <hex>", RFC 4034 §5.3; the owner and class
 * of a whole record as dig prints it are accepted and dropped), normalised: one space, hex upper case.
 */
export const parseDs = (domain: string, input: string): string => {
  const tokens = input.trim().split(/\s+/).filter(Boolean);
  const at = tokens.findIndex((t) => t.toUpperCase() === 'DS');
  if (at > 0 && tokens[0]!.toLowerCase().replace(/\.$/, '') !== domain)
    throw new DomainError('dnssec_ds_invalid', { domain, ds: input.slice(0, 200) });
  const [tag, algorithm, type, ...hex] = at >= 0 ? tokens.slice(at + 1) : tokens;
  const digest = hex.join('').toUpperCase();
  const ok =
    /^\d{1,5}$/.test(tag ?? '') &&
    Number(tag) <= 0xffff &&
    /^\d{1,3}$/.test(algorithm ?? '') &&
    Number(algorithm) >= 1 &&
    Number(algorithm) <= 255 &&
    /^\d$/.test(type ?? '') &&
    DIGEST_HEX[Number(type)] === digest.length &&
    /^[0-9A-F]+$/.test(digest);
  if (!ok) throw new DomainError('dnssec_ds_invalid', { domain, ds: input.slice(0, 200) });
  return `${Number(tag)} ${Number(algorithm)} ${Number(type)} ${digest}`;
};
