import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { type Mailer, mailHtml, type SendError } from '../mail/index.ts';
import { AdminError } from './admin-error.ts';

// A test mail from the company's mailbox, sent right away (the app's "Testmail senden",
// `kontor admin mailbox test`): the person sees at once whether the SMTP settings work, or
// the server's answer in German. Without SMTP settings it lands in the outbox folder, as
// every mail would. The attempt and its outcome are in the audit trail (never a password).

export type TestMailResult =
  | { ok: true; to: string; via: 'smtp' | 'outbox'; server: string | null; from: string; message_id: string; path: string | null }
  | { ok: false; to: string; via: 'smtp' | 'outbox'; server: string | null; error: SendError };

/** The typed recipient is no e-mail address (nothing was sent); the message is German. */
export class TestMailRefused extends Error {}

const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]+$/;

export const TEST_MAIL_SUBJECT = (companyName: string) => `Testmail von Kontor für ${companyName}`;

export async function sendTestMail(
  deps: { db: Database; clock: Clock; mailer: Mailer },
  actor: Actor & { email: string },
  input: { companyId: string; to?: string | null },
): Promise<TestMailResult> {
  const company = await deps.db.selectFrom('companies').select(['id', 'name', 'email', 'smtp']).where('id', '=', input.companyId).executeTakeFirst();
  if (!company) throw new AdminError(`no company ${input.companyId}`);
  const smtp = (typeof company.smtp === 'string' ? JSON.parse(company.smtp) : company.smtp) as SmtpSettings | null;
  const to = input.to?.trim() || actor.email;
  if (!ADDRESS.test(to) || to.length > 254) throw new TestMailRefused(`„${to.slice(0, 100)}“ ist keine gültige E-Mail-Adresse.`);
  const server = smtp ? `${smtp.host}:${smtp.port}` : null;
  const lines = [
    ['Guten Tag,'],
    [
      `diese Testmail hat ${actor.email} in Kontor für ${company.name} ausgelöst.`,
      smtp
        ? `Sie ging über das Postfach ${smtp.from} (Server ${server}) hinaus: Der Versand von Rechnungen, Mahnungen und Abrechnungen funktioniert.`
        : 'Es ist kein SMTP-Postfach eingerichtet; die Mail liegt im Postausgang-Ordner von Kontor.',
    ],
    ['Sie müssen nichts weiter tun.'],
  ];
  const outcome = await deps.mailer.send(
    { id: company.id, name: company.name, email: company.email, smtp },
    {
      to,
      subject: TEST_MAIL_SUBJECT(company.name),
      text: `${lines.map((paragraph) => paragraph.join('\n')).join('\n\n')}\n\n-- \n${company.name}\n`,
      html: mailHtml(lines, [company.name]),
      attachments: [],
    },
  );
  const via = smtp ? 'smtp' : 'outbox';
  await recordAudit(deps.db, actor, deps.clock.now(), {
    action: 'company.test_mail_sent',
    subjectType: 'company',
    subjectId: company.id,
    after: outcome.ok
      ? { to, via: outcome.via, server, delivered: true }
      : { to, via, server, delivered: false, error_code: outcome.error.code, error: outcome.error.message },
  });
  if (!outcome.ok) return { ok: false, to, via, server, error: outcome.error };
  return { ok: true, to, via: outcome.via, server, from: smtp?.from ?? company.email ?? '', message_id: outcome.messageId, path: outcome.path ?? null };
}
