import { inputResult } from '../checks/input-rule.js';
import { recordType, SUPPORTED_TYPES } from '../checks/record-type.js';
import { result } from '../checks/rule.js';
import { mixedTtl } from '../checks/rrset-ttl.js';
import { zoneFileSyntax } from '../checks/zone-file-syntax.js';
import { canonicalKey, normalizeOrigin, relativeName, resolveName } from './names.js';
import type { CheckResult } from '../plans/plan.js';
import type { RecordSet, RecordType } from './record-set.js';
import { isRecordType, rrsetKey, soaValue } from './record-set.js';
import { quoteString, unescapeString } from '../types/text.js';
import { parsedValues } from './values.js';
import type { Zone } from './zone.js';

/**
 * BIND master files (RFC 1035 §5; `$TTL` from RFC 2308 §4): the export of a zone, and the parser used by
 * `zone_file` plans. Both are pure; parse problems are check results with the line they come from.
 */

// ---------------------------------------------------------------- formatting

const TYPE_ORDER: Partial<Record<RecordType, number>> = { SOA: 0, NS: 1 };

/** Zone-file rdata for one value: canonical presentation; TXT/SPF as quoted ≤ 255-octet strings. */
const presentValue = (set: RecordSet, index: number, origin: string): string => {
  const p = parsedValues(set, origin)[index]!;
  const d = p.data;
  if (d?.kind === 'txt') return d.strings.map(quoteString).join(' ');
  if (!d && (set.type === 'TXT' || set.type === 'SPF')) return quoteString(set.values[index]!);
  return p.canonical;
};

/**
 * The zone as a BIND master file: `$ORIGIN`, the SOA first (its serial is the zone's), the apex NS, then
 * every set in DNS canonical order (RFC 4034 §6.1), names relative to the origin, every record with its
 * TTL and class. Passes `named-checkzone` and `kzonecheck` (tested).
 */
export const formatZoneFile = (zone: Zone): string => {
  const origin = normalizeOrigin(zone.domain);
  const lines: string[] = [`$ORIGIN ${origin}.`, `; ${origin} serial ${zone.serial}`];
  const sets = zone.recordSets.map((s) => ({ s, k: canonicalKey(s.name), t: TYPE_ORDER[s.type] ?? 2 }));
  sets.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.t - b.t || (a.s.type < b.s.type ? -1 : a.s.type > b.s.type ? 1 : 0)));
  if (!zone.recordSets.some((s) => s.name === origin && s.type === 'SOA')) {
    lines.push(`@ 3600 IN SOA ${soaValue(zone.serial)}`);
  }
  for (const { s } of sets) {
    const owner = relativeName(s.name, origin);
    for (let i = 0; i < s.values.length; i++) {
      let value = presentValue(s, i, origin);
      if (s.type === 'SOA' && s.name === origin) value = value.replace(/^(\S+\s+\S+\s+)\d+/, `$1${zone.serial}`);
      lines.push(`${owner} ${s.ttl} IN ${s.type} ${value}`);
    }
  }
  return `${lines.join('\n')}\n`;
};

// ---------------------------------------------------------------- parsing

interface Token {
  readonly text: string;
  readonly quoted: boolean;
}

interface Entry {
  readonly line: number;
  /** The line began with a space or tab: the owner is the previous record's (RFC 1035 §5.1). */
  readonly blankOwner: boolean;
  readonly tokens: Token[];
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';

/** Split the text into logical entries: parentheses join lines, `;` starts a comment, quotes keep spaces. */
const lex = (text: string, problems: Array<{ line: number; en: string; uk: string }>): Entry[] => {
  const entries: Entry[] = [];
  let line = 1;
  let depth = 0;
  let cur: Entry | null = null;
  let atLineStart = true;
  let i = 0;
  const finish = () => {
    if (cur && cur.tokens.length > 0) entries.push(cur);
    cur = null;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (atLineStart && depth === 0) {
      finish();
      cur = { line, blankOwner: isSpace(c), tokens: [] };
      atLineStart = false;
    }
    if (c === '\n') {
      line++;
      atLineStart = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === ';') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '(') {
      depth++;
      i++;
      continue;
    }
    if (c === ')') {
      if (depth === 0) problems.push({ line, en: 'a ")" without "("', uk: '«)» без «(»' });
      else depth--;
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let body = '';
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') {
        if (text[j] === '\\' && j + 1 < text.length) {
          body += text.slice(j, j + 2);
          j += 2;
        } else body += text[j++];
      }
      if (text[j] !== '"') problems.push({ line, en: 'an unterminated quoted string', uk: 'незакритий рядок у лапках' });
      cur!.tokens.push({ text: body, quoted: true });
      i = text[j] === '"' ? j + 1 : j;
      continue;
    }
    let j = i;
    let word = '';
    while (j < text.length && !isSpace(text[j]!) && !'\n;()"'.includes(text[j]!)) {
      if (text[j] === '\\' && j + 1 < text.length && text[j + 1] !== '\n') {
        word += text.slice(j, j + 2);
        j += 2;
      } else word += text[j++];
    }
    cur!.tokens.push({ text: word, quoted: false });
    i = j;
  }
  finish();
  if (depth > 0) problems.push({ line, en: 'a "(" that is never closed', uk: '«(», яку так і не закрито' });
  return entries;
};

