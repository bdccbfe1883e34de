/**
 * Domain errors: a stable code plus the facts the message needs. The core never picks an HTTP status
 * or writes message text; the HTTP adapter's error table (adapters/http/error-table.ts) does both,
 * once (STYLE 8).
 */
export type ErrorCode =
  // authentication & authorisation (seed 5, A1–A7)
  | 'unauthenticated'
  | 'key_invalid'
  | 'key_expired'
  | 'key_revoked'
  | 'ip_not_allowed'
  | 'right_missing'
  | 'human_only'
  | 'session_required'
  | 'sign_in_failed'
  | 'role_forbidden'
  | 'environment_unavailable'
  // issuance rules (DESIGN: classes)
  | 'key_lifetime_exceeded'
  | 'expiry_in_past'
  | 'ip_restriction_required'
  | 'ip_restriction_too_wide'
  | 'spend_limit_required'
  | 'domains_required'
  | 'key_not_found'
  // domains
  | 'domain_invalid'
  | 'domain_not_found'
  | 'domain_taken'
  | 'tld_not_supported'
  | 'registrar_capability_missing'
  | 'registry_failure'
  | 'domain_not_renewable'
  | 'domain_already_yours'
  // money
  | 'insufficient_funds'
  | 'spend_limit_exceeded'
  | 'card_declined'
  | 'payment_failed'
  | 'no_saved_card'
  | 'sandbox_only'
  | 'operation_in_progress'
  // dns
  | 'plan_not_found'
  | 'plan_expired'
  | 'plan_invalid'
  | 'plan_stale'
  | 'plan_unsafe'
  | 'plan_already_applied'
  | 'challenge_not_found'
  // certificates
  | 'certificate_not_found'
  | 'certificate_not_ready'
  | 'certificate_not_revocable'
  | 'certificate_authority_failed'
  | 'csr_invalid'
  | 'csr_names_mismatch'
  | 'private_key_not_held'
  // protocol
  | 'validation_failed'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'idempotency_key_required'
  | 'idempotency_key_invalid'
  | 'idempotency_key_reused'
  | 'idempotency_key_in_use'
  | 'rate_limited'
  | 'cursor_invalid'
  | 'internal_error';

export type ErrorParams = Record<string, string | number | boolean | undefined | null | string[]>;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly params: ErrorParams = {},
    readonly details?: ReadonlyArray<Record<string, unknown>>,
  ) {
    super(code);
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
