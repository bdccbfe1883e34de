import type { Environment } from '../../kernel/environment.js';
import type { RecordSet } from './record-set.js';

/** A zone: the domain's record sets, including the service's apex SOA and NS. */
export interface Zone {
  readonly domain: string;
  readonly serial: number;
  readonly recordSets: readonly RecordSet[];
  /** False for a hosted zone not yet verified: stored and editable, never answered, transferred or NOTIFYed. */
  readonly served?: boolean;
}

export interface StoredZone extends Zone {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
}
