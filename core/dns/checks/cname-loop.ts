import type { CheckResult } from '../plan.js';
import type { RecordSet } from '../record-set.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

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
    const next = (name: string): string | null => {
      const set: RecordSet | undefined = zone.names.get(name)?.get('CNAME');
      const t = set ? zone.targets(set)[0] : undefined;
      return t !== undefined && zone.names.get(t)?.has('CNAME') ? t : null;
    };
    for (const { name: start } of zone.ofType('CNAME')) {
      if (state.has(start)) continue;
      const path: string[] = [];
      let at: string | null = start;
      while (at !== null && !state.has(at)) {
        state.set(at, 1);
        path.push(at);
        at = next(at);
      }
      if (at !== null && state.get(at) === 1) {
        const cycle = path.slice(path.indexOf(at));
        const shown = [...cycle, at].join(' → ');
        for (const name of cycle) {
          out.push(result(this, name, 'CNAME', `CNAME loop: ${shown}. Point one of them at a real host.`, `Цикл CNAME: ${shown}. Спрямуйте один із них на справжній вузол.`));
        }
      }
      for (const n of path) state.set(n, 2);
    }
    return out;
  },
};
