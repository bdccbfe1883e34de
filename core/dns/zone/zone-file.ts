import { inputResult } from '../checks/input-rule.js';
import { recordType, SUPPORTED_TYPES } from '../checks/record-type.js';
import { result } from '../checks/rule.js';
import { mixedTtl } from '../checks/rrset-ttl.js';
import { zoneFileSyntax } from '../checks/zone-file-syntax.js';
import { canonicalKey, normalizeOrigin, relativeName, resolveName } from './names.js';
import type { CheckResult } from '../plans/plan.js';
import type { RecordSet, RecordType } from './record-set.js';
import { isRecordType, RECORD_TYPES, soaValue } from './record-set.js';
import { quoteString, unescapeString } from '../types/text.js';
import { DomainError } from '../../kernel/errors.js';
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

interface LexProblem {
  readonly line: number;
  readonly en: string;
  readonly uk: string;
}

const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r';

/**
 * Splits text into logical entries: parentheses join lines, `;` starts a comment, quotes keep spaces.
 * Streaming: it is fed text that ends at a line end (no token crosses one), any number of times, and
 * hands each entry on once the next line shows it is complete — so a file is never held whole.
 */
class Lexer {
  private line = 1;
  private depth = 0;
  private cur: Entry | null = null;
  private atLineStart = true;

  constructor(
    private readonly onEntry: (e: Entry) => void,
    private readonly onProblem: (p: LexProblem) => void,
  ) {}

  private finish(): void {
    if (this.cur && this.cur.tokens.length > 0) this.onEntry(this.cur);
    this.cur = null;
  }

