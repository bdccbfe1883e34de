/**
 * Where the console sends a person back to — after signing in (again), a re-auth, a language or
 * environment switch, a resumed form — is a console path on this origin, nothing else: not an absolute
 * or protocol-relative address (`https://…`, `//…`, `/\…`), not a path that climbs out of /console
 * (`..`, also percent-encoded), no whitespace or control characters. Anything else is the fallback.
 */
const CONSOLE_PATH = /^\/console(\/[^\s\\\u0000-\u001f\u007f]*)?$/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

export const isConsolePath = (p: unknown): p is string => {
  if (typeof p !== 'string' || p.length > 2000 || !CONSOLE_PATH.test(p) || p.startsWith('//')) return false;
  const path = p.split(/[?#]/, 1)[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  return !DOT_SEGMENT.test(path) && !DOT_SEGMENT.test(decoded) && !decoded.includes('\\') && !decoded.startsWith('//');
};

export const safeNext = (next: unknown, fallback = '/console/'): string => (isConsolePath(next) ? next : fallback);
