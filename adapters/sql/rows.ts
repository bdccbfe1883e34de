/** Small conversions between row values and domain values, shared by the repositories. */
export const iso = (d: Date): string => d.toISOString();
export const date = (s: string): Date => new Date(s);
export const dateOrNull = (s: string | null | undefined): Date | null => (s ? new Date(s) : null);
export const json = (v: unknown): string => JSON.stringify(v);
export const parse = <T>(s: string): T => JSON.parse(s) as T;
/** SQLite returns booleans as 0/1, Postgres bigint sums as strings. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