  /** Whole lines (the last may lack its line end only at the end of the input). */
  feed(text: string): void {
    let i = 0;
    while (i < text.length) {
      const c = text[i]!;
      if (this.atLineStart && this.depth === 0) {
        this.finish();
        this.cur = { line: this.line, blankOwner: isSpace(c), tokens: [] };
        this.atLineStart = false;
      }
      if (c === '\n') {
        this.line++;
        this.atLineStart = true;
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
        this.depth++;
        i++;
        continue;
      }
      if (c === ')') {
        if (this.depth === 0) this.onProblem({ line: this.line, en: 'a ")" without "("', uk: '«)» без «(»' });
        else this.depth--;
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
        if (text[j] !== '"') this.onProblem({ line: this.line, en: 'an unterminated quoted string', uk: 'незакритий рядок у лапках' });
        this.cur!.tokens.push({ text: body, quoted: true });
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
      this.cur!.tokens.push({ text: word, quoted: false });
      i = j;
    }
  }

  end(): void {
    this.finish();
    if (this.depth > 0) this.onProblem({ line: this.line, en: 'a "(" that is never closed', uk: '«(», яку так і не закрито' });
  }
}

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
const TYPE_NAMES: ReadonlyMap<string, RecordType> = new Map(RECORD_TYPES.map((t) => [t, t]));

/** DNSSEC record types: the service signs zones itself (DESIGN), so an import reports and drops them. */
export const DNSSEC_TYPES = ['DNSKEY', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'CDS', 'CDNSKEY'] as const;

export interface ParsedZoneFile {
  /** Record sets with absolute names and canonical-ready values, including apex SOA and NS if present. */
  readonly recordSets: RecordSet[];
  readonly results: CheckResult[];
}

/** A record an import leaves out, and why (the service's own, DNSSEC, or a type we do not serve). */
export interface SkippedRecord {
  readonly name: string;
  readonly type: string;
  readonly reason: 'service-owned' | 'dnssec' | 'unsupported';
  readonly line: number;
}

/**
 * How strictly to read. A `zone_file` plan reports every problem as a check result; an import (`strict`)
 * stops at the first thing that makes the text not this zone's file — a syntax error, `$INCLUDE`, a name
 * outside the zone, a class other than IN — with a DomainError naming the line, and reports what it leaves
 * out (apex SOA/NS, DNSSEC types, types we do not serve) instead of calling them errors.
 */
export interface ZoneFileOptions {
  readonly strict?: boolean;
  /** `$GENERATE` (BIND) is read, up to this many records per directive; without it, it is refused. */
  readonly generateMax?: number;
  /**
   * Characters every `$GENERATE` of a text may write together (GENERATE_MAX_CHARS unless told; an import
   * passes its byte limit): a few bytes of template must not become more text than a file could hold.
   */
  readonly generateMaxChars?: number;
  /** Every record read (skipped ones too) counts; past this many the parse stops (import_too_many_records). */
  readonly maxRecords?: number;
  readonly onSkipped?: (s: SkippedRecord) => void;
}

/**
 * A set as it is read. Kept small: a file of a million records holds about as many of them at once (an
 * import's peak), so one value is a string (an array from the second), and the sets of one owner name share
 * its string and are chained from the first (one map entry per name, no key string per set).
 */
interface SetDraft {
  readonly name: string;
  readonly type: RecordType;
  readonly ttl: number;
  values: string | string[];
  /** Every TTL seen, only once a second one differs (RFC 2181 §5.2). */
  ttls: number[] | null;
  /** The next set of the same owner name, in the order first seen. */
  next: SetDraft | null;
}

/**
 * Streaming BIND master-file reader (RFC 1035 §5; `$TTL` RFC 2308 §4): `push` text in chunks of any size,
 * then `end`. `$ORIGIN`, `$TTL`, relative names, `@`, blank owners, parentheses, comments, quoted strings
 * with `\X`/`\DDD` escapes, TTL units, class IN; `$GENERATE` when allowed. Names become A-labels (UTS #46).
 * TXT strings of one record are joined into the plain text (DESIGN).
 */
export class ZoneFileParser {
  private readonly origin: string;
  private readonly results: CheckResult[] = [];
  private readonly lexResults: CheckResult[] = [];
  /** The first set of each owner name (the rest chained from it). */
  private readonly byName = new Map<string, SetDraft>();
  /** Every set, in the order first seen (the order they are handed out in). */
  private order: Array<SetDraft | undefined> = [];
  private readonly lexer: Lexer;
  private pending = '';
  private currentOrigin: string;
  private defaultTtl: number | null = null;
  private lastTtl: number | null = null;
  private lastOwner: string | null = null;
  /** The owner token last resolved, and the $ORIGIN it was resolved against (a name repeated line after line is resolved once). */
  private lastOwnerText: string | null = null;
  private lastOwnerOrigin = '';
  /** Records read so far, skipped ones included. */
  recordsRead = 0;
  /** Characters every `$GENERATE` so far wrote (ZoneFileOptions.generateMaxChars). */
  private generatedChars = 0;

  constructor(
    originInput: string,
    private readonly options: ZoneFileOptions = {},
  ) {
    this.origin = normalizeOrigin(originInput);
    this.currentOrigin = this.origin;
    this.lexer = new Lexer(
      (e) => this.entry(e),
      (p) => {
        // Reported before the records' problems, as a whole-text read always did.
        if (this.options.strict) this.syntax(p.line, p.en, p.uk);
        else this.lexResults.push(inputResult(zoneFileSyntax, this.origin, null, `Line ${p.line}: ${p.en}.`, `Рядок ${p.line}: ${p.uk}.`));
      },
    );
  }

  push(chunk: string): void {
    const text = this.pending + chunk;
    const cut = text.lastIndexOf('\n');
    if (cut < 0) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(cut + 1);
    this.lexer.feed(text.slice(0, cut + 1));
  }

  end(): ParsedZoneFile {
    const { recordSets, results } = this.drain();
    return { recordSets: [...recordSets], results };
  }

