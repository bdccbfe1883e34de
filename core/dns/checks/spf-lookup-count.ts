import type { CheckResult } from '../plans/plan.js';
import { isAtOrBelow } from '../zone/names.js';
import type { RecordSet } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { spfValues } from './spf.js';

export const SPF_LOOKUP_LIMIT = 10;

const meta = { id: 'spf-lookup-count', severity: 'warning' } as const;

/**
 * The SPF policies of a TXT set: how many lookups their own terms cost (RFC 7208 §4.6.4: include, a, mx,
 * ptr, exists and redirect), and the names inside the zone they include or redirect to, in order.
 */
const spfTerms = (txt: RecordSet | undefined, origin: string): { cost: number; into: string[] } => {
  let cost = 0;
  const into: string[] = [];
  for (const policy of spfValues(txt)) {
    for (const term of policy.split(/\s+/).slice(1)) {
      const t = term.replace(/^[+\-~?]/, '').toLowerCase();
      const m = /^(include|a|mx|ptr|exists)(?:$|[:/])|^(redirect)=/.exec(t);
      if (!m) continue;
      cost += 1;
      const target = /^(?:include:|redirect=)([^%\s]+?)\.?$/.exec(t)?.[1];
      if (target && isAtOrBelow(target, origin)) into.push(target);
    }
  }
  return { cost, into };
};

interface Frame {
  readonly name: string;
  readonly into: readonly string[];
  next: number;
  count: number;
}

/**
 * The lookups of the policy at `name`: its own terms and, followed, the policies it includes or redirects to
 * inside this zone. A policy that reaches an include loop needs more than the limit whatever the order of the
 * records: a receiver goes round the loop, one lookup per include, until it passes the limit and fails with
 * permerror (RFC 7208 §4.6.4, §5.2). So a name met again on the way (on the current path) counts LIMIT + 1.
 * Iterative (a zone file can chain thousands of includes) and stops counting once past the limit: receivers
 * stop there too, so the count is exact up to the limit and LIMIT + 1 beyond it. Each count depends only on
 * the policies its name reaches, never on which names were counted before (the memo is shared by them).
 */
const lookups = (zone: ZoneView, name: string, memo: Map<string, number>): number => {
  const hit = memo.get(name);
  if (hit !== undefined) return hit;
  const visiting = new Set<string>();
  const stack: Frame[] = [];
  const enter = (n: string): void => {
    visiting.add(n);
    const { cost, into } = spfTerms(zone.names.get(n)?.get('TXT'), zone.origin);
    stack.push({ name: n, into, next: 0, count: cost });
  };
  enter(name);
  let total = 0;
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.count > SPF_LOOKUP_LIMIT || f.next >= f.into.length) {
      stack.pop();
      visiting.delete(f.name);
      const n = Math.min(f.count, SPF_LOOKUP_LIMIT + 1);
      memo.set(f.name, n);
      if (stack.length > 0) stack[stack.length - 1]!.count += n;
      else total = n;
      continue;
    }
    const target = f.into[f.next++]!;
    const known = memo.get(target);
    if (known !== undefined) f.count += known;
    else if (visiting.has(target)) f.count += SPF_LOOKUP_LIMIT + 1;
    else enter(target);
  }
  return total;
};

const report = (name: string, n: number): CheckResult =>
  result(
    meta,
    name,
    'TXT',
    `This SPF policy needs ${n > SPF_LOOKUP_LIMIT ? `more than ${SPF_LOOKUP_LIMIT}` : n} DNS lookups (include, a, mx, ptr, exists, redirect); receivers stop at ${SPF_LOOKUP_LIMIT} and fail it.`,
    `Ця політика SPF потребує ${n > SPF_LOOKUP_LIMIT ? `понад ${SPF_LOOKUP_LIMIT}` : n} DNS-запитів (include, a, mx, ptr, exists, redirect); одержувачі зупиняються на ${SPF_LOOKUP_LIMIT} і вважають її помилковою.`,
  );

/** Warning: an SPF policy needing more than 10 lookups ends in permerror (RFC 7208 §4.6.4). */
export const spfLookupCount: Rule = {
  ...meta,
  rfc: 'RFC 7208 §4.6.4',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    const memo = new Map<string, number>();
    for (const txt of zone.ofType('TXT')) {
      const name = txt.name;
      if (spfValues(txt).length === 0) continue;
      const n = lookups(zone, name, memo);
      if (n > SPF_LOOKUP_LIMIT) out.push(report(name, n));
    }
    return out;
  },
  // A policy's count does not depend on which policies were counted before it (loops included), so counting
  // only these names gives the whole-zone numbers.
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    const memo = new Map<string, number>();
    for (const name of names) {
      const txt = zone.get(name, 'TXT');
      if (!txt || spfValues(txt).length === 0) continue;
      const n = lookups(zone, name, memo);
      if (n > SPF_LOOKUP_LIMIT) out.push(report(name, n));
    }
    return out;
  },
  // A count depends on the TXT sets of the names its policy reaches: the names that reach a changed TXT set.
  affected(delta) {
    const changed = delta.namesChanging('TXT');
    if (changed.length === 0) return [];
    const includedBy = new Map<string, Set<string>>();
    for (const txt of delta.setsOfType('TXT')) {
      for (const target of spfTerms(txt, delta.origin).into) {
        let by = includedBy.get(target);
        if (!by) includedBy.set(target, (by = new Set()));
        by.add(txt.name);
      }
    }
    const reached = new Set<string>(changed);
    const queue = [...changed];
    while (queue.length > 0) {
      for (const by of includedBy.get(queue.pop()!) ?? []) {
        if (!reached.has(by)) {
          reached.add(by);
          queue.push(by);
        }
      }
    }
    return reached;
  },
};
