import type { CheckResult } from '../plans/plan.js';
import type { RecordSet } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

/** The CNAME after `name` in a chain: its target, if that is a CNAME owner in the zone. */
const nextInChain = (zone: ZoneView, name: string): string | null => {
  const set: RecordSet | undefined = zone.names.get(name)?.get('CNAME');
  const t = set ? zone.targets(set)[0] : undefined;
  return t !== undefined && zone.names.get(t)?.has('CNAME') ? t : null;
};

/**
 * No CNAME loop inside the zone (RFC 1034 §3.6.2: "CNAME chains should be followed… but loops"; RFC 1034
 * §5.2.2 resolvers must detect them). Each chain is walked once (three-colour marking), so O(n).
 */
export const cnameLoop: Rule = {
  id: 'cname-loop',
  severity: 'error',
  rfc: 'RFC 1034 §3.6.2, §5.2.2',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    const state = new Map<string, 1 | 2>(); // 1: on the current path, 2: done
    for (const { name: start } of zone.ofType('CNAME')) {
      if (state.has(start)) continue;
      const path: string[] = [];
      let at: string | null = start;
      while (at !== null && !state.has(at)) {
        state.set(at, 1);
        path.push(at);
        at = nextInChain(zone, at);
      }
      if (at !== null && state.get(at) === 1) {
        const cycle = path.slice(path.indexOf(at));
        const shown = [...cycle, at].join(' → ');
        for (const name of cycle) {
          out.push(
            result(
              this,
              name,
              'CNAME',
              `CNAME loop: ${shown}. Point one of them at a real host.`,
              `Цикл CNAME: ${shown}. Спрямуйте один із них на справжній вузол.`,
            ),
          );
        }
      }
      for (const n of path) state.set(n, 2);
    }
    return out;
  },
  /**
   * No chain from these names reaches a loop: then none of them is on one, so no result. A chain that does
   * reach one needs the whole zone: the loop's message starts where the first chain in zone order enters
   * it. Run on both views over every changed name, this also catches a plan that makes, breaks or
   * re-enters a loop; when no chain from a changed name reaches one, every loop and the chains into it
   * are the same before and after, so are their results.
   */
  checkNames(zone, names) {
    const done = new Set<string>();
    for (const start of names) {
      const path = new Set<string>();
      for (let at: string | null = start; at !== null && !done.has(at); at = nextInChain(zone, at)) {
        if (!zone.names.get(at)?.has('CNAME')) break;
        if (path.has(at)) return null;
        path.add(at);
      }
      for (const n of path) done.add(n);
    }
    return [];
  },
  affected: () => [],
};
