import { DomainError } from './errors.js';

/** Cursor pages (DESIGN: limit ≤ 200, next_cursor). A cursor is opaque: base64url of the last sort key. */
export const MAX_PAGE = 200;
export const DEFAULT_PAGE = 50;

export interface Page<T> {
  readonly data: T[];
  readonly next_cursor: string | null;
}

export const encodeCursor = (after: string): string => Buffer.from(JSON.stringify({ a: after }), 'utf8').toString('base64url');

export const decodeCursor = (cursor: string | undefined): string | undefined => {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown };
    if (typeof v.a === 'string' && !v.a.includes('\u0000')) return v.a;
  } catch {
    /* fall through */
  }
  throw new DomainError('cursor_invalid');
};

export const clampLimit = (limit: number | undefined): number => Math.min(Math.max(limit ?? DEFAULT_PAGE, 1), MAX_PAGE);

/** How many store pages beyond the first one call reads to fill a filtered page before it hands back a cursor. */
export const FILTERED_PAGE_ROUNDS = 20;

/**
 * One cursor page of a list that is filtered after reading (the key sees only some of the account's rows):
 * reads store pages of `limit` from `cursor` on until the page is full, the list ends, or
 * 1 + FILTERED_PAGE_ROUNDS store pages were read — then the cursor continues after the last row looked at, so a key
 * that sees few of many rows gets short (even empty) pages with a cursor rather than one unbounded call.
 */
export async function filteredPage<T, V>(q: {
  cursor: string | undefined;
  limit: number | undefined;
  fetch: (before: string | undefined, limit: number) => Promise<readonly T[]>;
  sortKey: (row: T) => string;
  keep: (row: T) => boolean | Promise<boolean>;
  view: (row: T) => V;
}): Promise<Page<V>> {
  const limit = clampLimit(q.limit);
  let before = decodeCursor(q.cursor);
  const out: T[] = [];
  let next: string | undefined;
  for (let round = 0; ; round++) {
    const batch = await q.fetch(before, limit);
    let i = 0;
    for (; i < batch.length && out.length < limit; i++) {
      const row = batch[i]!;
      before = q.sortKey(row);
      if (await q.keep(row)) out.push(row);
    }
    if (out.length >= limit) {
      next = i < batch.length || batch.length === limit ? before : undefined;
      break;
    }
    if (batch.length < limit) break;
    if (round >= FILTERED_PAGE_ROUNDS) {
      next = before;
      break;
    }
  }
  return { data: out.map(q.view), next_cursor: next ? encodeCursor(next) : null };
}

/** An async yes/no per key, asked once per key (a right on a domain, for every row of one page). */
export function memoized(ask: (key: string) => Promise<boolean>): (key: string) => Promise<boolean> {
  const seen = new Map<string, boolean>();
  return async (key) => {
    let ok = seen.get(key);
    if (ok === undefined) seen.set(key, (ok = await ask(key)));
    return ok;
  };
}
