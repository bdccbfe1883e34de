import { hostCandidate } from '../types/host.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';

/** The types whose targets the zone rules follow (CNAME chains, NS glue, MX and SRV hosts). */
export const POINTING_TYPES: ReadonlySet<RecordType> = new Set<RecordType>(['CNAME', 'MX', 'SRV', 'NS']);

const NO_SETS: readonly RecordSet[] = [];

const SPACE = /\s/;
/** Exactly the characters `\s` matches (what fields() in types/value.ts splits on), quickly for ASCII. */
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c >= 0x80 && SPACE.test(String.fromCharCode(c)));

/** The last whitespace-separated field of a value (fields(v).at(-1)), or null when it has none. */
export const lastField = (v: string): string | null => {
  let end = v.length;
  while (end > 0 && isSpace(v.charCodeAt(end - 1))) end--;
  if (end === 0) return null;
  let start = end - 1;
  while (start > 0 && !isSpace(v.charCodeAt(start - 1))) start--;
  return start === 0 && end === v.length ? v : v.slice(start, end);
};

/**
 * Who points where: target name → the CNAME, MX, SRV and NS sets whose values name it. Built once, on first
 * use, without parsing the values: a value's host is its last field (CNAME and NS have one field, MX two,
 * SRV four), resolved as parseHost resolves it (types/host.ts `hostCandidate`), so every set that really
 * points at a name is listed under it; a set whose value does not parse may be listed too, so callers
 * confirm with ZoneView.targets. `visit` may give sets of more than one version of the zone (a plan's
 * before and after): callers also confirm that a set belongs to the zone they look at.
 */
export class TargetIndex {
  /** One set, or several (most names are the target of one set). */
  private byTarget: Map<string, RecordSet | RecordSet[]> | null = null;

  constructor(
    private readonly origin: string,
    private readonly forEachSet: (visit: (set: RecordSet) => void) => void,
  ) {}

  private index(): Map<string, RecordSet | RecordSet[]> {
    if (this.byTarget) return this.byTarget;
    const byTarget = new Map<string, RecordSet | RecordSet[]>();
    const origin = this.origin;
    this.forEachSet((set) => {
      if (!POINTING_TYPES.has(set.type)) return;
      for (const v of set.values) {
        const token = lastField(v);
        const host = token === null ? null : hostCandidate(token, origin);
        if (host === null) continue;
        const had = byTarget.get(host);
        if (had === undefined) byTarget.set(host, set);
        else if (!Array.isArray(had)) {
          if (had !== set) byTarget.set(host, [had, set]);
        } else if (had[had.length - 1] !== set) had.push(set);
      }
    });
    return (this.byTarget = byTarget);
  }

  /** The sets that may point at `target`. */
  candidates(target: string): readonly RecordSet[] {
    const had = this.index().get(target);
    return had === undefined ? NO_SETS : Array.isArray(had) ? had : [had];
  }

  /** Every name some set may point at. */
  targets(): IterableIterator<string> {
    return this.index().keys();
  }
}