/** BIND TTL syntax: seconds, or units w/d/h/m/s (e.g. 1h30m). null when it is not a TTL. */
export const parseTtl = (token: string): number | null => {
  if (/^\d+$/.test(token)) return Number(token);
  if (!/^(\d+[wdhms])+$/i.test(token)) return null;
  const unit: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };
  let n = 0;
  for (const m of token.toLowerCase().matchAll(/(\d+)([wdhms])/g)) n += Number(m[1]) * unit[m[2]!]!;
  return n;
};

const CLASSES = ['IN', 'CH', 'HS', 'CS'];

export interface ParsedZoneFile {
  /** Record sets with absolute names and canonical-ready values, including apex SOA and NS if present. */
  readonly recordSets: RecordSet[];
  readonly results: CheckResult[];
}

/**
 * Parse BIND text against the zone `origin`: `$ORIGIN`, `$TTL`, relative names, `@`, blank owners,
 * parentheses, comments, quoted strings with `\X`/`\DDD` escapes, TTL units, class IN. TXT strings of one
 * record are joined into the plain text (DESIGN). Problems come back as check results, never thrown.
 */
export const parseZoneFile = (text: string, originInput: string): ParsedZoneFile => {
  const origin = normalizeOrigin(originInput);
  const results: CheckResult[] = [];
  const lexProblems: Array<{ line: number; en: string; uk: string }> = [];
  const entries = lex(text, lexProblems);
  const syntax = (line: number, en: string, uk: string, type: string | null = null) =>
    results.push(inputResult(zoneFileSyntax, origin, type, `Line ${line}: ${en}.`, `Рядок ${line}: ${uk}.`));
  for (const p of lexProblems) syntax(p.line, p.en, p.uk);

  let currentOrigin = origin;
  let defaultTtl: number | null = null;
  let lastTtl: number | null = null;
  let lastOwner: string | null = null;
  const sets = new Map<string, { name: string; type: RecordType; ttl: number; values: string[]; ttls: Set<number> }>();

  /** A name in the file, made absolute with a trailing dot against the current $ORIGIN. */
  const absolute = (token: string): string =>
    token === '@' ? `${currentOrigin}.` : token.endsWith('.') ? token : `${token}.${currentOrigin}.`;

  for (const e of entries) {
    const t = e.tokens;
    const first = t[0]!;
    if (!e.blankOwner && !first.quoted && first.text.startsWith('$')) {
      const directive = first.text.toUpperCase();
      if (directive === '$ORIGIN' && t[1]) {
        const o = absolute(t[1].text).toLowerCase();
        currentOrigin = o === '.' ? '' : o.slice(0, -1);
      } else if (directive === '$TTL' && t[1] && parseTtl(t[1].text) !== null) defaultTtl = parseTtl(t[1].text);
      else if (directive === '$INCLUDE')
        syntax(e.line, '$INCLUDE is not supported; paste the included text', '$INCLUDE не підтримується; вставте вміст файлу');
      else syntax(e.line, `cannot read the directive ${first.text}`, `не вдалося прочитати директиву ${first.text}`);
      continue;
    }

    let k = 0;
    let owner: string | null;
    if (e.blankOwner) owner = lastOwner;
    else {
      if (first.text.includes('\\')) {
        syntax(e.line, `escapes in names are not supported: ${first.text}`, `екранування в іменах не підтримується: ${first.text}`);
        continue;
      }
      const resolved = resolveName(absolute(first.text), origin);
      if (!resolved.ok) {
        results.push(
          result(
            { id: resolved.problem.rule, severity: 'error' },
            first.text,
            null,
            `Line ${e.line}: ${resolved.problem.en}`,
            `Рядок ${e.line}: ${resolved.problem.uk}`,
          ),
        );
        lastOwner = null;
        continue;
      }
      owner = resolved.name;
      k = 1;
    }
    if (owner === null) {
      syntax(
        e.line,
        'the record has no owner name (the line starts with a space and no record comes before it)',
        'запис не має імені власника (рядок починається з пробілу, а попереднього запису немає)',
      );
      continue;
    }
    lastOwner = owner;

    let ttl: number | null = null;
    let klass = 'IN';
    for (let n = 0; n < 2 && k < t.length; n++) {
      const tok = t[k]!.text;
      const asTtl: number | null = ttl === null ? parseTtl(tok) : null;
      if (asTtl !== null) {
        ttl = asTtl;
        k++;
      } else if (CLASSES.includes(tok.toUpperCase())) {
        klass = tok.toUpperCase();
        k++;
      }
    }
    if (klass !== 'IN') {
      syntax(e.line, `class ${klass} is not served; only IN`, `клас ${klass} не обслуговується; лише IN`);
      continue;
    }
    const typeToken = t[k]?.text.toUpperCase();
    if (typeToken === undefined) {
      syntax(e.line, 'the record has no type', 'запис не має типу');
      continue;
    }
    if (!isRecordType(typeToken)) {
      results.push(
        inputResult(
          recordType,
          owner,
          typeToken,
          `Line ${e.line}: unsupported record type ${typeToken}; supported: ${SUPPORTED_TYPES}.`,
          `Рядок ${e.line}: непідтримуваний тип запису ${typeToken}; підтримуються: ${SUPPORTED_TYPES}.`,
        ),
      );
      continue;
    }
    const type: RecordType = typeToken;
    const rdata = t.slice(k + 1);
    if (rdata.length === 0) {
      syntax(e.line, `the ${type} record has no data`, `запис ${type} не має даних`, type);
      continue;
    }
    if (ttl !== null) lastTtl = ttl;
    const effectiveTtl = ttl ?? defaultTtl ?? lastTtl ?? 3600;

    const value = rdataValue(type, rdata, absolute, (en, uk) => syntax(e.line, en, uk, type));
    if (value === null) continue;
    const key = rrsetKey(owner, type);
    const s = sets.get(key);
    if (!s) sets.set(key, { name: owner, type, ttl: effectiveTtl, values: [value], ttls: new Set([effectiveTtl]) });
    else {
      s.values.push(value);
      s.ttls.add(effectiveTtl);
    }
  }

  const recordSets: RecordSet[] = [];
  for (const s of sets.values()) {
    if (s.ttls.size > 1) results.push(mixedTtl(s.name, s.type, [...s.ttls]));
    recordSets.push({ name: s.name, type: s.type, ttl: s.ttl, values: s.values });
  }
  return { recordSets, results };
};

