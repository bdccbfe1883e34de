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
  | 'too_many_attempts'
  | 'role_forbidden'
  | 'environment_unavailable'
  // issuance rules (DESIGN: classes)
  | 'key_lifetime_exceeded'
  | 'expiry_in_past'
  | 'ip_restriction_required'
  | 'ip_restriction_too_wide'
  | 'spend_limit_required'
  | 'right_test_only'
  | 'domains_required'
  | 'key_not_found'
  | 'key_not_active'
  | 'tsig_right_missing'
  | 'tsig_credential_exists'
  // domains
  | 'domain_invalid'
  | 'domain_not_found'
  | 'domain_taken'
  | 'tld_not_supported'
  | 'registrar_capability_missing'
  | 'registry_failure'
  | 'domain_not_renewable'
  | 'domain_already_yours'
  // transfers between registrars
  | 'transfer_auth_code_invalid'
  | 'transfer_domain_locked'
  | 'transfer_not_transferable'
  | 'transfer_already_pending'
  | 'transfer_not_found'
  | 'transfer_not_cancellable'
  | 'transfer_out_not_pending'
  | 'contact_character_forbidden'
  // hosted domains (DESIGN: domains born elsewhere)
  | 'domain_hosted_elsewhere'
  | 'domain_registered_here'
  | 'domain_parent_held_elsewhere'
  | 'domain_parent_in_account'
  | 'domain_public_suffix'
  | 'domain_reserved'
  | 'domain_not_hosted'
  | 'domain_not_registered_here'
  | 'hosted_domain_limit_reached'
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
  | 'zone_busy'
  // zone import (DESIGN "Zone import")
  | 'import_not_found'
  | 'import_in_progress'
  | 'import_too_many_records'
  | 'import_too_large'
  | 'import_timeout'
  | 'import_interrupted'
  | 'zone_file_invalid'
  | 'zone_file_include'
  | 'zone_file_out_of_zone'
  | 'zone_file_class'
  | 'zone_file_generate_too_large'
  | 'axfr_server_not_allowed'
  | 'axfr_unreachable'
  | 'axfr_timeout'
  | 'axfr_refused'
  | 'axfr_failed'
  | 'axfr_incomplete'
  | 'axfr_tsig_invalid'
  // dnssec
  | 'dnssec_algorithm_unsupported'
  | 'dnssec_ds_at_parent'
  | 'dnssec_not_enabled'
  | 'dnssec_ds_hosted'
  | 'dnssec_ds_refused'
  | 'dnssec_ds_removal_refused'
  | 'dnssec_rollover_in_progress'
  | 'dnssec_foreign_key_invalid'
  | 'dnssec_foreign_key_limit'
  | 'dnssec_foreign_key_not_found'
  | 'dnssec_foreign_keys_present'
  | 'dnssec_ds_invalid'
  | 'dnssec_ds_is_ours'
  | 'dnssec_ds_stale'
  | 'dnssec_ds_publish_pending'
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
  | 'request_timeout'
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
  | 'totp_invalid'
  | 'password_reset_invalid';

/** A fact an error message needs: what the table interpolates. */
export type Param = string | number | boolean | undefined | null | string[];
/** An error that carries no facts. */
export type NoParams = { readonly [key: string]: never };

/**
 * The facts each error code carries, by name: a throw that misspells one, or leaves out one its message
 * needs, does not compile, and the HTTP error table reads only what the code carries. Required facts are
 * the ones every throw of the code gives.
 */
