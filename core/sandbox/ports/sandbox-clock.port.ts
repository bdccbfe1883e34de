/** Per-account sandbox time travel (DESIGN: it moves the lifecycle of that account's test environment). */
export interface SandboxClocks {
  /** Milliseconds the account's sandbox is ahead of real time (0 when it never travelled). */
  offset(accountId: string): Promise<number>;
  advance(accountId: string, ms: number): Promise<number>;
  /** Accounts whose sandbox is ahead, with their offsets. */
  travelled(): Promise<Array<{ accountId: string; offsetMs: number }>>;
}
