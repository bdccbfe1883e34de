import type { Environment } from '../kernel/environment.js';
import type { DsRecord } from './ports/registrar.port.js';

/** A plain-language warning (uk + en) with a stable code, as operations and transfers carry them. */
export interface DsWarning {
  readonly code: 'dnssec_ds_at_parent';
  readonly message: { readonly uk: string; readonly en: string };
}

/** Whether any DS the registry holds names one of `ours` ("<tag> <alg> <digest type> <hex>", any case). */
export const dsMatchesOurs = (held: readonly DsRecord[], ours: readonly string[]): boolean => {
  const mine = new Set(ours.map((d) => d.toUpperCase()));
  return held.some((d) => mine.has(`${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`.toUpperCase()));
};

/**
 * The warning a nameserver change towards us carries while the registry holds DS records none of our keys
 * match (a domain transferred in, or hosted, still carrying the previous operator's DS): once our servers
 * answer, validating resolvers find no DS for our DNSKEY set and refuse the domain.
 */
export const foreignDsWarning = (domain: string, tags: readonly number[]): DsWarning => ({
  code: 'dnssec_ds_at_parent',
  message: {
    uk: `Реєстр тримає DS домену ${domain} (теги ${tags.join(', ')}), що не відповідає жодному нашому ключу — ймовірно, від попереднього оператора DNS. Щойно відповідатимуть наші сервери, резолвери, що перевіряють DNSSEC, відкинуть домен. Безпечний порядок — або перенесення з двома підписувачами (підпишіть зону тут тим самим алгоритмом, PUT /v1/domains/${domain}/dnssec; додайте ключ попереднього оператора, POST /v1/domains/${domain}/dnssec/foreign-keys; дайте йому наш; опублікуйте наш DS, POST /v1/domains/${domain}/dnssec/ds, і зачекайте його TTL), або спершу приберіть їхній DS і зачекайте його TTL, а вже тоді міняйте сервери.`,
    en: `The registry holds a DS for ${domain} (tags ${tags.join(', ')}) that none of our keys match — most likely the previous DNS operator's. As soon as our servers answer, validating resolvers refuse the domain. The safe order is either a multi-signer move (sign the zone here with the same algorithm, PUT /v1/domains/${domain}/dnssec; add the previous operator's key, POST /v1/domains/${domain}/dnssec/foreign-keys; give them ours; publish our DS, POST /v1/domains/${domain}/dnssec/ds, and wait its TTL), or having their DS removed first and waiting its TTL, and only then changing the nameservers.`,
  },
});

/**
 * The warning a transfer in carries when the registry holds a DS none of our keys match: at completion the
 * domain's nameservers become ours (the registry keeps the DS), and validating resolvers refuse our answers.
 */
export const transferDsWarning = (domain: string, tags: readonly number[]): DsWarning => ({
  code: 'dnssec_ds_at_parent',
  message: {
    uk: `Реєстр тримає DS домену ${domain} (теги ${tags.join(', ')}) від його теперішнього оператора DNS, і перенесення його не прибирає. Коли перенесення завершиться, домен обслуговуватимуть наші сервери імен, і резолвери, що перевіряють DNSSEC, відкинуть відповіді, яких не підписано ключем за цим DS. Поки воно триває: або розмістіть зону тут (POST /v1/hosted-domains), підпишіть її тим самим алгоритмом (PUT /v1/domains/${domain}/dnssec), додайте ключ теперішнього оператора (POST /v1/domains/${domain}/dnssec/foreign-keys), дайте йому наш і додайте наш DS у реєстр; або попросіть прибрати DS і зачекайте його TTL; інакше скасуйте перенесення.`,
    en: `The registry holds a DS for ${domain} (tags ${tags.join(', ')}) from its current DNS operator, and a transfer does not remove it. When the transfer completes our nameservers serve the domain, and validating resolvers refuse answers not signed with a key that DS names. While it is pending, either host the zone here (POST /v1/hosted-domains), sign it with the same algorithm (PUT /v1/domains/${domain}/dnssec), add the current operator's key (POST /v1/domains/${domain}/dnssec/foreign-keys), give them ours and have our DS added at the registry; or have the DS removed and wait its TTL; otherwise cancel the transfer.`,
  },
});

/** Our DS records for a zone of the account ("<tag> <alg> <digest type> <hex>"), none when it is unsigned or absent. */
export interface OurDsRecords {
  of(accountId: string, environment: Environment, domain: string): Promise<string[]>;
}
