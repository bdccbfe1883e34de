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
  // Codes whose example reads wrong with the shared sample (a test-only right is no dns.edit).
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
  const rows = (Object.keys(ERROR_TABLE) as ErrorCode[])
    .map((code) => [code, entryOf(code), { ...sample, ...own[code] }] as const)
    .sort((a, b) => a[1].status - b[1].status || a[0].localeCompare(b[0]))
    .map(([code, e, p]) => `| ${e.status} | \`${code}\` | ${e.en(p).replace(/\|/g, '\\|')} | ${e.uk(p).replace(/\|/g, '\\|')} |`);
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
