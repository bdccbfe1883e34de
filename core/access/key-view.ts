import { endOfKyivDay } from '../kernel/dates.js';
import { uah, type Money } from '../kernel/money.js';
import { CLASSES } from './classes.js';
import type { ApiKey, KeyStatus } from '../kernel/caller.js';
import type { Policy } from './policy.js';

export const keyStatus = (key: ApiKey, now: Date): KeyStatus => {
  if (key.revokedAt) return 'revoked';
  if (now > endOfKyivDay(key.conditions.expiresOn)) return 'expired';
  return 'active';
};

export interface KeyView {
  id: string;
  name: string;
  environment: string;
  class: number;
  class_name: { uk: string; en: string };
  policies: Policy[];
  conditions: { cidr: string | null; expires_on: string; spend_limit: Money | null };
  status: KeyStatus;
  created_at: string;
  created_by: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const viewKey = (key: ApiKey, now: Date): KeyView => ({
  id: key.id,
  name: key.name,
  environment: key.environment,
  class: key.class,
  class_name: { ...CLASSES[key.class].name },
  policies: key.policies.map((p) => ({ right: p.right, resources: p.resources })),
  conditions: {
    cidr: key.conditions.cidr,
    expires_on: key.conditions.expiresOn,
    spend_limit: key.conditions.spendLimit === null ? null : uah(key.conditions.spendLimit),
  },
  status: keyStatus(key, now),
  created_at: key.createdAt.toISOString(),
  created_by: key.createdBy,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
});
