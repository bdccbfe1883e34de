import { parseHost, presentHost } from './host.js';
import type { ParsedValue, ValueProblem } from './value.js';
import { fields, parseUint, shown, UINT16 } from './value.js';

/**
 * SRV: "priority weight port target." (RFC 2782), each number 0–65535; port 0 only with target "."
 * ("service decidedly not available").
 */
export const parseSrv = (raw: string, origin: string): ParsedValue => {
  const f = fields(raw);
  const problems: ValueProblem[] = [];
  const [priority, weight, port] = [parseUint(f[0], UINT16), parseUint(f[1], UINT16), parseUint(f[2], UINT16)];
  if (f.length !== 4 || priority === null || weight === null || port === null) {
    problems.push({
      rule: 'srv-value',
      en: `An SRV value is "priority weight port target." with numbers from 0 to 65535, e.g. "10 5 5060 sip.example.net.": "${shown(raw)}".`,
      uk: `Значення SRV має вигляд «пріоритет вага порт ціль.», числа від 0 до 65535, наприклад «10 5 5060 sip.example.net.»: «${shown(raw)}».`,
    });
  }
  const host = f.length === 4 ? parseHost(f[3]!, origin, 'SRV', true) : null;
  if (host) problems.push(...host.problems);
  if (port === 0 && host?.name !== '' && host?.name !== null && host !== null) {
    problems.push({
      rule: 'srv-value',
      en: 'SRV port 0 is allowed only when the target is "." (the service is not available).',
      uk: 'Порт SRV 0 допустимий лише тоді, коли ціль — «.» (служба недоступна).',
    });
  }
  if (problems.length > 0 || priority === null || weight === null || port === null || !host || host.name === null) {
    return { canonical: raw, data: null, problems };
  }
  return {
    canonical: `${priority} ${weight} ${port} ${presentHost(host.name)}`,
    problems,
    data: { kind: 'srv', priority, weight, port, target: host.name },
  };
};