/** A record's rdata tokens as our presentation value (names absolute with a trailing dot; TXT as plain text). */
const rdataValue = (
  type: RecordType,
  rdata: Token[],
  absolute: (t: string) => string,
  problem: (en: string, uk: string) => void,
): string | null => {
  const name = (tok: Token | undefined): string => {
    if (!tok) return '';
    if (tok.quoted || tok.text.includes('\\')) {
      problem(`the name ${tok.text} cannot be quoted or escaped`, `ім’я ${tok.text} не може бути в лапках чи з екрануванням`);
      return tok.text;
    }
    return tok.text === '.' ? '.' : absolute(tok.text).toLowerCase();
  };
  const words = (toks: Token[]) => toks.map((x) => x.text).join(' ');
  switch (type) {
    case 'A':
    case 'AAAA':
      return words(rdata);
    case 'CNAME':
    case 'NS':
    case 'PTR':
    case 'DNAME':
      return [name(rdata[0]), words(rdata.slice(1))].filter(Boolean).join(' ');
    case 'MX':
      return [rdata[0]!.text, name(rdata[1]), words(rdata.slice(2))].filter(Boolean).join(' ');
    case 'SRV':
      return [words(rdata.slice(0, 3)), name(rdata[3]), words(rdata.slice(4))].filter(Boolean).join(' ');
    case 'SOA': {
      // Timers may use TTL units (BIND): 1h → 3600.
      const numbers = rdata.slice(2).map((x, i) => (i === 0 ? x.text : String(parseTtl(x.text) ?? x.text)));
      return [name(rdata[0]), name(rdata[1]), ...numbers].filter(Boolean).join(' ');
    }
    case 'CAA': {
      if (rdata.length !== 3) return words(rdata);
      const v = unescapeString(rdata[2]!.text).text;
      return `${rdata[0]!.text} ${rdata[1]!.text} ${quoteString(v)}`;
    }
    case 'TXT':
    case 'SPF': {
      let text = '';
      for (const tok of rdata) {
        const u = unescapeString(tok.text);
        if (u.problem) problem(`in a TXT string: ${u.problem}`, `у рядку TXT: ${u.problem}`);
        text += u.text;
      }
      return text;
    }
  }
};
