import type { Environment } from '../../kernel/environment.js';
import type { RecordSet } from './record-set.js';
import type { ZoneSigning } from './zone-signing.js';
import type { ZoneSets } from './zone-sets.js';

/** A zone: the domain's record sets, including the service's apex SOA and NS. */
export interface Zone {
  readonly domain: string;
  readonly serial: number;
  readonly recordSets: readonly RecordSet[];
  /** Present when the zone is signed (DNSSEC): the nameserver signs it when it compiles it. */
  readonly signing?: ZoneSigning;
  /** False for a hosted zone not yet verified: stored and editable, never answered, transferred or NOTIFYed. */
  readonly served?: boolean;
}

export interface StoredZone extends Zone {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
}

/**
 * A stored zone with its sets indexed (`recordSets` is `sets` listed, on first use): what plans are built,
 * checked and committed on without walking the zone.
 */
export interface IndexedZone extends StoredZone {
  readonly sets: ZoneSets;
}

export const indexedZone = (head: Omit<StoredZone, 'recordSets'>, sets: ZoneSets): IndexedZone => ({
  id: head.id,
  accountId: head.accountId,
  environment: head.environment,
  domain: head.domain,
  serial: head.serial,
  ...(head.served !== undefined ? { served: head.served } : {}),
  ...(head.signing ? { signing: head.signing } : {}),
  sets,
  get recordSets() {
    return sets.toArray();
  },
});

export const isIndexed = (zone: StoredZone): zone is IndexedZone => 'sets' in zone;
