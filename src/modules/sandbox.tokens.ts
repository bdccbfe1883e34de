import { token } from './token.js';
import type { SeedDemo } from '../../core/sandbox/seed-demo.use-case.js';
import type { AccountTime } from '../../core/sandbox/account-time.js';
import type { AdvanceSandboxClock } from '../../core/sandbox/advance-clock.use-case.js';

/** Injection tokens of the sandbox capability (src/ binds them by explicit token; core/ has no decorators). */
import type { SimulateDelegation } from '../../core/sandbox/simulate-delegation.use-case.js';

export const SANDBOX_TOKENS = {
  SeedDemo: token<SeedDemo>('SeedDemo'),
  AccountTime: token<AccountTime>('AccountTime'),
  AdvanceSandboxClock: token<AdvanceSandboxClock>('AdvanceSandboxClock'),
  SimulateDelegation: token<SimulateDelegation>('SimulateDelegation'),
} as const;
