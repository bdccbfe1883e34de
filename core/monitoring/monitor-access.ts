import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import type { RightName } from '../kernel/rights.js';
import { DomainError } from '../kernel/errors.js';
import type { Monitor } from './monitor.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

/**
 * Loads a monitor the key may act on: same account and environment, and `right` on its domain
 * (seed A4: right + domain, like everything else). A monitor of a domain outside the key's policies
 * answers 404 monitor_not_found, so a key learns nothing about domains it cannot see.
 */
export const loadMonitor = async (
  monitors: MonitorRepository,
  authorizer: Authorizer,
  key: ApiKey,
  id: string,
  right: RightName,
): Promise<Monitor> => {
  const m = await monitors.find(id);
  if (!m || m.accountId !== key.accountId || m.environment !== key.environment)
    throw new DomainError('monitor_not_found', { monitor_id: id });
  const readable = await authorizer.allows(key, 'monitor.read', m.domain);
  if (!readable) throw new DomainError('monitor_not_found', { monitor_id: id });
  if (right !== 'monitor.read') await authorizer.check(key, right, m.domain);
  return m;
};
