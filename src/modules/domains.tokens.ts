import { token } from './token.js';
import type { ProcessRegistryMessages } from '../../core/domains/process-registry-messages.use-case.js';
import type { GetDomain, ListDomains } from '../../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../../core/domains/search-domains.use-case.js';
import type { AdvanceLifecycle } from '../../core/domains/advance-lifecycle.use-case.js';
import type { RegisterDomain } from '../../core/domains/register-domain.use-case.js';
import type { RenewDomain } from '../../core/domains/renew-domain.use-case.js';
import type { SetAutoRenew } from '../../core/domains/set-auto-renew.use-case.js';
import type { RevealTransferCode } from '../../core/domains/reveal-transfer-code.use-case.js';
import type { ChangeRegistrant } from '../../core/domains/change-registrant.use-case.js';
import type { TransferSettlement } from '../../core/domains/transfer-settlement.js';
import type { RequestTransfer } from '../../core/domains/request-transfer.use-case.js';
import type { CancelTransfer } from '../../core/domains/cancel-transfer.use-case.js';
import type { ReadTransfers } from '../../core/domains/read-transfers.use-case.js';
import type { AdvanceTransfers } from '../../core/domains/advance-transfers.use-case.js';
import type { KeepZoneAfterTransferOut, NoteTransferOut, RejectTransferOut } from '../../core/domains/transfer-out.use-case.js';
import type { SimulateTransferOut } from '../../core/sandbox/simulate-transfer-out.use-case.js';
import type { HostDomain } from '../../core/domains/host-domain.use-case.js';
import type { VerifyHosting } from '../../core/domains/verify-hosting.use-case.js';
import type { RecheckHosting } from '../../core/domains/recheck-hosting.use-case.js';

/** Injection tokens of the domains capability (src/ binds them by explicit token; core/ has no decorators). */
export const DOMAINS_TOKENS = {
  GetDomain: token<GetDomain>('GetDomain'),
  ListDomains: token<ListDomains>('ListDomains'),
  SearchDomains: token<SearchDomains>('SearchDomains'),
  RegisterDomain: token<RegisterDomain>('RegisterDomain'),
  RenewDomain: token<RenewDomain>('RenewDomain'),
  SetAutoRenew: token<SetAutoRenew>('SetAutoRenew'),
  AdvanceLifecycle: token<AdvanceLifecycle>('AdvanceLifecycle'),
  RevealTransferCode: token<RevealTransferCode>('RevealTransferCode'),
  ChangeRegistrant: token<ChangeRegistrant>('ChangeRegistrant'),
  ProcessRegistryMessages: token<ProcessRegistryMessages>('ProcessRegistryMessages'),
  TransferSettlement: token<TransferSettlement>('TransferSettlement'),
  RequestTransfer: token<RequestTransfer>('RequestTransfer'),
  CancelTransfer: token<CancelTransfer>('CancelTransfer'),
  ReadTransfers: token<ReadTransfers>('ReadTransfers'),
  AdvanceTransfers: token<AdvanceTransfers>('AdvanceTransfers'),
  NoteTransferOut: token<NoteTransferOut>('NoteTransferOut'),
  RejectTransferOut: token<RejectTransferOut>('RejectTransferOut'),
  KeepZoneAfterTransferOut: token<KeepZoneAfterTransferOut>('KeepZoneAfterTransferOut'),
  SimulateTransferOut: token<SimulateTransferOut>('SimulateTransferOut'),
  HostDomain: token<HostDomain>('HostDomain'),
  VerifyHosting: token<VerifyHosting>('VerifyHosting'),
  RecheckHosting: token<RecheckHosting>('RecheckHosting'),
} as const;
