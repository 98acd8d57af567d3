import { createHash } from 'node:crypto';
import { type QueryCreator, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { DB, SmtpSettings } from '../../db/schema.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { defineJob, eventRow, type JobContext, type JobDone, PermanentJobError, recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import type { Mailer } from '../mail/index.ts';
import type { StatementDocument } from './statement-document.ts';
import { statementMail } from './statement-mail.ts';
import { type StatementRow, statementView } from './statement-view.ts';

// Job `statements.deliver`, committed with the issued statement: renders its PDF (and
// e-invoice) from the frozen document on the process's render threads (the invoices' pool,
// InvoicingDeps.renderStatement) and stores them once, then — when asked and the
// partner has an e-mail — mails them from the company's mailbox once: mail_started_at is
// committed before the mail leaves (with the files, when they were rendered just now);
// after a crash the outbox tells whether it left (over SMTP it counts as sent, unconfirmed,
// and is not mailed again). Then, in one transaction, the statement is `sent` with
// `commission_statement.sent`, and the job is done.

export type DeliverStatementPayload = { statement_id: string; send: boolean };

export type StatementFiles = { pdf: Buffer; xml: Buffer | null };

/** Renders a statement's files: a pure function of its document, on whichever thread. */
export type RenderStatement = (doc: StatementDocument) => Promise<StatementFiles>;

/** `renderStatement`: the process's render threads; without them the statement renders on this thread. */
export type StatementFilesDeps = { db: Database; renderStatement?: RenderStatement | undefined };

// Loaded on the first statement rendered here (pdfkit, fonts, the e-invoice library).
const renderOnThisThread: RenderStatement = async (doc) => (await import('./render/index.ts')).renderStatementDocuments(doc);

/** statementFiles' options for a caller that has read the statement already. */
export type StatementFilesOptions = {
  /** The statement's frozen document as read. */
  document?: StatementDocument | null;
  /** false: the caller has just read that no PDF is stored (the look-up is skipped). */
  stored?: false;
  /**
   * The mail is about to leave: mail_started_at is set to this in the statement that stores
   * the files (one commit for both; both must be committed before the mail leaves).
   */
  mailStartedAt?: Date;
};

/**
 * The stored files of a numbered statement, rendered and stored first when missing; null for a
 * draft.
 */
export async function statementFiles(
  deps: StatementFilesDeps,
  companyId: string,
  statementId: string,
  options: StatementFilesOptions = {},
): Promise<StatementFiles | null> {
  const { db } = deps;
  const found =
    options.stored === false
      ? []
      : await db
          .selectFrom('commission_statement_files')
          .select(['kind', 'content'])
          .where('company_id', '=', companyId)
          .where('statement_id', '=', statementId)
          .execute();
  const pdf = found.find((f) => f.kind === 'pdf')?.content;
  if (pdf) return { pdf: Buffer.from(pdf), xml: found.find((f) => f.kind === 'xml')?.content ?? null };
  const doc =
    options.document !== undefined
      ? options.document
      : ((await db.selectFrom('commission_statements').select('document').where('company_id', '=', companyId).where('id', '=', statementId).executeTakeFirst())
          ?.document as StatementDocument | null | undefined);
  if (!doc) return null;
  const files = await (deps.renderStatement ?? renderOnThisThread)(doc);
  await pauseAt('statement-render.before-store');
  const now = new Date();
  const rows = [{ kind: 'pdf' as const, content: files.pdf }, ...(files.xml ? [{ kind: 'xml' as const, content: files.xml }] : [])].map((file) => ({
    company_id: companyId,
    statement_id: statementId,
    kind: file.kind,
    content: file.content,
    sha256: createHash('sha256').update(file.content).digest('hex'),
    created_at: now,
  }));
  // Another process stored them first: theirs are the same bytes (a pure function of the document).
  const store = (q: Database | QueryCreator<DB>) =>
    q
      .insertInto('commission_statement_files')
      .values(rows)
      .onConflict((oc) => oc.columns(['company_id', 'statement_id', 'kind']).doNothing());
  const { mailStartedAt } = options;
  if (mailStartedAt === undefined) await store(db).execute();
  else
    await store(
      db.with('mail_started', (q) =>
        q.updateTable('commission_statements').set({ mail_started_at: mailStartedAt }).where('company_id', '=', companyId).where('id', '=', statementId),
      ),
    ).execute();
  return files;
}

export function statementMessageId(companyId: string, statementId: string): string {
  return `<${statementId}.${companyId.replace(/[^A-Za-z0-9_-]+/g, '-')}@kontor>`;
}

export type DeliverOutcome = 'sent' | 'stored' | 'unchanged';

/** Runs in the transaction that marks the statement sent (the person's audit row of a send from the app). */
export type OnStatementSent = (trx: Trx, sent: StatementRow, now: Date) => Promise<void>;

/**
 * What mailStatement did; `done` when the delivery job was marked done in the transaction
 * that marked the statement sent (`complete`).
 */
export type Delivered = { outcome: DeliverOutcome; done?: JobDone };

/**
 * Mails an issued statement once (see above); the admin `send` uses it too. A failed send
 * throws with the mailer's SendError attached as `sendError` (its German message).
 * `after.job`: the delivery job's context; the job ends with the statement marked sent.
 */
export async function mailStatement(
  deps: StatementFilesDeps & { clock: Clock; mailer: Mailer | undefined },
  companyId: string,
  statementId: string,
  after: AfterSent = {},
): Promise<Delivered> {
  const { db, clock } = deps;
  // One read: the statement as it is (the sent event is built from it, recordSent), its
  // company's mailbox, the partner, and whether its PDF is stored already.
  const row = await db
    .selectFrom('commission_statements as s')
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 's.company_id').onRef('p.id', '=', 's.partner_id'))
    .selectAll('s')
    .select([
      'c.name as company_name',
      'c.email as company_email',
      'c.smtp as company_smtp',
      'p.email as partner_email',
      'p.name as partner_name',
      sql<boolean>`exists (select 1 from commission_statement_files f where f.company_id = s.company_id and f.statement_id = s.id and f.kind = 'pdf')`.as(
        'pdf_stored',
      ),
    ])
    .where('s.company_id', '=', companyId)
    .where('s.id', '=', statementId)
    .executeTakeFirst();
  if (!row) throw new PermanentJobError(`no statement ${statementId}`);
  const {
    company_name: companyName,
    company_email: companyEmail,
    company_smtp: companySmtp,
    partner_email: partnerEmail,
    partner_name: partnerName,
    pdf_stored: pdfStored,
    ...read
  } = row;
  const statement = read as StatementRow;
  const mailer = deps.mailer;
  // The mail leaves right after the files are stored: the files and mail_started_at are one commit.
  const startsMail = row.status === 'issued' && partnerEmail !== null && mailer !== undefined && row.mail_started_at === null;
  const startedAt = startsMail && !pdfStored ? clock.now() : undefined;
  const files = await statementFiles(deps, companyId, statementId, {
    document: row.document as StatementDocument | null,
    ...(pdfStored ? {} : { stored: false as const }),
    ...(startedAt ? { mailStartedAt: startedAt } : {}),
  });
  if (!files) throw new PermanentJobError(`statement ${statementId} is a draft`);
  if (row.status !== 'issued') return { outcome: 'unchanged' };
  const doc = row.document as StatementDocument;
  if (!partnerEmail) return { outcome: 'stored' };
  if (!mailer) throw new Error('this process runs jobs without a mailer (JobDeps.mailer); the statement waits for one that has it');
  const company = { id: companyId, name: companyName, email: companyEmail, smtp: companySmtp as SmtpSettings | null };
  const messageId = statementMessageId(companyId, statementId);
  const to = partnerEmail;
  const sent = { to, hasXml: files.xml !== null, read: { statement, partnerName } };
  if (row.mail_started_at) {
    const left = await mailer.holds(company, messageId);
    if (left !== false) return recordSent(deps, companyId, statementId, sent, after);
  }
  if (!startedAt)
    await db
      .updateTable('commission_statements')
      .set({ mail_started_at: clock.now() })
      .where('company_id', '=', companyId)
      .where('id', '=', statementId)
      .execute();
  await pauseAt('statement-mail.before-send');
  const outcome = await mailer.send(company, { ...statementMail({ ...doc, partner: { ...doc.partner, email: to } }, files), messageId });
  await pauseAt('statement-mail.after-send');
  if (!outcome.ok) {
    await db.updateTable('commission_statements').set({ mail_started_at: null }).where('company_id', '=', companyId).where('id', '=', statementId).execute();
    const reason = `${outcome.error.code}: ${outcome.error.message}`;
    const failure = outcome.error.code === 'mail_unreachable' ? new Error(reason) : new PermanentJobError(reason);
    throw Object.assign(failure, { sendError: outcome.error });
  }
  return recordSent(deps, companyId, statementId, sent, after);
}

