/** Each key's spend per Kyiv calendar month, against its spend limit (seed 2.3). Billing reserves, access reports. */
export interface SpendCounters {
  /** Adds `amount` to the key's spend in `month` if the result stays ≤ limit; false otherwise. */
  reserve(keyId: string, month: string, amount: number, limit: number): Promise<boolean>;
  release(keyId: string, month: string, amount: number): Promise<void>;
  spent(keyId: string, month: string): Promise<number>;
}
