/**
 * Queues the invitation e-mail in the caller's transaction (the notices' e-mail outbox implements it). The
 * invitee is not yet a person of the account, and the link holds a one-time token, so this is no owners'
 * notice and never an event: accounts writes the message straight to the durable outbox.
 */
export interface InvitationMail {
  enqueue(
    mails: ReadonlyArray<{
      readonly id: string;
      /** The invitation's id: the outbox keys every message by what it tells of. */
      readonly noticeId: string;
      readonly recipientId: string;
      readonly address: string;
      readonly subject: string;
      readonly body: string;
      readonly attempts: number;
      readonly createdAt: Date;
    }>,
  ): Promise<void>;
}