  /**
   * The end of the text, read once: the record sets are handed out one by one and let go as they are (the
   * parser keeps none), so a zone of a million sets is not held twice while a plan is built from it.
   */
  drain(): { readonly recordSets: Iterable<RecordSet>; readonly results: CheckResult[] } {
    if (this.pending !== '') this.lexer.feed(this.pending);
    this.pending = '';
    this.lexer.end();
    for (const s of this.order) if (s!.ttls) this.results.push(mixedTtl(s!.name, s!.type, s!.ttls));
    this.byName.clear();
    const order = this.order;
    this.order = [];
    function* handOut(): Generator<RecordSet> {
      for (let i = 0; i < order.length; i++) {
        const s = order[i]!;
        order[i] = undefined;
        yield { name: s.name, type: s.type, ttl: s.ttl, values: typeof s.values === 'string' ? [s.values] : s.values };
      }
      order.length = 0;
    }
    return { recordSets: handOut(), results: [...this.lexResults, ...this.results] };
  }

  private syntax(line: number, en: string, uk: string, type: string | null = null): void {
    if (this.options.strict) throw new DomainError('zone_file_invalid', { line, reason: en, reason_uk: uk });
    this.results.push(inputResult(zoneFileSyntax, this.origin, type, `Line ${line}: ${en}.`, `Рядок ${line}: ${uk}.`));
  }

  /** A name in the file, made absolute with a trailing dot against the current $ORIGIN. */
  private absolute(token: string): string {
    return token === '@' ? `${this.currentOrigin}.` : token.endsWith('.') ? token : `${token}.${this.currentOrigin}.`;
  }

  private entry(e: Entry): void {
    const t = e.tokens;
    const first = t[0]!;
    if (!e.blankOwner && !first.quoted && first.text.startsWith('$')) {
      const directive = first.text.toUpperCase();
      if (directive === '$ORIGIN' && t[1]) {
        const o = this.absolute(t[1].text).toLowerCase();
        this.currentOrigin = o === '.' ? '' : o.slice(0, -1);
      } else if (directive === '$TTL' && t[1] && parseTtl(t[1].text) !== null) this.defaultTtl = parseTtl(t[1].text);
      else if (directive === '$INCLUDE') {
        if (this.options.strict) throw new DomainError('zone_file_include', { line: e.line });
        this.syntax(e.line, '$INCLUDE is not supported; paste the included text', '$INCLUDE не підтримується; вставте вміст файлу');
      } else if (directive === '$GENERATE' && this.options.generateMax !== undefined) this.generate(e);
      else this.syntax(e.line, `cannot read the directive ${first.text}`, `не вдалося прочитати директиву ${first.text}`);
      return;
    }
    this.record(e);
  }

