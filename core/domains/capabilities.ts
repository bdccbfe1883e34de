import { DomainError } from '../kernel/errors.js';
import type {
  DsRemoval,
  DsSetting,
  NameserverControl,
  RegistrantControl,
  Registering,
  Registrar,
  RegistrarCapability,
  Renewing,
  TransferCodes,
  TransferLockControl,
  TransferRequesting,
  TransferQuerying,
  TransferCancelling,
  TransferRejecting,
} from './ports/registrar.port.js';

type Ability = {
  register: Registering;
  renew: Renewing;
  nameservers: NameserverControl;
  transfer_lock: TransferLockControl;
  transfer_code: TransferCodes;
  registrant: RegistrantControl;
  transfer_request: TransferRequesting;
  transfer_query: TransferQuerying;
  transfer_cancel: TransferCancelling;
  transfer_reject: TransferRejecting;
  ds_set: DsSetting;
  ds_remove: DsRemoval;
};

const method: Record<RegistrarCapability, string> = {
  register: 'register',
  renew: 'renew',
  nameservers: 'setNameservers',
  transfer_lock: 'setTransferLock',
  transfer_code: 'transferCode',
  registrant: 'changeRegistrant',
  transfer_request: 'requestTransfer',
  transfer_query: 'queryTransfer',
  transfer_cancel: 'cancelTransfer',
  transfer_reject: 'rejectTransfer',
  ds_set: 'setDs',
  ds_remove: 'removeDs',
};

/** Every capability the registrar port defines: what a full adapter (the sandbox, EPP) declares. */
export const ALL_REGISTRAR_CAPABILITIES: readonly RegistrarCapability[] = Object.keys(method) as RegistrarCapability[];

/** Returns the registrar narrowed to an ability, or refuses with `registrar_capability_missing`. */
export const requireCapability = <C extends RegistrarCapability>(registrar: Registrar, capability: C): Registrar & Ability[C] => {
  const fn = (registrar as unknown as Record<string, unknown>)[method[capability]];
  if (!registrar.capabilities.has(capability) || typeof fn !== 'function') {
    throw new DomainError('registrar_capability_missing', { registrar: registrar.name, capability });
  }
  return registrar as Registrar & Ability[C];
};
