import { createHash } from 'node:crypto';
import { type Insertable, sql } from 'kysely';
import { byteaAsBase64 } from '../../db/bytes.ts';
import type { Database } from '../../db/connection.ts';
import type { DunningLevel, DunningNoticesTable } from '../../db/schema-dunning.ts';
import type { Trx } from '../../db/transaction.ts';
import { chunks } from '../../shared/arrays.ts';

// Plain Kysely functions for overdue marking and dunning. The selections repeat the
// predicates of the partial indexes of migrations/0006_dunning.sql as literal SQL, so the
// planner can prove the index applies whatever the parameters are.

/** Open invoices in the sense of dunning: issued, not storno, not (fully) paid, not cancelled. */
const OPEN_INVOICE = sql<boolean>`i.type = 'invoice' and i.status in ('issued', 'sent', 'partially_paid')`;
export const OPEN_STATUSES: readonly string[] = ['issued', 'sent', 'partially_paid'];

/** Open invoices due before `date` and not yet marked overdue (index invoices_overdue_watch). */
export function overdueCandidatesQuery(db: Database | Trx, companyId: string, date: string) {
  return (
    db
      .selectFrom('invoices as i')
      .select('i.id')
      .where('i.company_id', '=', companyId)
      .where(OPEN_INVOICE)
      .where(sql<boolean>`not i.overdue`)
      .where('i.due_date', '<', date)
      // An invoice of 0.00 (a contract credit covering the charge) leaves nothing to pay.
      .where(sql<boolean>`i.amount_paid_cents < i.total_gross_cents`)
      .orderBy('i.due_date')
      .orderBy('i.id')
  );
}

/** The overdue candidates, locked for their update. */
export function overdueCandidates(trx: Trx, companyId: string, date: string) {
  return overdueCandidatesQuery(trx, companyId, date).forUpdate().execute();
}

/** Sets `overdue` with each invoice's change-feed position, in UPDATE … FROM (VALUES …) statements. */
export async function setOverdue(trx: Trx, companyId: string, changes: readonly { id: string; changeSeq: number }[], changedAt: Date): Promise<void> {
  for (const part of chunks(changes, 1000)) {
    const values = sql.join(part.map((change) => sql`(${change.id}::text, ${change.changeSeq}::bigint)`));
    await sql`
      update invoices as i
      set overdue = true, change_seq = v.change_seq, changed_at = ${changedAt.toISOString()}::timestamptz
      from (values ${values}) as v(id, change_seq)
      where i.company_id = ${companyId} and i.id = v.id`.execute(trx);
  }
}

export type NoticeCutoffs = {
  /** Invoices due on or before this date get the payment reminder. */
  firstCutoff: string;
  /** Invoices whose last notice is from this date or earlier get the next level ... */
  nextCutoff: string;
  /** ... unless they reached this level. */
  maxLevel: number;
};

function candidateColumns(db: Database | Trx, companyId: string) {
  return (
    db
      .selectFrom('invoices as i')
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
      .select([
        'i.id',
        'i.number',
        'i.issue_date',
        'i.due_date',
        'i.total_gross_cents',
        'i.amount_paid_cents',
        'i.dunning_level',
        'i.last_dunning_on',
        // Business or consumer as the invoice was issued (its frozen buyer).
        sql<string | null>`i.document -> 'buyer' ->> 'customerType'`.as('issued_customer_type'),
        sql<string | null>`i.document -> 'buyer' ->> 'vatId'`.as('issued_vat_id'),
        'c.name as customer_name',
        'c.street as customer_street',
        'c.house_number as customer_house_number',
        'c.zip as customer_zip',
        'c.city as customer_city',
        'c.country_code as customer_country_code',
        'c.vat_id as customer_vat_id',
        'c.email as customer_email',
        'c.kundennummer as customer_number',
        'c.customer_type',
        'c.contact_name as customer_contact_name',
        'c.leitweg_id as customer_leitweg_id',
      ])
      .where('i.company_id', '=', companyId)
      .where(OPEN_INVOICE)
      // No Mahnsperre in force for the invoice or its customer (issue 25): one probe each of the
      // unique partial indexes of migrations/0041, per candidate found through the ranges.
      .where(
        sql<boolean>`not exists (select 1 from dunning_stops s where s.company_id = i.company_id and s.invoice_id = i.id and s.lifted_at is null and s.invoice_id is not null)`,
      )
      .where(
        sql<boolean>`not exists (select 1 from dunning_stops s where s.company_id = i.company_id and s.customer_id = i.customer_id and s.lifted_at is null and s.customer_id is not null)`,
      )
  );
}

/** One open invoice with the columns a notice needs, unless a Mahnsperre holds for it ("Erinnerung jetzt senden"). */
export function noticeCandidateQuery(db: Database | Trx, companyId: string, invoiceId: string) {
  return candidateColumns(db, companyId).where('i.id', '=', invoiceId);
}

/**
 * Open invoices whose next notice is due by the cutoffs: never dunned and due long enough
 * (index invoices_dunning_first), or dunned below the last level and the last notice old
 * enough (index invoices_dunning_next). One range scan each, no look at other invoices.
 */
