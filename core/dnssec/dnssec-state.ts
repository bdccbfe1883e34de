import type { ZoneSigning } from '../dns/zone/zone-signing.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { DnssecAlgorithm } from './dnskey.js';

/**
 * A zone's DNSSEC: one CSK (a single key, flags 257, that signs everything) rather than a KSK and a ZSK.
 * The split exists so that the key whose hash sits at the parent (KSK) can stay offline and rarely change
 * while the online ZSK rolls often; here both keys would live in the same store and the same process, so
 * the split buys nothing but a larger DNSKEY set and two rollover schedules (Knot, PowerDNS and
 * Cloudflare default to a single key for the same reason).
 */
export type DnssecStatus = 'signed' | 'ds_pending' | 'secure' | 'rolling' | 'disabling';

/**
 * Where a key stands, as two facts the signer reads (core/dns/zone/zone-signing.ts):
 * - active: in the DNSKEY set and signing;
 * - published: in the DNSKEY set only (a new key waiting for caches to learn it, or an old one leaving);
 * - signing: signing without being in the DNSKEY set (an algorithm rollover, RFC 6781 §4.1.4: the new
 *   algorithm's signatures come before its DNSKEY, the old algorithm's signatures go after its DNSKEY);
 * - retired: gone from the zone.
 */
export type DnssecKeyState = 'active' | 'published' | 'signing' | 'retired';

export interface DnssecKey {
  readonly id: string;
  readonly tag: number;
  readonly algorithm: DnssecAlgorithm;
  readonly flags: number;
  readonly role: 'csk';
  readonly state: DnssecKeyState;
  readonly publicKey: string;
  /** PKCS#8, sealed with the secret box. Never logged, never answered. */
  readonly sealedPrivateKey: string;
  /** The DS in presentation form: "<tag> <alg> 2 <hex>". */
  readonly ds: string;
  /** Real time. */
  readonly createdAt: Date;
  /** Schedule times (account time: the sandbox clock for test domains), when they happened. */
  readonly publishedAt?: Date | null;
  readonly activeAt?: Date | null;
  readonly retiredAt?: Date | null;
}

/**
 * The steps of a rollover, in order (rollover.ts): a CSK rollover pre-publishes the new key, then both
 * keys sign (double signatures: the DNSKEY set stays signed by the key the parent's DS names), the DS is
 * replaced, the old key stops signing, then leaves the DNSKEY set. An algorithm rollover (RFC 6781
 * §4.1.4) signs with the new algorithm first, publishes its DNSKEY, replaces the DS, removes the old
 * DNSKEY, then the old signatures.
 */
export type RolloverStep =
  'prepublish' | 'double_sign' | 'new_signatures' | 'new_dnskey' | 'ds_replaced' | 'old_unsigned' | 'old_dnskey_removed' | 'done';

export interface RolloverEntry {
  readonly step: RolloverStep | 'started' | 'ds_replace_failed' | 'ds_left_to_owner';
  /** Account time. */
  readonly at: Date;
  readonly note?: string;
}

export interface Rollover {
  readonly kind: 'csk' | 'algorithm';
  /** The step reached: the next one runs at `nextAt`. */
  readonly step: RolloverStep;
  /** Account time of the next step. */
  readonly nextAt: Date;
  readonly startedAt: Date;
  readonly oldKeyId: string;
  readonly newKeyId: string;
  readonly oldKeyTag: number;
  readonly newKeyTag: number;
  readonly history: readonly RolloverEntry[];
}

/**
 * Another operator's DNSKEY that our DNSKEY set carries (RFC 8901 §2.1.2, model 2: every operator signs
 * the zone with its own keys and publishes the others' zone-signing keys), so a resolver that learnt the
 * DNSKEY set from one operator validates answers signed by the other. Published only: no private part,
 * never signs. The algorithm must be the zone's own (RFC 4035 §2.2: every algorithm in the DNSKEY set
 * signs every RRset, which we cannot do with another operator's key).
 */
export interface ForeignDnskey {
  readonly tag: number;
  readonly algorithm: number;
  readonly flags: number;
  readonly publicKey: string;
  /** Real time. */
  readonly addedAt: Date;
  /** Whose key it is, in the owner's words ("the old provider"); null when not given. */
  readonly note: string | null;
}

/** At most this many other operators' keys: each one grows every DNSKEY answer. */
export const FOREIGN_KEY_LIMIT = 4;

export interface DnssecState {
  readonly zoneId: string;
  readonly domain: string;
  readonly algorithm: DnssecAlgorithm;
  readonly status: DnssecStatus;
  /** The parent holds our DS (the zone is then "secure"; turning signing off must remove it first). */
  readonly dsAtParent: boolean;
  /** When the current signature window started, in real time (never the sandbox clock). */
  readonly windowStart: Date;
  readonly enabledAt: Date;
  readonly keys: readonly DnssecKey[];
  /** While switching off (status "disabling"): when signing stops, account time; null otherwise. */
  readonly stopSigningAt?: Date | null;
  /** A rollover under way (status "rolling"); null otherwise. */
  readonly rollover?: Rollover | null;
  /** When the automatic CSK rollover starts (account time): the active key's lifetime is over then. */
  readonly nextRolloverAt?: Date | null;
  /** The last finished rollover, kept for its timeline (GET …/dnssec, the console). */
  readonly lastRollover?: Rollover | null;
  /** Other operators' keys in our DNSKEY set (a signed zone moving in or out, RFC 8901 model 2). */
  readonly foreignKeys?: readonly ForeignDnskey[];
}

/** The steps in which every signing key is also in the DNSKEY set, so CDS may name them all (RFC 7344 §4.1). */
const CDS_STEPS: readonly RolloverStep[] = ['double_sign', 'new_dnskey', 'ds_replaced', 'old_unsigned'];

const PUBLISHED: Readonly<Record<DnssecKeyState, boolean>> = { active: true, published: true, signing: false, retired: false };
const SIGNING: Readonly<Record<DnssecKeyState, boolean>> = { active: true, published: false, signing: true, retired: false };

/**
 * What the nameserver signs with (core/dns/zone/zone-signing.ts). CDS/CDNSKEY (RFC 7344, RFC 8078) are
 * published from the double-signing step of a rollover on, so that a parent that scans for them (or the
 * person copying the DS) sees the DS set wanted next.
 */
export const zoneSigningOf = (
  s: Pick<DnssecState, 'keys' | 'windowStart'> & Pick<Partial<DnssecState>, 'rollover' | 'foreignKeys'>,
): ZoneSigning => ({
  keys: s.keys
    .filter((k) => k.state !== 'retired')
    .map((k) => ({
      tag: k.tag,
      algorithm: k.algorithm,
      flags: k.flags,
      publicKey: k.publicKey,
      sealedPrivateKey: k.sealedPrivateKey,
      published: PUBLISHED[k.state],
      signing: SIGNING[k.state],
    })),
  ...signingWindow(s.windowStart),
  cds: !!s.rollover && CDS_STEPS.includes(s.rollover.step),
  ...(s.foreignKeys?.length
    ? { foreign: s.foreignKeys.map((k) => ({ flags: k.flags, algorithm: k.algorithm, publicKey: k.publicKey })) }
    : {}),
});

/** When the worker next has something to do for the zone (account time), or null. */
export const nextStepAt = (s: DnssecState): Date | null => s.stopSigningAt ?? s.rollover?.nextAt ?? s.nextRolloverAt ?? null;
