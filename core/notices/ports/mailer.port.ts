/** Sends one e-mail. Throws when the mail server did not accept it (the outbox will retry). */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
}
