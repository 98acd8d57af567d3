import type { Mailer, MailingCompany, OutgoingMail } from '../modules/mail/index.ts';
import { PermanentJobError } from './registry.ts';

/**
 * A job's notice mail, sent once: nothing when the company's outbox holds it already (a
 * rerun after a crash between the send and the job's end; over SMTP the Message-ID lets
 * receivers drop a repeat). No recipient address ends the job for good (`recipient` names
 * whose address is missing); any other refusal is retried.
 */
export async function sendJobMail(
  mailer: Mailer | undefined,
  company: MailingCompany,
  mail: OutgoingMail & { messageId: string },
  what: string,
  recipient = 'the company',
): Promise<void> {
  if (!mailer) throw new Error('this process has no mailer');
  if ((await mailer.holds(company, mail.messageId)) === true) return;
  const outcome = await mailer.send(company, mail);
  if (outcome.ok) return;
  if (outcome.error.code === 'recipient_missing') throw new PermanentJobError(`${recipient} has no e-mail address`);
  throw new Error(`${what} not sent: ${outcome.error.code}`);
}
