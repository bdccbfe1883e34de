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
