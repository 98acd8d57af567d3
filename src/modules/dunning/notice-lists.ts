import { sql } from 'kysely';
import { byteaAsBase64 } from '../../db/bytes.ts';
import type { Database } from '../../db/connection.ts';
import type { DunningLevel, NoticeStatus } from '../../db/schema-dunning.ts';
import type { NoticeDocument } from './notice-document.ts';
import { noticeFileName } from './notice-mail.ts';

// What the app and `kontor admin dunning failed` show of a company's notices: those that
// did not go out (failed, or cancelled by a payment) and the ones sent, newest first.

export type NoticeListRow = {
  id: string;
  invoice_id: string;
  invoice_number: string | null;
  invoice_status: string;
  customer_name: string;
  level: DunningLevel;
  total_cents: number;
  notice_date: string;
  deadline: string;
  status: NoticeStatus;
  reason: string | null;
  sent_at: Date | null;
  updated_at: Date;
  has_pdf: boolean;
};

/** Cancelled notices (paid in the meantime) are shown this long; failed ones until they are dealt with. */
const CANCELLED_SHOWN_DAYS = 30;

function noticeRows(db: Database, companyId: string) {
  return db
    .selectFrom('dunning_notices as n')
    .innerJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'n.company_id').onRef('i.id', '=', 'n.invoice_id'))
    .select([
      'n.id',
      'n.invoice_id',
      'i.number as invoice_number',
      'i.status as invoice_status',
      // The addressee as the notice was made.
      sql<string>`n.document -> 'buyer' ->> 'name'`.as('customer_name'),
      'n.level',
      'n.total_cents',
      'n.notice_date',
      'n.deadline',
      'n.status',
      'n.reason',
      'n.sent_at',
      'n.updated_at',
      sql<boolean>`n.pdf is not null`.as('has_pdf'),
    ])
    .where('n.company_id', '=', companyId);
}

/**
 * Notices that did not go out and were not followed by another notice of their invoice:
 * failed ones first (they wait for a person), then those cancelled in the last 30 days.
 * A failed notice is followed by a new one on the next daily run (README "Levels never
 * repeat"), so each invoice shows at most its latest.
 */
export async function listUnsentNotices(db: Database, companyId: string, now: Date, limit = 100): Promise<NoticeListRow[]> {
  const since = new Date(now.getTime() - CANCELLED_SHOWN_DAYS * 24 * 3600 * 1000);
  const rows = await noticeRows(db, companyId)
    .where((eb) => eb.or([eb('n.status', '=', 'failed'), eb('n.status', '=', 'cancelled').and('n.updated_at', '>=', since)]))
    .where(
      sql<boolean>`not exists (select 1 from dunning_notices m where m.company_id = n.company_id and m.invoice_id = n.invoice_id and m.id <> n.id
        and (m.created_at > n.created_at or (m.status in ('pending', 'sent') and m.level >= n.level)))`,
    )
    .orderBy(sql`n.status = 'failed'`, 'desc')
    .orderBy('n.updated_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(limit)
    .execute();
  return rows as NoticeListRow[];
}

export type SentKey = { sentAt: Date; id: string };

/** The sent notices, newest first, `limit` after the key of the last row shown; `more` when there are further ones. */
export async function listSentNotices(db: Database, companyId: string, after: SentKey | null, limit = 50): Promise<{ rows: NoticeListRow[]; more: boolean }> {
  let query = noticeRows(db, companyId).where('n.status', '=', 'sent');
  if (after) query = query.where(sql<boolean>`(n.sent_at, n.id) < (${after.sentAt.toISOString()}::timestamptz, ${after.id})`);
  const rows = (await query
    .orderBy('n.sent_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(limit + 1)
    .execute()) as NoticeListRow[];
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/** The stored PDF of a notice with its file name ("1-Mahnung-RE-2026-00001.pdf"); null without one. */
export async function noticePdf(db: Database, companyId: string, noticeId: string): Promise<{ pdf: Buffer; fileName: string } | null> {
  const row = await db
    .selectFrom('dunning_notices')
    .select(['document', byteaAsBase64<string | null>('pdf').as('pdf')])
    .where('company_id', '=', companyId)
    .where('id', '=', noticeId)
    .executeTakeFirst();
  if (!row?.pdf) return null;
  return { pdf: Buffer.from(row.pdf, 'base64'), fileName: noticeFileName(row.document as NoticeDocument) };
}

export type NoticeReasonCode =
  | 'recipient_missing'
  | 'mail_rejected'
  | 'mail_unreachable'
  | 'mail_unconfirmed'
  | 'paid'
  | 'cancelled'
  | 'amount_changed'
  | 'dunning_stop';
const REASON_CODES: readonly string[] = [
  'recipient_missing',
  'mail_rejected',
  'mail_unreachable',
  'mail_unconfirmed',
  'paid',
  'cancelled',
  'amount_changed',
  'dunning_stop',
];

/**
 * A notice's stored reason taken apart: the send job writes `code: message` for a mail that
 * failed (the mail module's message is German already, for a person), the invoice's status
 * (`paid`, `cancelled`) or `amount_changed: …` for a cancelled notice. Anything else (a bug,
 * a process without mailer) has no code and is shown as it is.
 */
export function noticeReason(reason: string | null): { code: NoticeReasonCode | null; detail: string | null } {
  if (!reason) return { code: null, detail: null };
  const match = /^([a-z_]+)(?::\s*([\s\S]*))?$/.exec(reason.trim());
  if (match && REASON_CODES.includes(match[1] as string)) return { code: match[1] as NoticeReasonCode, detail: match[2]?.trim() || null };
  return { code: null, detail: reason };
}