export function dueForNoticeQuery(db: Database | Trx, companyId: string, cutoffs: NoticeCutoffs) {
  const first = candidateColumns(db, companyId).where(sql<boolean>`i.dunning_level is null`).where('i.due_date', '<=', cutoffs.firstCutoff);
  const next = candidateColumns(db, companyId)
    .where(sql<boolean>`i.dunning_level is not null`)
    .where('i.last_dunning_on', '<=', cutoffs.nextCutoff)
    .where('i.dunning_level', '<', cutoffs.maxLevel);
  return first.unionAll(next).orderBy('id');
}

export type NoticeCandidate = Awaited<ReturnType<ReturnType<typeof dueForNoticeQuery>['execute']>>[number];

export type SentNotice = { invoice_id: string; level: DunningLevel; notice_date: string; fee_cents: number };

/** The sent notices of these invoices (for the default date, the earlier fees and the previous notice's date). */
export async function sentNotices(trx: Trx, companyId: string, invoiceIds: string[]): Promise<Map<string, SentNotice[]>> {
  const byInvoice = new Map<string, SentNotice[]>();
  for (let i = 0; i < invoiceIds.length; i += 1000) {
    const rows = await trx
      .selectFrom('dunning_notices')
      .select(['invoice_id', 'level', 'notice_date', 'fee_cents'])
      .where('company_id', '=', companyId)
      .where('status', '=', 'sent')
      .where('invoice_id', 'in', invoiceIds.slice(i, i + 1000))
      .orderBy('level')
      .execute();
    for (const row of rows) byInvoice.set(row.invoice_id, [...(byInvoice.get(row.invoice_id) ?? []), row]);
  }
  return byInvoice;
}

export type NewNotice = Omit<Insertable<DunningNoticesTable>, 'pdf' | 'pdf_sha256' | 'message_id' | 'sent_at' | 'reason' | 'status'>;

/** Inserts a pending notice; null when a pending or sent one of that level exists (levels never repeat). */
export async function insertNotice(trx: Trx, notice: NewNotice): Promise<string | null> {
  const row = await trx
    .insertInto('dunning_notices')
    .values({ ...notice, status: 'pending' })
    .onConflict((oc) => oc.columns(['company_id', 'invoice_id', 'level']).where(sql<boolean>`status in ('pending', 'sent')`).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** A notice with what its job needs in one read: the invoice's state now and the sending company. */
export function findNoticeToSend(db: Database | Trx, companyId: string, noticeId: string) {
  return db
    .selectFrom('dunning_notices as n')
    .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'n.company_id').onRef('i.id', '=', 'n.invoice_id'))
    .innerJoin('companies as co', 'co.id', 'n.company_id')
    .select([
      'n.invoice_id',
      'n.status',
      'n.paid_cents',
      'n.mail_started_at',
      'n.document',
      byteaAsBase64<string | null>('n.pdf').as('pdf'),
      'i.status as invoice_status',
      'i.amount_paid_cents as invoice_paid_cents',
      'co.name as company_name',
      'co.email as company_email',
      'co.smtp as company_smtp',
    ])
    .where('n.company_id', '=', companyId)
    .where('n.id', '=', noticeId)
    .executeTakeFirst();
}

/**
 * Stores the rendered PDF unless one is stored already, and returns the stored bytes: a
 * notice is a document, rendered once and never again.
 */
export async function storeNoticePdfOnce(db: Database, companyId: string, noticeId: string, pdf: Buffer): Promise<Buffer> {
  const stored = await db
    .updateTable('dunning_notices')
    .set({ pdf, pdf_sha256: createHash('sha256').update(pdf).digest('hex') })
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .where('pdf', 'is', null)
    .executeTakeFirst();
  if (stored.numUpdatedRows > 0n) return pdf;
  const row = await db
    .selectFrom('dunning_notices')
    .select(byteaAsBase64<string | null>('pdf').as('pdf'))
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .executeTakeFirst();
  if (!row?.pdf) throw new Error(`notice ${noticeId} has no stored PDF`);
  return Buffer.from(row.pdf, 'base64');
}

/** Ends a pending notice without sending it (cancelled) or after a mail that failed for good (failed). */
export async function closeNotice(db: Database | Trx, companyId: string, noticeId: string, status: 'cancelled' | 'failed', reason: string, now: Date) {
  await db
    .updateTable('dunning_notices')
    .set({ status, reason: reason.slice(0, 2000), updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .where('status', '=', 'pending')
    .execute();
}

/** Notes (before the mail leaves) or clears (after a mail that failed) that a run mails the notice. */
export async function markNoticeMailing(db: Database, companyId: string, noticeId: string, startedAt: Date | null): Promise<boolean> {
  const marked = await db
    .updateTable('dunning_notices')
    .set({ mail_started_at: startedAt })
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return marked.numUpdatedRows > 0n;
}

/**
 * Marks a pending notice sent; returns its level and date, or undefined when it was not
 * pending (sent before). `reason`: a note on the sending (a mail left unconfirmed by a crash).
 */
export function markNoticeSent(trx: Trx, companyId: string, noticeId: string, messageId: string, now: Date, reason: string | null = null) {
  return trx
    .updateTable('dunning_notices')
    .set({ status: 'sent', sent_at: now, message_id: messageId, reason, updated_at: now })
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .where('status', '=', 'pending')
    .returning(['level', 'notice_date'])
    .executeTakeFirst();
}