export interface ErrorParamMap {
  unauthenticated: NoParams;
  key_invalid: NoParams;
  key_expired: { expires_on: Param; key_id: Param };
  key_revoked: { key_id: Param };
  ip_not_allowed: { cidr: Param; ip: Param };
  right_missing: { change?: Param; domain?: Param; right?: Param };
  human_only: { console: Param };
  session_required: NoParams;
  /** reason: 'totp' (a wrong one-time code, where the password was not the question) or 'totp_reused'. */
  sign_in_failed: { reason?: Param };
  too_many_attempts: { retry_after: Param };
  role_forbidden: { class: Param; max_class: Param };
  environment_unavailable: { environment: Param };
  key_lifetime_exceeded: { class: Param; expires_on: Param; max_date: Param; max_days: Param };
  expiry_in_past: { expires_on: Param; today: Param };
  ip_restriction_required: { class: Param; min_prefix: Param };
  ip_restriction_too_wide: { cidr: Param; class: Param; min_prefix: Param };
  spend_limit_required: NoParams;
  right_test_only: { right: Param };
  domains_required: NoParams;
  key_not_found: { key_id: Param };
  key_not_active: { key_id: Param; status: Param };
  tsig_right_missing: { key_id: Param };
  tsig_credential_exists: { key_id: Param; name: Param };
  domain_invalid: { domain: Param };
  domain_not_found: { domain: Param };
  domain_taken: { domain: Param; label: Param; registered_until: Param };
  tld_not_supported: { domain: Param; tlds: Param };
  registrar_capability_missing: { capability: Param; registrar: Param };
  registry_failure: { domain: Param; reason?: Param };
  domain_not_renewable: { domain: Param; status: Param };
  /** registrar: `external` when the name is in the account as a hosted domain (absent: registered here). */
  domain_already_yours: { domain: Param; registrar?: Param };
  transfer_auth_code_invalid: { domain: Param };
  transfer_domain_locked: { domain: Param };
  transfer_not_transferable: { domain: Param; registry_code?: Param };
  transfer_already_pending: { domain: Param; transfer_id?: Param };
  transfer_not_found: { transfer_id: Param };
  transfer_not_cancellable: { transfer_id: Param; status: Param };
  transfer_out_not_pending: { domain: Param };
  domain_hosted_elsewhere: { domain: Param };
  domain_registered_here: { domain: Param };
  domain_parent_held_elsewhere: { domain: Param; parent: Param };
  domain_parent_in_account: { domain: Param; parent: Param };
  domain_public_suffix: { domain: Param };
  /** `zone`: the service's own zone the name is or lies in; `role`: 'catalog' (DNS_CATALOG_ZONE) or 'nameservers'. */
  domain_reserved: { domain: Param; zone: Param; role: 'catalog' | 'nameservers' };
  domain_not_hosted: { domain: Param };
  domain_not_registered_here: { domain: Param };
  hosted_domain_limit_reached: { environment: Param; limit: Param };
  registry_not_authorized: { domain?: Param };
  registry_auth_info_invalid: { domain?: Param };
  registry_object_missing: { domain?: Param };
  registry_status_prohibits: { domain?: Param };
  registry_parameter_rejected: { domain?: Param };
  registry_policy_refused: { domain?: Param };
  insufficient_funds: { amount: Param; balance: Param };
  spend_limit_exceeded: { amount: Param; key_id: Param; left: Param; limit: Param; month: Param; spent: Param };
  card_declined: { card: Param; reason: Param };
  payment_failed: { code: Param };
  no_saved_card: NoParams;
  sandbox_only: NoParams;
  operation_in_progress: { domain_id: Param };
  plan_not_found: { domain: Param; plan_id: Param };
  plan_expired: { domain: Param; plan_id: Param };
  plan_invalid: { domain: Param; plan_id: Param };
  plan_stale: { domain: Param; reason: Param };
  plan_unsafe: { size: Param; touched: Param };
  plan_already_applied: { plan_id: Param };
  challenge_not_found: { challenge_id: Param };
  zone_busy: { domain: Param; retry_after: Param };
  import_not_found: { import_id: Param; domain: Param };
  import_in_progress: { import_id: Param; domain: Param };
  import_too_many_records: { limit: Param };
  import_too_large: { limit: Param };
  import_timeout: { seconds: Param };
  import_interrupted: NoParams;
  zone_file_invalid: { line: Param; reason: Param; reason_uk: Param };
  zone_file_include: { line: Param };
  zone_file_out_of_zone: { line: Param; name: Param; domain: Param };
  zone_file_class: { line: Param; class: Param };
  zone_file_generate_too_large: { line: Param; count: Param; limit: Param };
  axfr_server_not_allowed: { server: Param; reason: Param };
  axfr_unreachable: { server: Param; reason: Param };
  axfr_timeout: { server: Param; seconds: Param };
  axfr_refused: { server: Param; rcode: Param };
  axfr_failed: { server: Param; rcode: Param };
  axfr_incomplete: { server: Param; reason: Param };
  axfr_tsig_invalid: { server: Param; reason: Param };
  dnssec_algorithm_unsupported: { algorithm: Param };
  dnssec_ds_at_parent: { domain: Param };
  dnssec_not_enabled: { domain: Param };
  dnssec_ds_hosted: { domain: Param };
  dnssec_ds_refused: { domain: Param; reason: Param };
  dnssec_ds_removal_refused: { domain: Param; reason: Param };
  dnssec_rollover_in_progress: { domain: Param; step: Param };
  dnssec_foreign_key_invalid: {
    domain: Param;
    problem: Param;
    flags?: Param;
    algorithm?: Param;
    zone_algorithm?: Param;
    key_tag?: Param;
  };
  dnssec_foreign_key_limit: { domain: Param; limit: Param };
  dnssec_foreign_key_not_found: { domain: Param; key_tag: Param };
  dnssec_foreign_keys_present: { domain: Param; key_tags: Param };
  dnssec_ds_invalid: { domain: Param; ds: Param };
  dnssec_ds_is_ours: { domain: Param; ds: Param };
  dnssec_ds_stale: { domain: Param; ds: Param };
  dnssec_ds_publish_pending: { domain: Param; operation_id: Param };
  certificate_not_found: { certificate_id: Param };
  certificate_not_ready: { certificate_id: Param; status: Param };
  certificate_not_revocable: { certificate_id: Param; status: Param };
  certificate_authority_failed: { reason: Param };
  csr_invalid: { reason: Param };
  csr_names_mismatch: { csr_names: Param; domains: Param };
  private_key_not_held: { certificate_id: Param };
  operation_not_found: { operation_id: Param };
  operation_pending: { domain: Param; operation_id: Param; kind?: Param };
  operation_not_pending: { operation_id: Param; status: Param };
  operation_no_change: { domain: Param; kind: Param };
  confirmation_by_requester: { operation_id: Param; person_id: Param };
  owner_required: { action: Param; right: Param; key_id?: Param };
  nameservers_invalid: { domain: Param; nameserver: Param; reason: Param };
  labels_invalid: { domain: Param; label: Param };
  contact_character_forbidden: { field: Param; character: Param };
  webhook_not_found: { webhook_id: Param };
  webhook_url_refused: { reason: Param; url: Param };
  delivery_not_found: { delivery_id: Param };
  event_type_unknown: { types: Param };
  monitor_not_found: { monitor_id: Param };
  monitor_interval_too_short: { environment: Param; interval_seconds: Param; maximum: Param; minimum: Param };
  monitor_limit_reached: { environment: Param; limit: Param };
  validation_failed: { field?: Param; value?: Param };
  malformed_json: NoParams;
  unsupported_media_type: { type?: Param };
  payload_too_large: { limit: Param };
  request_timeout: { seconds: Param };
  not_found: { path?: Param };
  method_not_allowed: { allow: Param; method: Param; path: Param };
  idempotency_key_required: NoParams;
  idempotency_key_invalid: NoParams;
  idempotency_key_reused: NoParams;
  idempotency_key_in_use: { retry_after?: Param };
  rate_limited: { retry_after: Param };
  cursor_invalid: NoParams;
  internal_error: NoParams;
  reauth_required: { minutes: Param };
  owner_only: { action: Param };
  person_exists: { email: Param };
  person_not_found: { id: Param };
  invitation_invalid: NoParams;
  last_owner: { email: Param };
  account_not_empty: { balance_live: Param; balance_test: Param; domains: Param };
  card_invalid: NoParams;
  card_setup_unavailable: { environment: Param };
  csrf_failed: NoParams;
  two_factor_already_on: NoParams;
  two_factor_enrolment_missing: NoParams;
  totp_invalid: NoParams;
  password_reset_invalid: NoParams;
}

export type ErrorParams<C extends ErrorCode = ErrorCode> = ErrorParamMap[C];

export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    readonly params: ErrorParamMap[C] = {} as ErrorParamMap[C],
    readonly details?: ReadonlyArray<Record<string, unknown>>,
  ) {
    super(code);
    this.name = 'DomainError';
  }

  /** One fact by name, for code that handles errors of any code (a log line, a reason text). */
  fact(name: string): Param {
    return (this.params as Readonly<Record<string, Param>>)[name];
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
