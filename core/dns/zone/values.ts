import type { RecordSet, RecordType } from './record-set.js';
import { parseA, parseAaaa } from '../types/address.js';
import { parseCaa } from '../types/caa.js';
import { parseMx } from '../types/mx.js';
import { parseSoa } from '../types/soa.js';
import { parseSrv } from '../types/srv.js';
import { parseTarget } from '../types/target.js';
import { parseTxt } from '../types/txt.js';
import type { ParsedValue } from '../types/value.js';

export type { ParsedValue, ValueData, ValueProblem } from '../types/value.js';
export { splitTxt, quoteString, unescapeString, octetsText, txtOctets, txtStringOctets } from '../types/text.js';

/** The longest presentation value of a type other than TXT/SPF (the API's schema holds values to it too). */
export const MAX_VALUE_CHARS = 4096;

const tooLong = (type: RecordType, raw: string): ParsedValue => ({
  canonical: raw,
  data: null,
  problems: [
    {
      rule: 'value-length',
      en: `A ${type} value holds at most ${MAX_VALUE_CHARS} characters; this one has ${raw.length}.`,
      uk: `Значення ${type} вміщує не більше ${MAX_VALUE_CHARS} символів; це має ${raw.length}.`,
    },
  ],
});

/**
 * Presentation values per record type: parse, validate (every problem) and canonicalise. Each type lives
 * in core/dns/types/ and validates itself (STYLE 9); this file only dispatches.
 */
export const parseValue = (type: RecordType, raw: string, origin: string): ParsedValue => {
  if (raw.length > MAX_VALUE_CHARS && type !== 'TXT' && type !== 'SPF') return tooLong(type, raw);
  switch (type) {
    case 'A':
      return parseA(raw);
    case 'AAAA':
      return parseAaaa(raw);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return parseTarget(type, raw, origin);
    case 'MX':
      return parseMx(raw, origin);
    case 'SRV':
      return parseSrv(raw, origin);
    case 'CAA':
      return parseCaa(raw);
    case 'TXT':
    case 'SPF':
      return parseTxt(type, raw);
    case 'SOA':
      return parseSoa(raw, origin);
  }
};

/** The canonical presentation of a value, or the value itself when it does not parse (a check reports it). */
export const canonicalValue = (type: RecordType, raw: string, origin: string): string => parseValue(type, raw, origin).canonical;

const cache = new WeakMap<RecordSet, { origin: string; parsed: readonly ParsedValue[] }>();

/** The parsed values of a record set, computed once per set object (outside a plan; rules use ZoneView.parsed). */
export const parsedValues = (set: RecordSet, origin: string): readonly ParsedValue[] => {
  const hit = cache.get(set);
  if (hit && hit.origin === origin) return hit.parsed;
  const parsed = set.values.map((v) => parseValue(set.type, v, origin));
  cache.set(set, { origin, parsed });
  return parsed;
};

/** Record sets are unordered (RFC 2181 §5): equal when they hold the same values, whatever the order. */
export const sameValues = (a: readonly string[], b: readonly string[]): boolean => {
  if (a.length !== b.length) return false;
  if (a.length === 1) return a[0] === b[0];
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
};