  private record(e: Entry): void {
    const t = e.tokens;
    const first = t[0]!;
    let k = 0;
    let owner: string | null;
    if (e.blankOwner) owner = this.lastOwner;
    else if (this.lastOwner !== null && first.text === this.lastOwnerText && this.currentOrigin === this.lastOwnerOrigin) {
      owner = this.lastOwner;
      k = 1;
    } else {
      if (first.text.includes('\\')) {
        this.syntax(e.line, `escapes in names are not supported: ${first.text}`, `екранування в іменах не підтримується: ${first.text}`);
        return;
      }
      const resolved = resolveName(this.absolute(first.text), this.origin);
      if (!resolved.ok) {
        if (this.options.strict && resolved.problem.rule === 'owner-in-zone')
          throw new DomainError('zone_file_out_of_zone', { line: e.line, name: first.text, domain: this.origin });
        if (this.options.strict)
          throw new DomainError('zone_file_invalid', { line: e.line, reason: resolved.problem.en, reason_uk: resolved.problem.uk });
        this.results.push(
          result(
            { id: resolved.problem.rule, severity: 'error' },
            first.text,
            null,
            `Line ${e.line}: ${resolved.problem.en}`,
            `Рядок ${e.line}: ${resolved.problem.uk}`,
          ),
        );
        this.lastOwner = null;
        return;
      }
      owner = resolved.name;
      k = 1;
      this.lastOwnerText = first.text;
      this.lastOwnerOrigin = this.currentOrigin;
    }
    if (owner === null) {
      this.syntax(
        e.line,
        'the record has no owner name (the line starts with a space and no record comes before it)',
        'запис не має імені власника (рядок починається з пробілу, а попереднього запису немає)',
      );
      return;
    }
    this.lastOwner = owner;

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
      if (this.options.strict) throw new DomainError('zone_file_class', { line: e.line, class: klass });
      this.syntax(e.line, `class ${klass} is not served; only IN`, `клас ${klass} не обслуговується; лише IN`);
      return;
    }
    const typeToken = t[k]?.text.toUpperCase();
    if (typeToken === undefined) {
      this.syntax(e.line, 'the record has no type', 'запис не має типу');
      return;
    }
    this.recordsRead++;
    if (this.options.maxRecords !== undefined && this.recordsRead > this.options.maxRecords)
      throw new DomainError('import_too_many_records', { limit: this.options.maxRecords });
    if (this.options.strict) {
      const skip = skipReason(owner, typeToken, this.origin);
      if (skip) {
        this.options.onSkipped?.({ name: owner, type: typeToken, reason: skip, line: e.line });
        return;
      }
    }
    if (!isRecordType(typeToken)) {
      this.results.push(
        inputResult(
          recordType,
          owner,
          typeToken,
          `Line ${e.line}: unsupported record type ${typeToken}; supported: ${SUPPORTED_TYPES}.`,
          `Рядок ${e.line}: непідтримуваний тип запису ${typeToken}; підтримуються: ${SUPPORTED_TYPES}.`,
        ),
      );
      return;
    }
    // The one constant string of the type, not the line's upper-cased copy (one per record held otherwise).
    const type: RecordType = TYPE_NAMES.get(typeToken)!;
    const rdata = t.slice(k + 1);
    if (rdata.length === 0) {
      this.syntax(e.line, `the ${type} record has no data`, `запис ${type} не має даних`, type);
      return;
    }
    if (ttl !== null) this.lastTtl = ttl;
    const effectiveTtl = ttl ?? this.defaultTtl ?? this.lastTtl ?? 3600;

    const value = rdataValue(
      type,
      rdata,
      (x) => this.absolute(x),
      (en, uk) => this.syntax(e.line, en, uk, type),
    );
    if (value === null) return;
    const head = this.byName.get(owner);
    let s = head;
    let last: SetDraft | undefined;
    while (s !== undefined && s.type !== type) {
      last = s;
      s = s.next ?? undefined;
    }
    if (!s) {
      const made: SetDraft = { name: head?.name ?? owner, type, ttl: effectiveTtl, values: value, ttls: null, next: null };
      if (last) last.next = made;
      else this.byName.set(owner, made);
      this.order.push(made);
    } else {
      if (typeof s.values === 'string') s.values = [s.values, value];
      else s.values.push(value);
      if (effectiveTtl !== s.ttl && !s.ttls?.includes(effectiveTtl)) s.ttls = [...(s.ttls ?? [s.ttl]), effectiveTtl];
    }
  }

