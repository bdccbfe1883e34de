import type { CheckResult } from '../plans/plan.js';
import { result } from './rule.js';

/**
 * Rules about a plan's input rather than the resulting zone (a stale `current`, a malformed change, a zone
 * file that does not parse). The plan builder reports them; each has an id, a severity and its source.
 */
export interface InputRule {
  readonly id: string;
  readonly severity: 'error' | 'warning';
  readonly rfc: string;
}

export const inputResult = (rule: InputRule, name: string, type: string | null, en: string, uk: string): CheckResult =>
  result(rule, name, type, en, uk);
