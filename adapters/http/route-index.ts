import type Router from '@koa/router';

/**
 * Which route a request is for, without testing every route's pattern in turn (@koa/router's dispatch
 * tests all ~110 of them, and builds a middleware chain, on every request).
 *
 * The patterns stay @koa/router's own (path-to-regexp: case-insensitive, one optional trailing slash,
 * a parameter is one non-empty segment): the index only narrows which ones to test. A pattern's segments
 * cannot hold a slash, so a path can only match patterns with as many segments as it has; and its first
 * two segments, when they are literal, must equal the path's (ASCII letters in either case: a
 * case-insensitive pattern without the `u` flag folds no other character to ASCII). The candidates are
 * then tested with their own regular expressions in the order they were declared, and the first that
 * matches is the route, as with @koa/router when the handlers never call `next()` (ours never do).
 */
export interface IndexedRoute<H> {
  /** The pattern as @koa/router holds it: `/v1/domains/:domain`. */
  readonly path: string;
  readonly regexp: RegExp;
  /** The names of the pattern's capture groups, in order. */
  readonly paramNames: readonly string[];
  /** Upper case; @koa/router adds HEAD to every GET. */
  readonly methods: readonly string[];
  readonly handler: H;
}

export interface RouteMatch<H> {
  readonly route: IndexedRoute<H>;
  /** Decoded like @koa/router: a capture that is not valid percent-encoding stays as it came. */
  readonly params: Record<string, string>;
}

const PARAM_SEGMENT = /^:/;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** The path without one trailing slash (the patterns allow one), unless it is the root. */
const trimmed = (path: string): string => (path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.slice(0, -1) : path);

const slashes = (path: string): number => {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
};

/** The first two segments of a trimmed path ('' where there is none). */
const headOf = (path: string): [string, string] => {
  const a = path.indexOf('/', 1);
  if (a < 0) return [path.slice(1), ''];
  const b = path.indexOf('/', a + 1);
  return [path.slice(1, a), b < 0 ? path.slice(a + 1) : path.slice(a + 1, b)];
};

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

interface Bucket<H> {
  /** Routes whose first two segments are literal, by those segments in lower case, with every route of `any` merged in order. */
  readonly byHead: Map<string, Array<{ order: number; route: IndexedRoute<H> }>>;
  /** Routes with a parameter among their first two segments (or a non-ASCII literal): candidates for any path. */
  readonly any: Array<{ order: number; route: IndexedRoute<H> }>;
}

export class RouteIndex<H> {
  private readonly buckets = new Map<string, Bucket<H>>();

  constructor(routes: readonly IndexedRoute<H>[]) {
    routes.forEach((route, order) => {
      const path = trimmed(route.path);
      const [a, b] = headOf(path);
      const literal = !PARAM_SEGMENT.test(a) && !PARAM_SEGMENT.test(b) && ASCII_ONLY.test(a) && ASCII_ONLY.test(b);
      for (const method of new Set(route.methods)) {
        const key = `${method} ${slashes(path)}`;
        let bucket = this.buckets.get(key);
        if (!bucket) this.buckets.set(key, (bucket = { byHead: new Map(), any: [] }));
        if (!literal) bucket.any.push({ order, route });
        else {
          const head = `${a.toLowerCase()}/${b.toLowerCase()}`;
          const list = bucket.byHead.get(head) ?? [];
          list.push({ order, route });
          bucket.byHead.set(head, list);
        }
      }
    });
    for (const bucket of this.buckets.values()) {
      for (const list of bucket.byHead.values()) {
        list.push(...bucket.any);
        list.sort((x, y) => x.order - y.order);
      }
    }
  }

  /** The index of a @koa/router whose layers each hold one handler (routes, no router-level middleware). */
  static of<H>(router: Router): RouteIndex<H> {
    return new RouteIndex(
      router.stack.map((layer) => {
        if (!layer.regexp || layer.stack.length !== 1 || layer.methods.length === 0)
          throw new Error(`route ${layer.path}: not one handler`);
        return {
          path: String(layer.path),
          regexp: layer.regexp,
          paramNames: layer.paramNames.map((p) => p.name),
          methods: layer.methods,
          handler: layer.stack[0] as H,
        };
      }),
    );
  }

  /** The first declared route for this method whose pattern matches the path, or null. */
  find(method: string, path: string): RouteMatch<H> | null {
    const t = trimmed(path);
    const bucket = this.buckets.get(`${method} ${slashes(t)}`);
    if (!bucket) return null;
    const [a, b] = headOf(t);
    const candidates = bucket.byHead.get(`${a.toLowerCase()}/${b.toLowerCase()}`) ?? bucket.any;
    for (const { route } of candidates) {
      const m = route.regexp.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      for (let i = 1; i < m.length; i++) {
        const name = route.paramNames[i - 1];
        const value = m[i];
        if (name !== undefined && value !== undefined && value.length > 0) params[name] = decode(value);
      }
      return { route, params };
    }
    return null;
  }
}
