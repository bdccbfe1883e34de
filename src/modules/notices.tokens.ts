import { token } from './token.js';
import type { ListNotices } from '../../core/notices/list-notices.use-case.js';
import type { NotifyOwners } from '../../core/notices/notify-owners.js';
import type { DeliverNotices } from '../../core/notices/deliver-notices.use-case.js';
import type { ListKeyNotices } from '../../core/notices/list-key-notices.use-case.js';
import type { Mailer } from '../../core/notices/ports/mailer.port.js';

/** Injection tokens of the notices capability (src/ binds them by explicit token; core/ has no decorators). */
export const NOTICES_TOKENS = {
  NotifyOwners: token<NotifyOwners>('NotifyOwners'),
  ListNotices: token<ListNotices>('ListNotices'),
  ListKeyNotices: token<ListKeyNotices>('ListKeyNotices'),
  Mailer: token<Mailer>('Mailer'),
  DeliverNotices: token<DeliverNotices>('DeliverNotices'),
} as const;
