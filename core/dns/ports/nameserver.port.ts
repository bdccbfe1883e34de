import type { Zone } from '../zone/zone.js';

/**
 * The authoritative nameserver that answers for our zones (issue 4: "an adapter behind a nameserver
 * port"). The store stays the source of truth: the caller publishes a zone after every apply and at
 * start-up, and withdraws it when the domain leaves us.
 */
export interface Nameserver {
  /** Which optional abilities this nameserver has (STYLE 3: declared, never a silent no-op). */
  readonly capabilities: readonly NameserverCapability[];
  /**
   * Serves `zone` in place of any earlier version. Resolves once the new answers are served: the
   * very next query sees them. Secondaries are told in the background (see ZoneTransfers); publish
   * never waits for them.
   */
  publish(zone: Zone): Promise<void>;
  /** Stops answering for `domain` (its names are then refused, or answered by a parent zone we hold). */
  withdraw(domain: string): Promise<void>;
}

export type NameserverCapability = 'zone_transfers';

/** Outcome of telling one secondary that a zone changed (RFC 1996 NOTIFY). */
export interface NotifyOutcome {
  readonly secondary: string;
  readonly acknowledged: boolean;
  readonly attempts: number;
}

/**
 * Optional ability: secondaries (Knot, NSD…) copy our zones by AXFR and are told of changes with
 * NOTIFY, so they can serve the zones at scale.
 */
export interface ZoneTransfers {
  /**
   * Sends NOTIFY for `domain` to every configured secondary, retrying until each acknowledges or the
   * retries run out. `publish` already does this in the background; call it to wait for the outcome.
   */
  notifySecondaries(domain: string): Promise<readonly NotifyOutcome[]>;
}

export const hasZoneTransfers = (ns: Nameserver): ns is Nameserver & ZoneTransfers =>
  ns.capabilities.includes('zone_transfers') && typeof (ns as Partial<ZoneTransfers>).notifySecondaries === 'function';
