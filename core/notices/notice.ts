import type { Environment } from '../kernel/environment.js';

/** A notice to a person of the account (seed A5: class 2 operations notify every owner). */
export interface Notice {
  readonly id: string;
  /** Shared by every recipient's copy of one notice. */
  readonly groupId: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly recipientId: string;
  readonly kind: string;
  /** The domain it concerns, if any (key-holders see only notices about domains they may read). */
  readonly domain: string | null;
  readonly message: { readonly uk: string; readonly en: string };
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}
