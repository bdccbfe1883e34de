import { expect } from 'chai';
import { buildPlan } from '../../core/dns/plans/plan-builder.js';
import { apex, ORIGIN } from './zone-fixtures.js';

/** A hostile SPF include chain is counted without recursion, and counting stops at RFC 7208's limit. */
describe('SPF lookup counter on deep include chains', () => {
  const DEPTH = 4400;
  const chain = (): string => {
    const lines = [`$ORIGIN ${ORIGIN}.`, `@ 3600 IN SOA ${apex()[0]!.values[0]}`];
    for (let i = 0; i < DEPTH; i++) lines.push(`s${i} 300 IN TXT "v=spf1 include:s${i + 1}.${ORIGIN} -all"`);
    lines.push(`s${DEPTH} 300 IN TXT "v=spf1 -all"`);
    return `${lines.join('\n')}\n`;
  };

  it('a 4,400-deep include chain in a zone file is judged, not a stack overflow; over-limit names warn "more than 10"', () => {
    const plan = buildPlan({ origin: ORIGIN, current: apex(), input: { zone_file: chain() } });
    const warned = plan.checks.filter((c) => c.rule === 'spf-lookup-count');
    // s0…s(DEPTH-11) reach more than 10 includes; the last ten names and the leaf do not.
    expect(warned.length).to.equal(DEPTH - 10);
    expect(warned[0]!.message.en).to.contain('more than 10 DNS lookups');
    expect(warned[0]!.message.uk).to.contain('понад 10');
  });

  it('the same chain through incremental changes (checkNames) is judged too', () => {
    const current = buildPlan({ origin: ORIGIN, current: apex(), input: { zone_file: chain() } }).after;
    const plan = buildPlan({
      origin: ORIGIN,
      current,
      input: {
        changes: [
          {
            action: 'update',
            name: `s${DEPTH}`,
            type: 'TXT',
            ttl: 300,
            values: ['v=spf1 a -all'],
            current: { ttl: 300, values: ['v=spf1 -all'] },
          },
        ],
      },
    });
    expect(plan.valid).to.equal(true);
    expect(plan.checks.filter((c) => c.rule === 'spf-lookup-count').length).to.be.above(0);
  });
});