/**
 * What else is written in the transaction that marks the statement sent (mailStatement's
 * `after`): a person's audit row, or the delivery job's end (its JobContext).
 */
type AfterSent = { onSent?: OnStatementSent; job?: Pick<JobContext<unknown>, 'done' | 'doneWrite'> };

/** The writes that end the transaction of a statement marked sent; `marked`: the job's end was a part of its statement. */
async function sentWith(trx: Trx, row: StatementRow, now: Date, after: AfterSent, marked?: boolean): Promise<Delivered> {
  await after.onSent?.(trx, row, now);
  if (!after.job) return { outcome: 'sent' };
  return { outcome: 'sent', done: marked === undefined ? await after.job.done(trx) : after.job.doneWrite.given(marked) };
}

/** The statement changed between the delivery's read and its "sent" (rolls the attempt back). */
class ChangedSinceRead extends Error {}

async function recordSent(
  deps: { db: Database; clock: Clock },
  companyId: string,
  statementId: string,
  sent: { to: string; hasXml: boolean; read: { statement: StatementRow; partnerName: string } },
  after: AfterSent,
): Promise<Delivered> {
  const now = deps.clock.now();
  try {
    return await inTransaction(deps.db, (trx) => markSentAsRead(trx, companyId, statementId, sent, now, after));
  } catch (error) {
    if (!(error instanceof ChangedSinceRead)) throw error;
    return inTransaction(deps.db, (trx) => markSent(trx, companyId, statementId, sent, now, after));
  }
}

