import { token } from './token.js';
import type { HumanReads } from '../../core/console/human-reads.use-case.js';

/** Injection tokens of the console capability (src/ binds them by explicit token; core/ has no decorators). */
export const CONSOLE_TOKENS = {
  HumanReads: token<HumanReads>('HumanReads'),
} as const;
