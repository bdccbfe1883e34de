import { parseHost, presentHost } from './host.js';
import type { ParsedValue } from './value.js';
import { fields, shown, NO_PROBLEMS } from './value.js';

/** CNAME, NS, PTR, DNAME: one domain name (RFC 1035 §3.3.1, §3.3.11, §3.3.12; RFC 6672 §2.1). */
export const parseTarget = (type: string, raw: string, origin: string): ParsedValue => {
  const f = fields(raw);
  if (f.length !== 1) {
    return {
      canonical: raw,
      data: null,
      problems: [
        {
          rule: 'target-syntax',
          en: `A ${type} value is one host name, e.g. "host.example.net.": "${shown(raw)}".`,
          uk: `Значення ${type} — одне ім’я вузла, наприклад «host.example.net.»: «${shown(raw)}».`,
        },
      ],
    };
  }
  const host = parseHost(f[0]!, origin, type, false);
  if (host.name === null) return { canonical: raw, data: null, problems: host.problems };
  return { canonical: presentHost(host.name), problems: NO_PROBLEMS, data: { kind: 'host', host: host.name } };
};
