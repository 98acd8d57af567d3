import { randomUUID } from 'node:crypto';
import type { MailboxAddress } from 'nodemailer/lib/addressparser';
import addressparser from 'nodemailer/lib/addressparser';
import type { MailingCompany, SendError } from './types.ts';

// Header values the mailer derives from the company and the message: recipient, sender,
// reply address and Message-ID. Checked here, before any connection is opened.

const ADDR_SPEC = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/;
// id-left and id-right of RFC 5322 msg-id, restricted to what survives every mail system.
const MESSAGE_ID = /^<?([A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+)>?$/;

/** The recipients of `to`, or the `recipient_missing` error when there is no usable address. */
export function parseRecipients(to: string | null): MailboxAddress[] | SendError {
  const text = to?.trim() ?? '';
  if (text === '') {
    return { code: 'recipient_missing', message: 'Für den Kunden ist keine E-Mail-Adresse hinterlegt. Bitte die E-Mail-Adresse beim Kunden ergänzen.' };
  }
  const parsed = addressparser(text, { flatten: true });
  if (parsed.length === 0 || parsed.some((entry) => !ADDR_SPEC.test(entry.address))) {
    return {
      code: 'recipient_missing',
      message: `Die E-Mail-Adresse des Kunden „${text.slice(0, 200)}“ ist keine gültige Adresse. Bitte die E-Mail-Adresse beim Kunden korrigieren.`,
    };
  }
  return parsed;
}

/** The From header: the configured address, with the company name as display name unless it names one itself. */
export function senderAddress(company: MailingCompany): MailboxAddress {
  const configured = company.smtp?.from ?? company.email;
  const parsed = configured ? addressparser(configured, { flatten: true })[0] : undefined;
  // Without SMTP and without a company address the outbox copy still needs a syntactically valid sender.
  if (!parsed?.address) return { name: company.name, address: 'keine-antwort@kontor.invalid' };
  return { name: parsed.name || company.name, address: parsed.address };
}

/** Reply-To: the company's general address when the mailbox sending is a different one. */
export function replyToAddress(company: MailingCompany, sender: MailboxAddress): string | undefined {
  const email = company.email?.trim();
  if (!email || email.toLowerCase() === sender.address.toLowerCase()) return undefined;
  return ADDR_SPEC.test(email) ? email : undefined;
}

/** `<left@right>` from a caller's id (with or without brackets), or a new one. Throws on a malformed id: that is a caller bug. */
export function messageIdFor(companyId: string, given: string | undefined): string {
  if (given === undefined) return `<${randomUUID()}.${idPart(companyId)}@kontor>`;
  const match = MESSAGE_ID.exec(given.trim());
  if (!match) throw new TypeError(`not a Message-ID: ${JSON.stringify(given)}`);
  return `<${match[1]}>`;
}

/** The stable Message-ID of an invoice mail: a retried send carries the same id. */
export function invoiceMessageId(companyId: string, invoiceNumber: string): string {
  return `<${idPart(invoiceNumber)}.${idPart(companyId)}@kontor>`;
}

function idPart(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
}
