import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import type { ZoneService } from '../dns/zone/zone-service.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { DnssecTimings } from './dnssec-timings.js';
import type { DnssecCrypto } from './ports/dnssec-crypto.port.js';
import type { DnssecRepository } from './ports/dnssec-repository.port.js';

/**
 * What the dnssec use cases are built from. `clock` is real time: signature windows never follow the
 * sandbox clock (a signature dated by it would be refused by every validator).
 */
export interface DnssecDeps extends RecordingDeps {
  readonly zones: ZoneRepository;
  readonly zoneService: ZoneService;
  readonly dnssec: DnssecRepository;
  readonly crypto: DnssecCrypto;
  readonly box: SecretBox;
  /** Account time for schedules (rollovers, switch-off): the sandbox clock for test zones. Default: `clock`. */
  readonly time?: AccountClock;
  readonly timings?: DnssecTimings;
}
