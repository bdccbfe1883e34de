import type { Environments } from '../../kernel/environments.port.js';
/**
 * The registrar port (design card: "pluggable registrar port"). Small on purpose: the core abilities
 * every registrar has, plus optional abilities as separate interfaces, declared in `capabilities`
 * (STYLE 3: a registrar that cannot do something says so, and the core answers with a clear error).
 */
export type RegistrarCapability =
  | 'register'
  | 'renew'
  | 'nameservers'
  | 'transfer_lock'
  | 'transfer_code'
  | 'registrant'
  | 'transfer_request'
  | 'transfer_query'
  | 'transfer_cancel'
  | 'transfer_reject'
  | DsCapability;

export interface Availability {
  readonly domain: string;
  readonly available: boolean;
  /** For a taken name: the date (YYYY-MM-DD) it is registered until, when the registry tells. */
  readonly registeredUntil: string | null;
}

export interface RegistryDomainInfo {
  readonly domain: string;
  readonly registeredUntil: string;
  readonly status: readonly string[];
  readonly nameservers: readonly string[];
}

/** Every write carries a client transaction id (EPP clTRID): a retry with the same id is a no-op
 * that returns the first result, so a crash between the registry call and our commit is recoverable. */
export interface RegisterRequest {
  readonly domain: string;
  readonly years: number;
  readonly nameservers: readonly string[];
  readonly clientTransactionId: string;
  /** The registrant's "today" (YYYY-MM-DD). Real registries use their own clock and ignore it; the
   * sandbox honours it so sandbox time travel stays coherent. */
  readonly today?: string;
}
export interface RenewRequest {
  readonly domain: string;
  readonly years: number;
  /** The expiry we believe is current (EPP renew's curExpDate), guarding against double renewals. */
  readonly currentExpiry: string;
  readonly clientTransactionId: string;
}
export interface RegistryResult {
  readonly domain: string;
  readonly registeredUntil: string;
}

export interface RegistrarBase {
  readonly name: string;
  readonly capabilities: ReadonlySet<RegistrarCapability>;
  check(domains: readonly string[]): Promise<Availability[]>;
  info(domain: string): Promise<RegistryDomainInfo | null>;
}
export interface Registering {
  register(req: RegisterRequest): Promise<RegistryResult>;
}
export interface Renewing {
  renew(req: RenewRequest): Promise<RegistryResult>;
}
export interface NameserverControl {
  setNameservers(domain: string, nameservers: readonly string[], clientTransactionId: string): Promise<void>;
}
export interface TransferLockControl {
  setTransferLock(domain: string, locked: boolean, clientTransactionId: string): Promise<void>;
}
export interface TransferCodes {
  transferCode(domain: string): Promise<string>;
}

/** The registrant (domain holder) as a registry contact object (RFC 5733 postal info, voice, email). */
export interface RegistrantContact {
  /** Person's name (postalInfo name). */
  readonly name: string;
  readonly organization?: string | null;
  readonly email: string;
  /** E.164 in EPP form, `+CC.NUMBER` (RFC 5733 §2.5), e.g. `+380.441234567`. */
  readonly phone?: string | null;
  readonly address: {
    readonly street: readonly string[];
    readonly city: string;
    readonly region?: string | null;
    readonly postalCode?: string | null;
    /** ISO 3166-1 alpha-2. */
    readonly countryCode: string;
  };
}

/** Changing the registrant (a human-only action, seed A6): EPP contact:create + domain:update <chg><registrant>. */
export interface RegistrantControl {
  changeRegistrant(domain: string, registrant: RegistrantContact, clientTransactionId: string): Promise<void>;
}

/**
 * Transfers between registrars (RFC 5731 §3.2.4, <domain:transfer op="request|query|cancel|reject">).
 * `trStatus` keeps the EPP names (RFC 5731 §3.2.4: pending, clientApproved, clientCancelled,
 * clientRejected, serverApproved, serverCancelled).
 */
export type TransferStatus = 'pending' | 'clientApproved' | 'clientCancelled' | 'clientRejected' | 'serverApproved' | 'serverCancelled';

export interface TransferState {
  readonly domain: string;
  readonly status: TransferStatus;
  /** Which side we are: `in` when we asked for the name (reID is our client id), `out` when another did (acID is ours). */
  readonly direction: 'in' | 'out';
  /** When it was asked for (ISO 8601, reDate) and when the losing side must have answered (acDate). */
  readonly requestedAt: string;
  readonly actionAt: string;
  /** The expiry (YYYY-MM-DD) after the transfer, when the registry tells (exDate). */
  readonly registeredUntil: string | null;
}

