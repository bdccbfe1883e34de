import { entryOf, ERROR_TABLE } from '../../adapters/http/error-table.js';
import type { ErrorCode } from '../../core/kernel/errors.js';
import { CLASSES } from '../../core/access/classes.js';
import { RIGHTS, RIGHT_NAMES } from '../../core/kernel/rights.js';
import { TEMPLATES } from '../../core/access/templates.js';
import { EVENT_CATALOGUE } from '../../core/events/catalogue.js';

/**
 * The README's catalogues, generated from the code that enforces them (`npm run docs` prints them;
 * test/docs.test.ts fails when README.md drifts).
 */
export const rightsCatalogue = (): string => {
  const rows = RIGHT_NAMES.map((n) => {
    const r = RIGHTS[n];
    const implies = r.implies.length ? r.implies.join(', ') : '—';
    return `| \`${n}\` | ${r.class} | ${r.scope} | ${implies} | ${r.spends ? 'yes' : '—'} | ${r.describe.en} |`;
  });
  const classes = ([0, 1, 2, 3] as const).map((c) => {
    const k = CLASSES[c];
    return `| ${c} | ${k.name.en} / ${k.name.uk} | ${k.maxLifetimeDays} days | ${k.ipRestrictionRequired ? 'required, /8 or longer' : 'optional'} | ${c >= 2 ? 'owners only' : 'owners and members'} | ${k.meaning.en} |`;
  });
  const templates = TEMPLATES.map((t) => `| \`${t.id}\` | ${t.title.en} | ${t.rights.map((r) => `\`${r}\``).join(', ')} |`);
  return [
    '| right | class | applies to | includes | spends | allows |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '| class | name | longest lifetime | IP restriction | who may issue | meaning |',
    '|---|---|---|---|---|---|',
    ...classes,
    '',
    '| template | title | rights |',
    '|---|---|---|',
    ...templates,
  ].join('\n');
};

export const errorCatalogue = (): string => {
  const sample = {
    domain: 'example.com.ua',
    registered_until: '2031-03-14',
    label: 'example',
    right: 'dns.edit',
    key_id: 'AbC123xYz789',
    expires_on: '2026-12-31',
    cidr: '203.0.113.0/24',
    ip: '198.51.100.7',
    class: 2,
    max_class: 1,
    max_days: 90,
    max_date: '2027-02-19',
    today: '2026-11-21',
    min_prefix: 8,
    environment: 'live',
    path: '/v1/x',
    method: 'PUT',
    allow: 'GET',
    limit: 262144,
    retry_after: 3,
    registrar: 'sandbox',
    capability: 'transfer_code',
    tlds: 'ua, com.ua',
    console: '/console/keys',
    seconds: 30,
  };
  Object.assign(sample, { monitor_id: 'mon_01a20dfb463817f34de6', interval_seconds: 30, minimum: 60, maximum: 86400, limit: 200 }); // monitoring
  Object.assign(sample, { import_id: '01a2f0c3d4e5', line: 12, server: 'ns1.old-provider.net:53', rcode: 'REFUSED', count: 65536 }); // zone import
  Object.assign(sample, {
    operation_id: 'op_01a20dfb463817f34de6',
    certificate_id: 'crt_01a20dfb463817f34de6',
    challenge_id: 'ch_01a20dfb463817f34de6',
    delivery_id: 'dlv_01a20dfb463817f34de6',
    plan_id: 'pln_01a20dfb463817f34de6',
    transfer_id: 'trf_01a20dfb463817f34de6',
    webhook_id: 'wh_01a20dfb463817f34de6',
    id: 'per_01a20dfb463817f34de6',
    email: 'ops@example.com',
    minutes: 5,
    kind: 'nameservers',
    month: '2026-11',
  }); // ids and shared words
  // Codes whose example reads wrong with the shared sample (a test-only right is no dns.edit); a key set to
  // undefined is one the example leaves out on purpose (an optional part of the message).
  const own: Partial<Record<ErrorCode, Record<string, unknown>>> = {
    right_test_only: { right: 'sandbox.clock' },
    zone_file_class: { class: 'CH' },
    zone_file_invalid: { reason: 'an unterminated quoted string', reason_uk: 'незакритий рядок у лапках' },
    zone_file_out_of_zone: { name: 'www.example.net.' },
    zone_file_generate_too_large: { limit: 10000 },
    import_too_many_records: { limit: 1000000 },
    import_too_large: { limit: 67108864 },
    axfr_server_not_allowed: { reason: 'ns1.old-provider.net resolves to 10.0.0.53, which is not public' },
    axfr_unreachable: { reason: 'ECONNREFUSED' },
    axfr_failed: { rcode: 'SERVFAIL' },
    axfr_tsig_invalid: { reason: 'BADSIG' },
    key_not_active: { status: 'revoked' },
    tsig_credential_exists: { name: 'dmk-live-3f0c9a2b7d1e4c5a6b8f' },
  };
  Object.assign(own, {
    sign_in_failed: { reason: undefined },
    right_missing: { change: undefined },
    owner_required: { action: 'confirm', key_id: undefined },
    card_declined: { card: 'Visa •••• 4242', reason: 'insufficient funds' },
    insufficient_funds: { amount: '250.00', balance: '100.00' },
    spend_limit_exceeded: { limit: '5000.00', spent: '4900.00', left: '100.00', amount: '250.00' },
    account_not_empty: { domains: 2, balance_live: '120.00', balance_test: '0.00' },
    certificate_not_ready: { status: 'pending' },
    certificate_not_revocable: { status: 'failed' },
    domain_not_renewable: { status: 'pendingDelete' },
    operation_not_pending: { status: 'cancelled' },
    transfer_not_cancellable: { status: 'completed' },
    dnssec_rollover_in_progress: { step: 'double_sign' },
    domain_parent_held_elsewhere: { domain: 'shop.example.com.ua', parent: 'example.com.ua' },
    domain_parent_in_account: { domain: 'www.example.com.ua', parent: 'example.com.ua' },
    domain_reserved: { domain: 'catalog.domivka.invalid', zone: 'catalog.domivka.invalid', role: 'catalog' },
    plan_stale: { reason: 'serial 42 is now 43' },
    plan_unsafe: { touched: 412, size: 1000 },
    contact_character_forbidden: { field: 'address.street', character: 'U+0007' },
    csr_invalid: { reason: 'the signature does not verify' },
    csr_names_mismatch: { csr_names: 'example.com.ua, www.example.com.ua', domains: 'example.com.ua' },
    dnssec_algorithm_unsupported: { algorithm: 8 },
    dnssec_ds_refused: { reason: '2306 Parameter value policy error' },
    dnssec_ds_removal_refused: { reason: '2304 Object status prohibits operation' },
    dnssec_foreign_key_invalid: { problem: 'algorithm', algorithm: 8, zone_algorithm: 13 },
    dnssec_foreign_key_not_found: { key_tag: 20326 },
    dnssec_foreign_keys_present: { key_tags: '20326' },
    dnssec_foreign_key_limit: { limit: 4 },
    dnssec_ds_invalid: { ds: '2371 13 1 0123456789ABCDEF0123456789ABCDEF01234567' },
    dnssec_ds_is_ours: { ds: '2371 13 2 C11D…' },
    dnssec_ds_stale: { ds: '2371 13 2 C11D…' },
    dnssec_ds_publish_pending: { operation_id: 'op_01J…' },
    event_type_unknown: { types: 'domain.registerd' },
    nameservers_invalid: { nameserver: 'ns1..example.net', reason: 'hostname' },
    operation_no_change: { kind: 'nameservers' },
    webhook_url_refused: { url: 'http://10.0.0.5/hook', reason: 'private_address' },
    axfr_incomplete: { reason: 'no-closing-soa' },
    certificate_authority_failed: { reason: 'the CA is not reachable' },
  });
  const problems: string[] = [];
  const rows = (Object.keys(ERROR_TABLE) as ErrorCode[])
    .map((code) => [code, entryOf(code), { ...sample, ...own[code] }] as const)
    .sort((a, b) => a[1].status - b[1].status || a[0].localeCompare(b[0]))
    .map(([code, e, p]) => {
      // An example with a parameter the sample lacks would read "more than  minutes ago": refuse to write it.
      const missing = new Set<string>();
      const q = new Proxy(p, { get: (t, k) => (typeof k === 'string' && !(k in t) && missing.add(k), Reflect.get(t, k)) });
      const en = e.en(q);
      const uk = e.uk(q);
      if (missing.size) problems.push(`${code} needs ${[...missing].join(', ')}`);
      return `| ${e.status} | \`${code}\` | ${en.replace(/\|/g, '\\|')} | ${uk.replace(/\|/g, '\\|')} |`;
    });
  if (problems.length) throw new Error(`error table examples lack sample parameters: ${problems.join('; ')}`);
  return ['| HTTP | code | en (example) | uk (example) |', '|---|---|---|---|', ...rows].join('\n');
};

