import type { Environment } from '../../kernel/environment.js';
import type { TransferState } from './registrar.port.js';

/**
 * The registry's message queue (EPP poll, RFC 5730 §2.9.2.3): transfers asked for or done by others,
 * deletions by the registry. A live registrar that has one offers it through this small port.
 */
export interface RegistryMessage {
  readonly id: string;
  /** `transfer_requested|completed|cancelled` are transfers out (acID is ours); `transfer_in` is about a
   * transfer we asked for (reID is ours), whatever its state. */
  readonly kind: 'transfer_requested' | 'transfer_completed' | 'transfer_cancelled' | 'transfer_in' | 'deleted_by_registry' | 'other';
  readonly domain: string | null;
  readonly queuedAt: string | null;
  readonly text: string;
  readonly data: Readonly<Record<string, string>>;
  /** A transfer message's trnData, with its direction (RFC 5731 §3.2.4). */
  readonly transfer?: TransferState;
}

export interface RegistryMessages {
  /** The oldest message, or null when the queue is empty. */
  poll(): Promise<RegistryMessage | null>;
  /** Removes a message from the queue once it is recorded. */
  ack(id: string): Promise<void>;
}

/** Who holds a domain name in an environment (one account per name: the registry's name is unique). */
export interface DomainHolders {
  holderOf(environment: Environment, name: string): Promise<{ readonly accountId: string; readonly domainId: string } | null>;
}
