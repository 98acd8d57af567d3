// Public face of the mail module: sending from a company's mailbox (or its outbox folder)
// and the German invoice mail.
export { invoiceMessageId } from './addresses.ts';
export { formatDate, formatEuro, formatIban } from './german-format.ts';
export { invoiceMail } from './invoice-mail.ts';
export { mailHtml } from './mail-html.ts';
export { createMailer, type Mailer, type MailerOptions } from './mailer.ts';
export { DEFAULT_TIMEOUTS, type SmtpTimeouts } from './smtp-options.ts';
export type { MailAttachment, MailingCompany, OutgoingMail, SendError, SendOutcome } from './types.ts';
