import type { Environment } from '../kernel/environment.js';

/** A top-up of the balance from the saved card (billing.topup). */
export interface TopUp {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly keyId: string | null;
  readonly amount: number;
  readonly status: 'pending' | 'succeeded' | 'declined' | 'failed';
  readonly providerId: string | null;
  readonly failureCode: string | null;
  readonly createdAt: Date;
}

export interface TopUps {
  insert(topUp: TopUp): Promise<void>;
  update(id: string, fields: Pick<TopUp, 'status' | 'providerId' | 'failureCode'>): Promise<void>;
  find(id: string): Promise<TopUp | null>;
}

/** Bounds of one top-up (kopiykas): 100 UAH … 500 000 UAH. */
export const TOPUP_MIN = 10_000;
export const TOPUP_MAX = 50_000_000;
