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
  // registry refusals (EPP result codes)
  | 'registry_not_authorized'
  | 'registry_auth_info_invalid'
  | 'registry_object_missing'
  | 'registry_status_prohibits'
  | 'registry_parameter_rejected'
  | 'registry_policy_refused'
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
  // class 3 operations
  | 'operation_not_found'
  | 'operation_pending'
  | 'operation_not_pending'
  | 'operation_no_change'
  | 'confirmation_by_requester'
  | 'owner_required'
  | 'nameservers_invalid'
  | 'labels_invalid'
  // events & webhooks
  | 'webhook_not_found'
  | 'webhook_url_refused'
  | 'delivery_not_found'
  | 'event_type_unknown'
  // monitoring
  | 'monitor_not_found'
  | 'monitor_interval_too_short'
  | 'monitor_limit_reached'
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
  | 'internal_error'
  // the six human-only actions
  | 'reauth_required'
  | 'owner_only'
  | 'person_exists'
  | 'person_not_found'
  | 'invitation_invalid'
  | 'last_owner'
  | 'account_not_empty'
  | 'card_invalid'
  | 'card_setup_unavailable'
  | 'csrf_failed'
  // switching two-factor checks on again
  | 'two_factor_already_on'
  | 'two_factor_enrolment_missing'
  | 'totp_invalid';

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