const sentView = (row: StatementRow, partnerName: string, hasXml: boolean) => statementView(row, { partnerName, hasPdf: true, hasXml });

/** The row marked sent (while it is issued), returned with its partner's name for the event. */
function sentUpdate(q: QueryCreator<DB>, companyId: string, statementId: string, to: string, now: Date) {
  return q
    .updateTable('commission_statements')
    .set({ status: 'sent', sent_at: now, sent_to: to, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', statementId)
    .where('status', '=', 'issued')
    .returningAll()
    .returning(
      sql<string>`(select p.name from commission_partners p where p.company_id = commission_statements.company_id and p.id = commission_statements.partner_id)`.as(
        'partner_name',
      ),
    );
}

/**
 * The row marked sent and `commission_statement.sent` in one statement (issue 26), with the
 * delivery job's end when a job delivers it: the event's data is the row as read with the
 * four columns this sets. Should the row as it
 * comes back differ from that (a person changed the statement meanwhile), the attempt is
 * rolled back and markSent does it in two statements. The files were stored before the
 * mail left (statementFiles), a PDF always, the XML with an e-invoice.
 */
async function markSentAsRead(
  trx: Trx,
  companyId: string,
  statementId: string,
  sent: { to: string; hasXml: boolean; read: { statement: StatementRow; partnerName: string } },
  now: Date,
  after: AfterSent,
): Promise<Delivered> {
  const { statement, partnerName } = sent.read;
  const expected = sentView({ ...statement, status: 'sent', sent_at: now, sent_to: sent.to, updated_at: now }, partnerName, sent.hasXml);
  const event = eventRow({ companyId, type: 'commission_statement.sent', subjectId: statementId, data: expected });
  // The event (and the job's end) are written only when the update found the statement issued (one row from `updated`).
  const marking = trx
    .with('updated', () => sentUpdate(trx, companyId, statementId, sent.to, now))
    .with('event', (db) =>
      db
        .insertInto('events')
        .columns(['company_id', 'id', 'type', 'subject_id', 'data', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('updated')
            .select([
              sql.val(event.company_id).as('company_id'),
              sql.val(event.id).as('id'),
              sql.val(event.type).as('type'),
              sql.val(event.subject_id).as('subject_id'),
              sql`${event.data}::jsonb`.as('data'),
              sql.val(now).as('created_at'),
            ]),
        ),
    );
  const job = after.job;
  const updated = await (job
    ? marking
        .with('job_done', (db) => job.doneWrite.write(db).where(sql<boolean>`exists (select 1 from updated)`))
        .selectFrom('updated')
        .selectAll()
        .select(sql<boolean>`exists (select 1 from job_done)`.as('job_marked'))
    : marking.selectFrom('updated').selectAll().select(sql<boolean>`false`.as('job_marked'))
  ).executeTakeFirst();
  if (!updated) return { outcome: 'unchanged' };
  const { partner_name: name, job_marked: jobMarked, ...row } = updated;
  if (JSON.stringify(sentView(row as StatementRow, name, sent.hasXml)) !== JSON.stringify(expected)) throw new ChangedSinceRead();
  return sentWith(trx, row as StatementRow, now, after, job ? jobMarked : undefined);
}

/** The row marked sent, then its event built from the row as written. */
async function markSent(
  trx: Trx,
  companyId: string,
  statementId: string,
  sent: { to: string; hasXml: boolean },
  now: Date,
  after: AfterSent,
): Promise<Delivered> {
  const updated = await sentUpdate(trx, companyId, statementId, sent.to, now).executeTakeFirst();
  if (!updated) return { outcome: 'unchanged' };
  const { partner_name: partnerName, ...row } = updated;
  await recordEvent(trx, {
    companyId,
    type: 'commission_statement.sent',
    subjectId: statementId,
    data: sentView(row as StatementRow, partnerName, sent.hasXml),
    createdAt: now,
  });
  return sentWith(trx, row as StatementRow, now, after);
}

defineJob<DeliverStatementPayload>({
  name: 'statements.deliver',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['statement_id', 'send'],
    properties: { statement_id: { type: 'string', pattern: '^cst_[0-9a-z]{26}$' }, send: { type: 'boolean' } },
  },
  async handler({ db, clock, job, mailer, services, done, doneWrite }) {
    const companyId = job.company_id;
    if (!companyId) throw new Error('the job names no company');
    const renderStatement = services.invoicing?.renderStatement;
    if (!job.payload.send) {
      await statementFiles({ db, renderStatement }, companyId, job.payload.statement_id);
      return;
    }
    // Marked sent and the job done in one statement (issue 26); otherwise the runner marks it done.
    return (await mailStatement({ db, clock, mailer, renderStatement }, companyId, job.payload.statement_id, { job: { done, doneWrite } })).done;
  },
});
