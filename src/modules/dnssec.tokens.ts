import { token } from './token.js';
import type { EnableDnssec } from '../../core/dnssec/enable-dnssec.use-case.js';
import type { AddForeignDnskey } from '../../core/dnssec/add-foreign-key.use-case.js';
import type { RemoveForeignDnskey } from '../../core/dnssec/remove-foreign-key.use-case.js';
import type { ReadDnssec } from '../../core/dnssec/read-dnssec.use-case.js';
import type { DisableDnssec } from '../../core/dnssec/disable-dnssec.use-case.js';
import type { RefreshSignatures } from '../../core/dnssec/refresh-signatures.use-case.js';
import type { DnssecCrypto } from '../../core/dnssec/ports/dnssec-crypto.port.js';
import type { RunDnssecSchedule } from '../../core/dnssec/run-dnssec-schedule.use-case.js';
import type { SwitchOffDnssec } from '../../core/operations/switch-off-dnssec.use-case.js';

/** Injection tokens of the dnssec capability. */
export const DNSSEC_TOKENS = {
  DnssecCrypto: token<DnssecCrypto>('DnssecCrypto'),
  EnableDnssec: token<EnableDnssec>('EnableDnssec'),
  AddForeignDnskey: token<AddForeignDnskey>('AddForeignDnskey'),
  RemoveForeignDnskey: token<RemoveForeignDnskey>('RemoveForeignDnskey'),
  ReadDnssec: token<ReadDnssec>('ReadDnssec'),
  DisableDnssec: token<DisableDnssec>('DisableDnssec'),
  RefreshSignatures: token<RefreshSignatures>('RefreshSignatures'),
  RunDnssecSchedule: token<RunDnssecSchedule>('RunDnssecSchedule'),
  SwitchOffDnssec: token<SwitchOffDnssec>('SwitchOffDnssec'),
} as const;