/** the public event catalogue (core/events/catalogue.ts). */
export const eventCatalogue = (): string => {
  const entries = Object.entries(EVENT_CATALOGUE);
  const pub = entries.filter(([, i]) => i.public).sort((a, b) => a[1].public!.localeCompare(b[1].public!));
  const rows = pub.map(([internal, i]) => {
    const data =
      Object.entries(i.data)
        .map(([k, v]) => `\`${k}\` ${v}`)
        .join(', ')
        .replace(/\|/g, '\\|') || '—';
    return `| \`${i.public}\`${internal !== i.public ? ` (internally \`${internal}\`)` : ''} | ${i.scope} | ${i.describe.en} / ${i.describe.uk} | ${data} |`;
  });
  const internal = entries.filter(([, i]) => !i.public).map(([t, i]) => `\`${t}\` (${i.describe.en})`);
  return [
    '| type | about | meaning (en / uk) | data |',
    '|---|---|---|---|',
    ...rows,
    '',
    `Internal only, never in the event log or a webhook: ${internal.join('; ')}.`,
  ].join('\n');
};

/** README.md with its generated sections replaced. */
export const withCatalogues = (readme: string): string =>
  readme
    .replace(/<!-- rights:begin -->[\s\S]*?<!-- rights:end -->/, `<!-- rights:begin -->\n${rightsCatalogue()}\n<!-- rights:end -->`)
    .replace(/<!-- errors:begin -->[\s\S]*?<!-- errors:end -->/, `<!-- errors:begin -->\n${errorCatalogue()}\n<!-- errors:end -->`)
    .replace(/<!-- events:begin -->[\s\S]*?<!-- events:end -->/, `<!-- events:begin -->\n${eventCatalogue()}\n<!-- events:end -->`);

if (process.argv[1]?.endsWith('docs.ts')) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const path = new URL('../../README.md', import.meta.url);
  writeFileSync(path, withCatalogues(readFileSync(path, 'utf8')));
  process.stdout.write('README.md catalogues regenerated\n');
}
