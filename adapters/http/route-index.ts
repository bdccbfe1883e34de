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

/** A path's shape: how many segments (slashes) it has once one trailing slash is set aside, and its first two segments. */
interface Shape {
  readonly slashes: number;
  readonly first: string;
  readonly second: string;
}

/** In one pass, without copying the path (the patterns allow one trailing slash; the root keeps its own). */
const shapeOf = (path: string): Shape => {
  const end = path.length > 1 && path.charCodeAt(path.length - 1) === 47 ? path.length - 1 : path.length;
  let slashes = 0;
  let second = -1;
  let third = -1;
  for (let i = 0; i < end; i++) {
    if (path.charCodeAt(i) !== 47) continue;
    slashes++;
    if (slashes === 2) second = i;
    else if (slashes === 3) third = i;
  }
  return {
    slashes,
    first: path.slice(1, second < 0 ? end : second),
    second: second < 0 ? '' : path.slice(second + 1, third < 0 ? end : third),
  };
};

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

type Candidates<H> = Array<{ order: number; route: IndexedRoute<H> }>;

interface Bucket<H> {
  /** Routes whose first two segments are literal, by those segments in lower case, with every route of `any` merged in order. */
  readonly byHead: Map<string, Map<string, Candidates<H>>>;
  /** Routes with a parameter among their first two segments (or a non-ASCII literal): candidates for any path. */
  readonly any: Candidates<H>;
}

export class RouteIndex<H> {
  /** By method, then by the number of slashes. */
  private readonly buckets = new Map<string, Array<Bucket<H> | undefined>>();

  constructor(routes: readonly IndexedRoute<H>[]) {
    routes.forEach((route, order) => {
      const { slashes, first, second } = shapeOf(route.path);
      const literal = !PARAM_SEGMENT.test(first) && !PARAM_SEGMENT.test(second) && ASCII_ONLY.test(first) && ASCII_ONLY.test(second);
      for (const method of new Set(route.methods)) {
        const bySlashes: Array<Bucket<H> | undefined> = this.buckets.get(method) ?? [];
        this.buckets.set(method, bySlashes);
        const bucket: Bucket<H> = (bySlashes[slashes] ??= { byHead: new Map(), any: [] });
        if (!literal) bucket.any.push({ order, route });
        else {
          const seconds = bucket.byHead.get(first.toLowerCase()) ?? new Map<string, Candidates<H>>();
          bucket.byHead.set(first.toLowerCase(), seconds);
          const list: Candidates<H> = seconds.get(second.toLowerCase()) ?? [];
          list.push({ order, route });
          seconds.set(second.toLowerCase(), list);
        }
      }
    });
    for (const bySlashes of this.buckets.values()) {
      for (const bucket of bySlashes) {
        for (const seconds of bucket?.byHead.values() ?? []) {
          for (const list of seconds.values()) {
            list.push(...bucket!.any);
            list.sort((x, y) => x.order - y.order);
          }
        }
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
    const shape = shapeOf(path);
    const bucket = this.buckets.get(method)?.[shape.slashes];
    if (!bucket) return null;
    const candidates = bucket.byHead.get(shape.first.toLowerCase())?.get(shape.second.toLowerCase()) ?? bucket.any;
    for (const { route } of candidates) {
      const m = route.regexp.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      for (let i = 1; i < m.length; i++) {
        const name = route.paramNames[i - 1];
        const value = m[i];
        if (name !== undefined && value !== undefined && value.length > 0) params[name] = value.includes('%') ? decode(value) : value;
      }
      return { route, params };
    }
    return null;
  }
}
