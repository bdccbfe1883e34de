import type { Environment } from '../kernel/environment.js';
import { uah, type Money } from '../kernel/money.js';

/**
 * A transfer between registrars of one of our accounts' names (RFC 5731 §3.2.4), either direction:
 * `in` — the account asked for a name held elsewhere (paid: years × the renewal price, reserved at the
 * request, posted when the name arrives, voided otherwise); `out` — another registrar asked for a name
 * the account holds. `requesting` is internal: the registry has not confirmed the request yet (an outage,
 * a crash); the API shows it as pending.
 */
export type TransferPhase = 'requesting' | 'pending' | 'completed' | 'cancelled' | 'rejected' | 'failed';
export const ACTIVE_PHASES: readonly TransferPhase[] = ['requesting', 'pending'];

export interface DomainTransfer {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domain: string;
  readonly direction: 'in' | 'out';
  readonly status: TransferPhase;
  readonly years: number | null;
  /** Kopiykas reserved (transfer in). */
  readonly amount: number | null;
  readonly ledgerEntryId: string | null;
  readonly keyId: string | null;
  /** Who asked: `key:<id>`, `person:<id>`, or `registry` for a transfer out. */
  readonly requestedBy: string;
  /** The labels the domain carries once it arrives (those of the asking key's domain.register policies). */
  readonly labels: readonly string[];
  /** The authInfo, sealed (secret box); null once the transfer ended. */
  readonly authCode: string | null;
  /** The client transaction id of the registry request: a retry asks the registry once. */
  readonly clientTransactionId: string;
  readonly registryStatus: string | null;
  /** When the losing side must have answered (ISO 8601). */
  readonly actionAt: string | null;
  readonly registeredUntil: string | null;
  /** A stable error code when it failed or was rejected. */
  readonly error: string | null;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
  /** A transfer out only: an owner asked to keep the zone served as a hosted domain when the name leaves. */
  readonly keepZone?: boolean;
}

export interface TransferView {
  id: string;
  domain: string;
  direction: 'in' | 'out';
  status: 'pending' | 'completed' | 'cancelled' | 'rejected' | 'failed';
  years: number | null;
  amount: Money | null;
  ledger_entry_id: string | null;
  registry_status: string | null;
  action_at: string | null;
  expires_at: string | null;
  error: string | null;
  requested_by: string;
  created_at: string;
  finished_at: string | null;
  /** Transfers out: whether the zone stays as a hosted domain when the name leaves. */
  keep_zone?: boolean;
  /** The request's answer only: what could go wrong at completion (a DS at the registry none of our keys match). */
  warnings?: Array<{ code: string; message: { uk: string; en: string } }>;
}

export const viewTransfer = (t: DomainTransfer): TransferView => ({
  id: t.id,
  domain: t.domain,
  direction: t.direction,
  status: t.status === 'requesting' ? 'pending' : t.status,
  years: t.years,
  amount: t.amount === null ? null : uah(t.amount),
  ledger_entry_id: t.ledgerEntryId,
  registry_status: t.registryStatus,
  action_at: t.actionAt,
  expires_at: t.registeredUntil,
  error: t.error,
  requested_by: t.requestedBy,
  created_at: t.createdAt.toISOString(),
  finished_at: t.finishedAt?.toISOString() ?? null,
  ...(t.direction === 'out' ? { keep_zone: t.keepZone ?? false } : {}),
});
