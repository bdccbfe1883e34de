import { token } from './token.js';
import type { ListEvents } from '../../core/events/list-events.use-case.js';

/** Injection tokens of the events capability (src/ binds them by explicit token; core/ has no decorators). */
export const EVENTS_TOKENS = {
  ListEvents: token<ListEvents>('ListEvents'),
} as const;
