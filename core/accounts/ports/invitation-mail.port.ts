import type { OutboxMail } from '../../kernel/outbox-mail.js';

/**
 * Queues the invitation e-mail in the caller's transaction (the notices' e-mail outbox implements it). The
 * invitee is not yet a person of the account, and the link holds a one-time token, so this is no owners'
 * notice and never an event: accounts writes the message straight to the durable outbox.
 */
export interface InvitationMail {
  enqueue(mails: readonly OutboxMail[]): Promise<void>;
}