export interface TransferRequest {
  readonly domain: string;
  /** The authInfo the current holder gave (RFC 5731 §2.6): sent to the registry, never kept in clear. */
  readonly authCode: string;
  readonly years: number;
  readonly clientTransactionId: string;
  /** The requester's "now". Real registries use their own clock and ignore it; the sandbox honours it so
   * sandbox time travel stays coherent (as `RegisterRequest.today`). */
  readonly now?: Date;
}

export interface TransferRequesting {
  /** Asks for a name held at another registrar. Idempotent by client transaction id. Refusals: RegistryError
   * 'rejected' with refusal `registry_auth_info_invalid` (wrong code) or `registry_status_prohibits` (locked). */
  requestTransfer(req: TransferRequest): Promise<TransferState>;
}
export interface TransferQuerying {
  /** The latest transfer of a name, either direction (null: none the registry knows of). */
  queryTransfer(domain: string, now?: Date): Promise<TransferState | null>;
}
export interface TransferCancelling {
  /** The gaining side withdraws its own pending request. */
  cancelTransfer(domain: string, clientTransactionId: string, now?: Date): Promise<TransferState>;
}
export interface TransferRejecting {
  /** The losing side refuses a pending transfer of a name it holds. */
  rejectTransfer(domain: string, clientTransactionId: string, now?: Date): Promise<TransferState>;
}

/**
 * DNSSEC at the registry: the DS set the parent publishes for the domain (RFC 4034 §5; EPP secDNS-1.1,
 * RFC 5910 dsData interface). Two abilities, declared apart: some registries accept new DS records from a
 * registrar but remove them only through their own support desk.
 */
export type DsCapability = 'ds_set' | 'ds_remove';

/** One DS record as the registry keeps it: digest in upper-case hex. */
export interface DsRecord {
  readonly keyTag: number;
  readonly algorithm: number;
  readonly digestType: number;
  readonly digest: string;
}

/** Adds DS records (the ones already there stay; adding one the registry holds is harmless). */
export interface DsSetting {
  setDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void>;
  /**
   * The DS records the registry holds for the domain (what the parent publishes). `authInfo`: the name's
   * transfer code, for a name another registrar sponsors — registries answer a non-sponsor's domain:info
   * in full only with it (RFC 5731 §3.1.2). `recent`: an answer the adapter read a few seconds ago will do
   * (what a page shows, read on every call); without it the registry is asked now (what a decision rests on).
   */
  dsRecords(domain: string, authInfo?: string, options?: { readonly recent?: boolean }): Promise<DsRecord[]>;
}
/** Removes DS records (removing one the registry does not hold is harmless). */
export interface DsRemoval {
  removeDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void>;
}

export type Registrar = RegistrarBase &
  Partial<
    Registering &
      Renewing &
      NameserverControl &
      TransferLockControl &
      TransferCodes &
      RegistrantControl &
      TransferRequesting &
      TransferQuerying &
      TransferCancelling &
      TransferRejecting
  > &
  Partial<DsSetting & DsRemoval>;

/**
 * Why a registry refused, as stable codes (each maps to an error of core/shared/errors.ts). EPP result
 * codes (RFC 5730 §3) map onto them: 2201 → not_authorized, 2202 → auth_info_invalid, 2303 →
 * object_missing, 2304 → status_prohibits, 2306 → parameter_rejected, 2308 → policy_refused.
 */
export type RegistryRefusal =
  | 'registry_not_authorized'
  | 'registry_auth_info_invalid'
  | 'registry_object_missing'
  | 'registry_status_prohibits'
  | 'registry_parameter_rejected'
  | 'registry_policy_refused';

/** Failures the registry reports (a name taken meanwhile, a registry outage). */
export class RegistryError extends Error {
  constructor(
    readonly reason: 'taken' | 'unavailable' | 'rejected',
    message: string,
    readonly registeredUntil: string | null = null,
    /** A finer reason for 'rejected' when the registry said why (EPP result code). */
    readonly refusal: RegistryRefusal | null = null,
    /** The registry's own result code (EPP), for logs and support. */
    readonly registryCode: number | null = null,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/** The registrar of each environment (sandbox for test keys, the live registry for live ones). */
export type RegistrarEnvironments = Environments<{ readonly registrar: Registrar }>;
