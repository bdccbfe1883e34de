import type { Environment } from '../../kernel/environment.js';

/** An account's balance in kopiykas (the billing capability keeps it); deleting an account needs both at zero. */
export interface Balances {
  balance(accountId: string, environment: Environment): Promise<number>;
}
