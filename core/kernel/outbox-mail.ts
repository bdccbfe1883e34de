/**
 * One e-mail in the durable outbox: written in the transaction of what it tells of, sent later by the
 * worker (a mail server that is down delays mail, loses none). Owners' notices and invitations share it.
 */
export interface OutboxMail {
  readonly id: string;
  /** What the mail tells of (a notice, an invitation): the outbox keys every message by it. */
  readonly noticeId: string;
  readonly recipientId: string;
  readonly address: string;
  readonly subject: string;
  readonly body: string;
  readonly attempts: number;
  readonly createdAt: Date;
}
