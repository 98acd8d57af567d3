import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { SmtpSettings } from '../../db/schema.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { messageIdFor, parseRecipients, replyToAddress, senderAddress } from './addresses.ts';
import { outboxHolds, writeToOutbox } from './outbox.ts';
import { classifySmtpError } from './send-error.ts';
import { DEFAULT_TIMEOUTS, type SmtpTimeouts, settingsFingerprint, smtpPoolOptions } from './smtp-options.ts';
import type { MailingCompany, OutgoingMail, SendOutcome } from './types.ts';

// Sends a mail from the company's mailbox over SMTP, or, when the company has no SMTP
// settings, writes it to the outbox folder (design §1). Meant to run in a job after the
// commit that decided to send (style rule 3), never inside a transaction.

export type MailerOptions = {
  dataDir: string;
  sealer: Sealer;
  /** Date header and outbox file name; real time (a transport timestamp) unless a test sets it. */
  now?: () => Date;
  timeouts?: Partial<SmtpTimeouts>;
};

export type Mailer = {
  send(company: MailingCompany, message: OutgoingMail): Promise<SendOutcome>;
  /**
   * Whether a mail with this Message-ID left: the outbox file tells (true or false); over
   * SMTP nobody can know once the process that sent it is gone (null).
   */
  holds(company: MailingCompany, messageId: string): Promise<boolean | null>;
  /** Closes every pooled SMTP connection (shutdown, tests). */
  close(): void;
};

type CachedTransport = { fingerprint: string; transporter: Transporter; user: string | null; password: string | null };

export function createMailer({ dataDir, sealer, now = () => new Date(), timeouts }: MailerOptions): Mailer {
  const limits: SmtpTimeouts = { ...DEFAULT_TIMEOUTS, ...timeouts };
  // One pooled transport per company, replaced when its settings change (new fingerprint).
  const transports = new Map<string, CachedTransport>();

  function transportFor(companyId: string, smtp: SmtpSettings): CachedTransport {
    const fingerprint = settingsFingerprint(smtp);
    const cached = transports.get(companyId);
    if (cached?.fingerprint === fingerprint) return cached;
    cached?.transporter.close();
    transports.delete(companyId);
    // Throws when the instance secret changed since the password was sealed; the caller maps it.
    const password = smtp.password_sealed === null ? null : sealer.open(smtp.password_sealed);
    const transporter = nodemailer.createTransport(smtpPoolOptions(smtp, password, limits));
    // The pool reports broken idle connections itself; an unhandled 'error' event must never end the process.
    transporter.on('error', () => {});
    const entry = { fingerprint, transporter, user: smtp.user, password };
    transports.set(companyId, entry);
    return entry;
  }

  return {
    async send(company, message) {
      const recipients = parseRecipients(message.to);
      if (!Array.isArray(recipients)) return { ok: false, error: recipients };
      const messageId = messageIdFor(company.id, message.messageId);
      const from = senderAddress(company);
      const mail: SendMailOptions = {
        from,
        to: recipients,
        replyTo: replyToAddress(company, from),
        subject: message.subject,
        text: message.text,
        html: message.html,
        attachments: message.attachments.map((a) => ({
          filename: a.filename,
          content: a.content,
          contentType: a.contentType,
          contentDisposition: 'attachment',
        })),
        messageId,
        date: now(),
        // No "X-Mailer: Nodemailer" header: the mail comes from the company, and the outbox copy has none either.
        xMailer: false,
        disableFileAccess: true,
        disableUrlAccess: true,
      };

      if (!company.smtp) {
        const raw = await new MailComposer(mail).compile().build();
        const file = await writeToOutbox(dataDir, company.id, messageId, raw, now());
        return { ok: true, messageId, via: 'outbox', path: file };
      }

      const smtp = company.smtp;
      let transport: CachedTransport;
      try {
        transport = transportFor(company.id, smtp);
      } catch {
        return {
          ok: false,
          error: {
            code: 'mail_rejected',
            message:
              'Das gespeicherte Passwort des SMTP-Postfachs lässt sich nicht mehr entschlüsseln (Instanzschlüssel geändert?). Bitte das Passwort neu hinterlegen.',
          },
        };
      }
      try {
        await transport.transporter.sendMail(mail);
        return { ok: true, messageId, via: 'smtp' };
      } catch (error) {
        return { ok: false, error: classifySmtpError(error, { host: smtp.host, port: smtp.port, user: transport.user, password: transport.password }) };
      }
    },

    async holds(company, messageId) {
      if (company.smtp) return null;
      return outboxHolds(dataDir, company.id, messageIdFor(company.id, messageId));
    },

    close() {
      for (const { transporter } of transports.values()) transporter.close();
      transports.clear();
    },
  };
}
