import type { CheckResult } from '../plans/plan.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

const meta = { id: 'soa-apex', severity: 'error' } as const;

const checkApex = (zone: ZoneView, out: CheckResult[]): void => {
  const apex = zone.get(zone.origin, 'SOA');
  if (!apex || apex.values.length !== 1) {
    out.push(
      result(
        meta,
        zone.origin,
        'SOA',
        `The zone apex must have exactly one SOA record; it has ${apex?.values.length ?? 0}.`,
        `Вершина зони повинна мати рівно один запис SOA; зараз їх ${apex?.values.length ?? 0}.`,
      ),
    );
  }
};

const checkOwner = (zone: ZoneView, name: string, out: CheckResult[]): void => {
  if (name === zone.origin) return;
  out.push(
    result(
      meta,
      name,
      'SOA',
      `An SOA record belongs only at the zone apex (${zone.origin}), not at ${name}.`,
      `Запис SOA може бути лише на вершині зони (${zone.origin}), а не на ${name}.`,
    ),
  );
};

/** Exactly one SOA, at the apex, and nowhere else (RFC 1034 §4.2.1, §4.3.5; RFC 1035 §5.2). */
export const soaApex: Rule = {
  ...meta,
  rfc: 'RFC 1034 §4.2.1; RFC 1035 §5.2',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    checkApex(zone, out);
    for (const { name } of zone.ofType('SOA')) checkOwner(zone, name, out);
    return out;
  },
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    if (names.has(zone.origin)) checkApex(zone, out);
    for (const name of names) if (zone.get(name, 'SOA')) checkOwner(zone, name, out);
    return out;
  },
  // Each result depends on its own name only.
  affected: () => [],
};
