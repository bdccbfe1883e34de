import type { Clock } from '../kernel/clock.port.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { CheckOutcome, VerifyHosting } from './verify-hosting.use-case.js';

/** What RecheckHosting is built from (one object, named, instead of positions). */
export interface RecheckHostingDeps {
  readonly domains: Pick<DomainRepository, 'activeHosted'>;
  readonly verify: Pick<VerifyHosting, 'check'>;
  readonly clock: Clock;
  /** HOSTING_RECHECK_SECONDS: each active zone is checked again once this long has passed. */
  readonly intervalMs: number;
}

export type RecheckReport = Partial<Record<CheckOutcome, number>> & { checked: number };

/**
 * The worker's pass: every active hosted zone whose last check is older than the interval is checked again
 * (VerifyHosting.check). A delegation gone or moved away sets `hosting.problem`, records
 * `domain.hosting_problem` and tells the owners; the zone stays served (a lookup failure changes nothing).
 */
export class RecheckHosting {
  constructor(private readonly deps: RecheckHostingDeps) {}

  async run(opts: { limit?: number } = {}): Promise<RecheckReport> {
    const report: RecheckReport = { checked: 0 };
    const limit = opts.limit ?? 200;
    let after: { name: string; id: string } | null = null;
    for (;;) {
      const page = await this.deps.domains.activeHosted(after, 100);
      if (page.length === 0) break;
      for (const d of page) {
        const last = d.hosting?.checkedAt?.getTime() ?? 0;
        if (this.deps.clock.now().getTime() - last < this.deps.intervalMs) continue;
        const { outcome } = await this.deps.verify.check(d, 'system:hosting');
        report.checked++;
        report[outcome] = (report[outcome] ?? 0) + 1;
        if (report.checked >= limit) return report;
      }
      const lastOfPage = page[page.length - 1]!;
      after = { name: lastOfPage.name, id: lastOfPage.id };
    }
    return report;
  }
}
