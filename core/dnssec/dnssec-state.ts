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

export interface DnssecKey {
  readonly id: string;
  readonly tag: number;
  readonly algorithm: DnssecAlgorithm;
  readonly flags: number;
  readonly role: 'csk';
  /** active: published and signing; published: in the DNSKEY set only; retired: gone from the zone. */
  readonly state: 'active' | 'published' | 'retired';
  readonly publicKey: string;
  /** PKCS#8, sealed with the secret box. Never logged, never answered. */
  readonly sealedPrivateKey: string;
  /** The DS in presentation form: "<tag> <alg> 2 <hex>". */
  readonly ds: string;
  readonly createdAt: Date;
}

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
}

/** What the nameserver signs with (core/dns/zone/zone-signing.ts). */
export const zoneSigningOf = (s: Pick<DnssecState, 'keys' | 'windowStart'>): ZoneSigning => ({
  keys: s.keys
    .filter((k) => k.state !== 'retired')
    .map((k) => ({
      tag: k.tag,
      algorithm: k.algorithm,
      flags: k.flags,
      publicKey: k.publicKey,
      sealedPrivateKey: k.sealedPrivateKey,
      published: true,
      signing: k.state === 'active',
    })),
  ...signingWindow(s.windowStart),
  cds: false,
});
