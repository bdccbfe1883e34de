import type { Knex } from 'knex';
import type { Engine } from './connection.js';
import * as foundation from './migrations/20261121000000_foundation.js';
import * as money from './migrations/20261121120000_money.js';
import * as dns from './migrations/20261121140000_dns.js';
import * as certificates from './migrations/20261122090000_certificates.js';
import * as operations from './migrations/20261124100000_operations.js';
import * as humanActions from './migrations/20261124110000_human_actions.js';
import * as eventsWebhooks from './migrations/20261124120000_events_webhooks.js';
import * as monitoring from './migrations/20261124130000_monitoring.js';
import * as changeLog from './migrations/20261124153000_change_log.js';
import * as twoFactorEnrolment from './migrations/20261125090000_two_factor_enrolment.js';
import * as resumableRequests from './migrations/20261125100000_resumable_requests.js';
import * as autoRenewKey from './migrations/20261126120000_auto_renew_key.js';
import * as credentialAttempts from './migrations/20261126120000_credential_attempts.js';
import * as dnsNamesALabels from './migrations/20261126120000_dns_names_a_labels.js';
import * as dnsCatalog from './migrations/20261126130000_dns_catalog.js';
import * as eventUrlParts from './migrations/20261126130000_event_url_parts.js';
import * as domainTransfers from './migrations/20261126150000_domain_transfers.js';
import * as passwordResets from './migrations/20261126150000_password_resets.js';
import * as tsigCredentials from './migrations/20261126160000_tsig_credentials.js';
import * as dnsImports from './migrations/20261126160000_dns_imports.js';
import * as dnssec from './migrations/20261126160000_dnssec.js';
import * as hostedDomains from './migrations/20261126160000_hosted_domains.js';
import * as dnssecDs from './migrations/20261126170000_dnssec_ds.js';
import * as transferKeepZone from './migrations/20261126170000_transfer_keep_zone.js';
import * as dnssecRollover from './migrations/20261126190000_dnssec_rollover.js';
import * as dnssecSignatures from './migrations/20261126193100_dnssec_signatures.js';
import * as scaleIndexes from './migrations/20261126201000_scale_indexes.js';
import * as dnssecForeignKeys from './migrations/20261127030000_dnssec_foreign_keys.js';
import * as dnsZoneChangeSeq from './migrations/20261127090000_dns_zone_change_seq.js';
import * as webhookEventTypes from './migrations/20261127100000_webhook_event_types.js';
import * as eventDomains from './migrations/20261127100100_event_domains.js';
import * as domainLabelNames from './migrations/20261127120000_domain_label_names.js';
import * as dnsZoneChanges from './migrations/20261127160000_dns_zone_changes.js';
import * as retentionIndexes from './migrations/20261127190000_retention_indexes.js';
import * as idempotencyRequestSecrets from './migrations/20261128050000_idempotency_request_secrets.js';

/** Migrations listed explicitly: no directory scanning, so they load the same under tsx, tests and CLI. */
const MIGRATIONS: ReadonlyArray<[string, MigrationModule]> = [
  ['20261121000000_foundation', foundation],
  ['20261121120000_money', money],
  ['20261121140000_dns', dns],
  ['20261122090000_certificates', certificates],
  ['20261124100000_operations', operations],
  ['20261124110000_human_actions', humanActions],
  ['20261124120000_events_webhooks', eventsWebhooks],
  ['20261124130000_monitoring', monitoring],
  ['20261124153000_change_log', changeLog],
  ['20261125090000_two_factor_enrolment', twoFactorEnrolment],
  ['20261125100000_resumable_requests', resumableRequests],
  ['20261126120000_dns_names_a_labels', dnsNamesALabels],
  ['20261126120000_auto_renew_key', autoRenewKey],
  ['20261126120000_credential_attempts', credentialAttempts],
  ['20261126130000_dns_catalog', dnsCatalog],
  ['20261126130000_event_url_parts', eventUrlParts],
  ['20261126150000_domain_transfers', domainTransfers],
  ['20261126150000_password_resets', passwordResets],
  ['20261126160000_tsig_credentials', tsigCredentials],
  ['20261126160000_dns_imports', dnsImports],
  ['20261126160000_dnssec', dnssec],
  ['20261126160000_hosted_domains', hostedDomains],
  ['20261126170000_dnssec_ds', dnssecDs],
  ['20261126170000_transfer_keep_zone', transferKeepZone],
  ['20261126190000_dnssec_rollover', dnssecRollover],
  ['20261126193100_dnssec_signatures', dnssecSignatures],
  ['20261126201000_scale_indexes', scaleIndexes],
  ['20261127030000_dnssec_foreign_keys', dnssecForeignKeys],
  ['20261127090000_dns_zone_change_seq', dnsZoneChangeSeq],
  ['20261127100000_webhook_event_types', webhookEventTypes],
  ['20261127100100_event_domains', eventDomains],
  ['20261127120000_domain_label_names', domainLabelNames],
  ['20261127160000_dns_zone_changes', dnsZoneChanges],
  ['20261127190000_retention_indexes', retentionIndexes],
  ['20261128050000_idempotency_request_secrets', idempotencyRequestSecrets],
];

/** Every migration's name, oldest first. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map(([name]) => name);

/** A migration as the source lists it: `file` is its name (what the knex CLI prints, as for its own files). */
interface MigrationEntry {
  readonly file: string;
  readonly migration: MigrationModule;
}
const ENTRIES: readonly MigrationEntry[] = MIGRATIONS.map(([file, migration]) => ({ file, migration }));

/** A migration module: knex's, plus what only Postgres gets (see `migrationSourceFor`). */
type MigrationModule = Knex.Migration & { readonly postgresConfig?: { readonly transaction?: boolean } };

/**
 * The migrations as knex runs them on one engine.
 *
 * knex runs a batch of pending migrations in ONE transaction, with the list of those already done read again
 * once its lock is held, unless any migration of the batch says `config.transaction: false`. Then it runs
 * the whole batch outside any transaction and does not look again: a second process that listed the
 * migrations before the first one finished re-runs them all ("duplicate column name", seen when the API and
 * the worker started on a new SQLite file at once), and a process killed mid-batch leaves half a schema and
 * knex's lock row set.
 *
 * So a migration that must run outside a transaction (CREATE INDEX CONCURRENTLY) says so as `postgresConfig`,
 * which only the Postgres source hands to knex as its `config`. SQLite needs no such migration, and its
 * batches stay one transaction. On Postgres, SqlStore.migrate holds an advisory lock around the batch.
 */
export const migrationSourceFor = (engine: Engine): Knex.MigrationSource<MigrationEntry> => ({
  getMigrations: async () => [...ENTRIES],
  getMigrationName: (entry) => entry.file,
  getMigration: async ({ migration }) =>
    engine === 'postgres' && migration.postgresConfig ? { ...migration, config: migration.postgresConfig } : migration,
});
