/**
 * Calendar arithmetic for the account's zone, Europe/Kyiv (DESIGN: Time). Pure: uses Intl's tz data,
 * never the process clock.
 */
export const ACCOUNT_TIME_ZONE = 'Europe/Kyiv';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const isIsoDate = (s: string): boolean => {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
};

const ymdFormatter = new Intl.DateTimeFormat('en-CA', {
  timeZone: ACCOUNT_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** The calendar date (YYYY-MM-DD) in Kyiv at the given instant. */
export const kyivDate = (at: Date): string => ymdFormatter.format(at);

/** Whole calendar days from one YYYY-MM-DD date to another (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to.slice(0, 10)}T00:00:00Z`) - Date.parse(`${from.slice(0, 10)}T00:00:00Z`)) / 86_400_000);

/** Adds whole days to a YYYY-MM-DD date. */
export const addDays = (date: string, days: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
};

const offsetFormatter = new Intl.DateTimeFormat('en-US', {
  timeZone: ACCOUNT_TIME_ZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

/** Kyiv's UTC offset in milliseconds at an instant (+2 h in winter, +3 h in summer). */
const kyivOffsetMs = (at: Date): number => {
  const p = Object.fromEntries(offsetFormatter.formatToParts(at).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
};

/** The first instant of a Kyiv calendar day. */
export const startOfKyivDay = (date: string): Date => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  // Two passes settle the offset even on DST-change days.
  let instant = guess - kyivOffsetMs(new Date(guess));
  instant = guess - kyivOffsetMs(new Date(instant));
  return new Date(instant);
};

const endOfDayMemo = new Map<string, number>();

/** A key is valid through its expiry date: until the end of that day in Kyiv (DESIGN: classes).
 * Memoised: it is asked on every keyed call and Intl's time-zone arithmetic is not cheap. */
export const endOfKyivDay = (date: string): Date => {
  let t = endOfDayMemo.get(date);
  if (t === undefined) {
    t = startOfKyivDay(addDays(date, 1)).getTime() - 1;
    if (endOfDayMemo.size > 10_000) endOfDayMemo.clear();
    endOfDayMemo.set(date, t);
  }
  return new Date(t);
};

/** The Kyiv calendar month (YYYY-MM) of an instant, and its bounds — the spend-limit month. */
export const kyivMonth = (at: Date): { month: string; start: Date; end: Date } => {
  const month = kyivDate(at).slice(0, 7);
  const [y, m] = month.split('-').map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return { month, start: startOfKyivDay(`${month}-01`), end: startOfKyivDay(next) };
};

/** Adds calendar years; 29 February becomes 28 February in a common year (registry practice). */
export const addYears = (date: string, years: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const ty = y + years;
  const lastDay = new Date(Date.UTC(ty, m, 0)).getUTCDate();
  return `${String(ty).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(Math.min(d, lastDay)).padStart(2, '0')}`;
};