  /**
   * BIND's `$GENERATE start-stop[/step] lhs [ttl] [class] type rhs`: `$` is the counter, `\$` a dollar,
   * `${offset[,width[,base]]}` with base d, o, x or X. Bounded by `generateMax` records per directive.
   */
  private generate(e: Entry): void {
    const t = e.tokens;
    const range = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(t[1]?.text ?? '');
    if (!range || t.length < 5) {
      this.syntax(
        e.line,
        '$GENERATE needs "start-stop[/step] lhs [ttl] [class] type rhs"',
        '$GENERATE потребує «start-stop[/step] lhs [ttl] [class] type rhs»',
      );
      return;
    }
    const start = Number(range[1]);
    const stop = Number(range[2]);
    const step = range[3] === undefined ? 1 : Number(range[3]);
    if (stop < start || step < 1) {
      this.syntax(e.line, `$GENERATE range ${t[1]!.text} is empty`, `діапазон $GENERATE ${t[1]!.text} порожній`);
      return;
    }
    const count = Math.floor((stop - start) / step) + 1;
    const limit = this.options.generateMax!;
    if (count > limit) {
      if (this.options.strict) throw new DomainError('zone_file_generate_too_large', { line: e.line, count, limit });
      this.syntax(e.line, `$GENERATE makes ${count} records, over ${limit}`, `$GENERATE створює ${count} записів, більше за ${limit}`);
      return;
    }
    const template = t.slice(2);
    const budget = this.options.generateMaxChars ?? GENERATE_MAX_CHARS;
    for (let i = start; i <= stop; i += step) {
      const tokens: Token[] = [];
      for (const tok of template) {
        const text = tok.quoted ? tok.text : substitute(tok.text, i);
        if (text === null) {
          this.syntax(
            e.line,
            `cannot read the $GENERATE modifier in ${tok.text} (a width is at most ${WIDTH_MAX})`,
            `не вдалося прочитати модифікатор $GENERATE у ${tok.text} (ширина — не більше ${WIDTH_MAX})`,
          );
          return;
        }
        if (text.length > GENERATED_FIELD_MAX) {
          this.syntax(
            e.line,
            `$GENERATE writes a field of ${text.length} characters from ${tok.text}, longer than any name (${GENERATED_FIELD_MAX})`,
            `$GENERATE пише з ${tok.text} поле з ${text.length} символів, довше за будь-яке ім'я (${GENERATED_FIELD_MAX})`,
          );
          return;
        }
        this.generatedChars += text.length;
        tokens.push({ text, quoted: tok.quoted });
      }
      if (this.generatedChars > budget) {
        this.syntax(e.line, `$GENERATE writes more than ${budget} characters in all`, `$GENERATE пише загалом понад ${budget} символів`);
        return;
      }
      this.record({ line: e.line, blankOwner: false, tokens });
    }
  }
}

/** What `$GENERATE` may write in all, unless the reader is told otherwise (ZoneFileOptions.generateMaxChars). */
export const GENERATE_MAX_CHARS = 16 * 1024 * 1024;
/**
 * The widest field `$GENERATE` may write: a name is at most 255 octets, each at most 4 characters written
 * (`\DDD`), and so is a character-string. A `${offset,width}` wider than a name is refused as unreadable.
 */
const GENERATED_FIELD_MAX = 1020;
const WIDTH_MAX = 255;

/** `$` → the counter in a $GENERATE template; null when a `${…}` modifier cannot be read (or is wider than any name). */
const substitute = (text: string, i: number): string | null => {
  let out = '';
  for (let j = 0; j < text.length; j++) {
    const c = text[j]!;
    if (c === '\\' && text[j + 1] === '$') {
      out += '$';
      j++;
    } else if (c === '$' && text[j + 1] === '{') {
      const close = text.indexOf('}', j);
      const m = close < 0 ? null : /^([+-]?\d+)(?:,(\d+)(?:,([doxX]))?)?$/.exec(text.slice(j + 2, close));
      if (!m || Number(m[2] ?? 0) > WIDTH_MAX) return null;
      const base = { d: 10, o: 8, x: 16, X: 16 }[(m[3] ?? 'd') as 'd' | 'o' | 'x' | 'X'];
      let digits = (i + Number(m[1])).toString(base);
      if (m[3] === 'X') digits = digits.toUpperCase();
      out += digits.padStart(Number(m[2] ?? 0), '0');
      j = close;
    } else if (c === '$') out += String(i);
    else out += c;
  }
  return out;
};

const skipReason = (owner: string, type: string, origin: string): SkippedRecord['reason'] | null => {
  if (owner === origin && (type === 'SOA' || type === 'NS')) return 'service-owned';
  if ((DNSSEC_TYPES as readonly string[]).includes(type)) return 'dnssec';
  if (!isRecordType(type)) return 'unsupported';
  return null;
};

/**
 * Parse BIND text against the zone `origin` (the whole text at once; ZoneFileParser for streams). Problems
 * come back as check results, never thrown.
 */
export const parseZoneFile = (text: string, originInput: string): ParsedZoneFile => {
  const parser = new ZoneFileParser(originInput);
  parser.push(text);
  return parser.end();
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
