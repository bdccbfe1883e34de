import { parseHost, presentHost } from './host.js';
import type { ParsedValue, ValueProblem } from './value.js';
import { fields, parseUint, shown, UINT32 } from './value.js';

/** SOA: "mname. rname. serial refresh retry expire minimum" (RFC 1035 §3.3.13), numbers 32-bit unsigned. */
export const parseSoa = (raw: string, origin: string): ParsedValue => {
  const f = fields(raw);
  const problems: ValueProblem[] = [];
  const numbers = f.slice(2).map((t) => parseUint(t, UINT32));
  if (f.length !== 7 || numbers.some((n) => n === null)) {
    problems.push({
      rule: 'soa-value',
      en: `An SOA value is "mname. rname. serial refresh retry expire minimum" with numbers up to 4294967295: "${shown(raw)}".`,
      uk: `Значення SOA має вигляд «mname. rname. serial refresh retry expire minimum» із числами до 4294967295: «${shown(raw)}».`,
    });
    return { canonical: raw, problems, data: null };
  }
  const mname = parseHost(f[0]!, origin, 'SOA', false);
  const rname = parseHost(f[1]!, origin, 'SOA', false);
  problems.push(...mname.problems, ...rname.problems);
  if (mname.name === null || rname.name === null) return { canonical: raw, problems, data: null };
  const [serial, refresh, retry, expire, minimum] = numbers as [number, number, number, number, number];
  return {
    canonical: `${presentHost(mname.name)} ${presentHost(rname.name)} ${serial} ${refresh} ${retry} ${expire} ${minimum}`,
    problems,
    data: { kind: 'soa', mname: mname.name, rname: rname.name, serial, refresh, retry, expire, minimum },
  };
};
