import { addDays } from '../kernel/dates.js';

/**
 * The domain lifecycle after expiry (EPP statuses, RFC 5731 §2.3 and RFC 3915 §3.1):
 *   expiry → autoRenewPeriod (45 days, renewable at the normal price)
 *          → redemptionPeriod (30 days, restorable: the renewal plus RESTORE_FEE)
 *          → pendingDelete (5 days, nothing can be done) → released (the name leaves the account).
 * Automatic renewal is tried from AUTO_RENEW_LEAD_DAYS before expiry when auto_renew is on.
 */
export const AUTO_RENEW_LEAD_DAYS = 7;
export const AUTO_RENEW_GRACE_DAYS = 45;
export const REDEMPTION_DAYS = 30;
export const PENDING_DELETE_DAYS = 5;
/** Kopiykas: 1 500 UAH on top of one year's renewal to restore a domain from redemption. */
export const RESTORE_FEE = 150_000;

export type Phase = 'active' | 'autoRenewPeriod' | 'redemptionPeriod' | 'pendingDelete' | 'released';
const GRACE_STATUSES = ['autoRenewPeriod', 'redemptionPeriod', 'pendingDelete'];

/** The phase a domain is in on a given (Kyiv) day: the day after the expiry date it has expired. */
export const phaseOn = (expiresOn: string, today: string): Phase => {
  if (today <= expiresOn) return 'active';
  if (today <= addDays(expiresOn, AUTO_RENEW_GRACE_DAYS)) return 'autoRenewPeriod';
  if (today <= addDays(expiresOn, AUTO_RENEW_GRACE_DAYS + REDEMPTION_DAYS)) return 'redemptionPeriod';
  if (today <= addDays(expiresOn, AUTO_RENEW_GRACE_DAYS + REDEMPTION_DAYS + PENDING_DELETE_DAYS)) return 'pendingDelete';
  return 'released';
};

/** The status array for a phase, keeping statuses that are not about expiry (e.g. the transfer lock). */
export const statusFor = (current: readonly string[], phase: Phase, transferLock: boolean): string[] => {
  const kept = current.filter((s) => !GRACE_STATUSES.includes(s) && s !== 'ok' && s !== 'clientTransferProhibited');
  if (transferLock) kept.push('clientTransferProhibited');
  if (phase !== 'active' && phase !== 'released') kept.push(phase);
  return kept.length > 0 ? kept : ['ok'];
};

export const phaseOfStatus = (status: readonly string[]): Phase =>
  (GRACE_STATUSES.find((s) => status.includes(s)) as Phase | undefined) ?? 'active';
