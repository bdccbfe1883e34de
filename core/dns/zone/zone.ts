import type { Environment } from '../../kernel/environment.js';
import type { RecordSet } from './record-set.js';
import type { ZoneSigning } from './zone-signing.js';

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
