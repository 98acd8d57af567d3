import type { SmtpSettings } from '../../db/schema.ts';

// The shapes the mail module takes and gives. A failed send is a value (style rule 5:
// partial outcomes such as `send_error` are return values, not errors); only our own
// failures (the outbox disk, a bug) throw.

export type MailAttachment = { filename: string; content: Buffer; contentType: string };

export type OutgoingMail = {
  /** The recipient as stored on the customer; null or blank gives `recipient_missing`. */
  to: string | null;
  subject: string;
  text: string;
  html?: string;
  attachments: MailAttachment[];
  /** `<id-left@id-right>`; a retried send with the same id lets receivers drop the duplicate. Generated when absent. */
  messageId?: string;
};

/**
 * The interface's `SendError` (design §3); `message` is German, for a person.
 * `mail_unconfirmed`: a crash left it unknown whether the mail left (never from the mailer
 * itself; invoicing/mail-attempts.ts says it).
 */
export type SendError = {
  code: 'mail_rejected' | 'mail_unreachable' | 'recipient_missing' | 'mail_unconfirmed';
  message: string;
};

export type SendOutcome = { ok: true; messageId: string; via: 'smtp' | 'outbox'; path?: string } | { ok: false; error: SendError };

/** The sending company as the mailer needs it (a slice of the companies row). */
export type MailingCompany = {
  id: string;
  name: string;
  email: string | null;
  smtp: SmtpSettings | null;
};
