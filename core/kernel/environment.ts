/** Seed 2.1 / A2–A3: every key, and every account-owned row, lives in one environment. */
export const ENVIRONMENTS = ['live', 'test'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];
export const isEnvironment = (v: unknown): v is Environment => v === 'live' || v === 'test';
