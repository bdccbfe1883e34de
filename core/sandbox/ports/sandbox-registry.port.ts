import type { DsRecord, RegistrantContact, TransferStatus } from '../../domains/ports/registrar.port.js';
/**
 * State of the sandbox registry (the make-believe registry that sandbox registrations go to). It lives
 * in our store so sandbox registrations persist and look real to everyone in the test environment.
 */
export interface SandboxRegistryEntry {
  readonly domain: string;
  readonly registeredUntil: string;
  readonly status: readonly string[];
  readonly nameservers: readonly string[];
  readonly transferCode: string;
  /** The registrant contact object, once changed; null: the account's default holder. */
  readonly registrant?: RegistrantContact | null;
  /** The latest transfer of the name, either direction (null: none). */
  readonly transfer?: SandboxTransfer | null;
}

/** A transfer the sandbox registry tracks (RFC 5731 §3.2.4 trStatus names). */
export interface SandboxTransfer {
  readonly direction: 'in' | 'out';
  readonly status: TransferStatus;
  readonly requestedAt: string;
  readonly actionAt: string;
  readonly years: number;
  /** What the losing side does when the period ends: approve (registries auto-approve) or reject. */
  readonly outcome: 'approve' | 'reject';
  /** The expiry once transferred (null while pending). */
  readonly registeredUntil: string | null;
}

export interface SandboxRegistryStore {
  find(domain: string): Promise<SandboxRegistryEntry | null>;
  findMany(domains: readonly string[]): Promise<SandboxRegistryEntry[]>;
  /** Inserts or replaces the entry. */
  put(entry: SandboxRegistryEntry): Promise<void>;
  /** Inserts a new entry atomically; false when the name is held already (registries serialise creates). */
  putIfAbsent(entry: SandboxRegistryEntry): Promise<boolean>;
  /** The result a client transaction id produced before, if any (idempotent writes). */
  transaction(clientTransactionId: string): Promise<{ op: string; domain: string; result: string } | null>;
  recordTransaction(clientTransactionId: string, op: string, domain: string, result: string): Promise<void>;
  /** Runs one registry command as one transaction: its reads, its writes and its client transaction
   * record commit together or not at all (a crash between them would make a retry look like a new
   * command: "taken" for one's own create, a renewal applied twice). */
  atomically<T>(command: () => Promise<T>): Promise<T>;
  /** The DS records the sandbox registry holds for a name (the sandbox parent publishes them). */
  dsOf(domain: string): Promise<DsRecord[]>;
  /** Replaces the DS set of a name (an empty set removes it). */
  putDs(domain: string, records: readonly DsRecord[]): Promise<void>;
}
