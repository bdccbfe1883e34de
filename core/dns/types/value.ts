/**
 * A parsed presentation value (DESIGN "Wire formats": zone-file presentation text, plain text for TXT/SPF).
 * Each record type parses its own values and returns every problem it finds, not just the first (STYLE 9).
 */
export interface ValueProblem {
  /** The check rule the problem belongs to, e.g. `mx-value` or `target-not-address`. */
  readonly rule: string;
  readonly en: string;
  readonly uk: string;
}

export type ValueData =
  | { readonly kind: 'address'; readonly address: string }
  | { readonly kind: 'host'; readonly host: string }
  | { readonly kind: 'mx'; readonly preference: number; readonly exchange: string }
  | { readonly kind: 'srv'; readonly priority: number; readonly weight: number; readonly port: number; readonly target: string }
  | { readonly kind: 'caa'; readonly flags: number; readonly tag: string; readonly value: string }
  | { readonly kind: 'txt'; readonly text: string; readonly strings: readonly string[] }
  | {
      readonly kind: 'soa';
      readonly mname: string;
      readonly rname: string;
      readonly serial: number;
      readonly refresh: number;
      readonly retry: number;
      readonly expire: number;
      readonly minimum: number;
    };

export interface ParsedValue {
  /** Canonical presentation text (the raw text when the value does not parse). */
  readonly canonical: string;
  readonly problems: readonly ValueProblem[];
  /** The parsed fields; null when the value does not parse. Host names are absolute, without the trailing dot ('' is the root). */
  readonly data: ValueData | null;
}

export const shown = (v: string): string => (v.length > 120 ? `${v.slice(0, 120)}…` : v);

/** An unsigned integer written in decimal, within max; null otherwise. */
export const parseUint = (token: string | undefined, max: number): number | null => {
  if (token === undefined || !/^\d{1,10}$/.test(token)) return null;
  const n = Number(token);
  return n <= max ? n : null;
};

export const UINT16 = 65535;
export const UINT32 = 4294967295;

/** Whitespace-separated fields of a presentation value. */
export const fields = (raw: string): string[] => {
  const t = raw.trim();
  return t === '' ? [] : t.split(/\s+/);
};

/** Shared by every value without problems (most of them), to spare the allocation. */
export const NO_PROBLEMS: readonly ValueProblem[] = Object.freeze([]);
