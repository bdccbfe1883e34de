import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/**
 * Apex SOA and NS belong to the service and follow the domain's nameservers (DESIGN; issue 4): a plan that
 * creates, updates or deletes them is invalid. The apex NS/SOA themselves are RFC 1034 §4.2.1's.
 */
export const apexSoaNsServiceOwned: Rule = {
  id: 'apex-soa-ns-service-owned',
  severity: 'error',
  rfc: 'DESIGN (service-owned apex); RFC 1034 §4.2.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const c of zone.changes) {
      if (c.name === zone.origin && (c.type === 'SOA' || c.type === 'NS')) {
        out.push(
          result(
            this,
            c.name,
            c.type,
            `The apex ${c.type} records belong to the service and follow the domain's nameservers; a plan cannot ${c.action} them.`,
            `Записи ${c.type} на вершині зони належать сервісу й відповідають серверам імен домену; план не може їх ${c.action === 'create' ? 'створювати' : c.action === 'update' ? 'змінювати' : 'видаляти'}.`,
          ),
        );
      }
    }
    return out;
  },
};
