import { drawNumberInTransaction } from '../../db/number-ranges.ts';
import type { Trx } from '../../db/transaction.ts';
import { withWrites } from '../../db/with-writes.ts';
import { eventWrite, jobWrite } from '../../jobs/index.ts';
import { formatNumberPattern } from '../../shared/number-pattern.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { lockedUntil, newStatementBookingWrites } from '../bookkeeping/index.ts';
import type { CompanyRow } from '../invoicing/build-document.ts';
import { buildStatementDocument, type PartnerRow } from './build-statement.ts';
import { type PartnerContact, partnerContact, xrechnungContactGaps, xrechnungContactSentence } from './partner-contact.ts';
import type { StatementKind } from './statement-document.ts';
import { StatementError } from './statement-error.ts';
import { issuableKind, statementEInvoice } from './statement-terms.ts';
import { type StatementRow, statementView } from './statement-view.ts';

// Issuing a statement (from the run, or a draft by a person): its number from the kind's
// own gapless range, the frozen document, the booking against the partner's creditor
// account, the event and the job that renders, stores and mails it — one transaction.
//
// The number is drawn last: its range row (one per kind and year) stays locked from the
// draw until the transaction ends, and every statement of the run draws from the same
// row, so whatever does not need the number — every read, the checks — comes before the
// draw, and only the one statement that writes the issued row follows it (with the
// delivery job, so that it costs no round trip of its own).

export const DELIVER_STATEMENT_JOB = 'statements.deliver';

/** Self-billed invoices (and their cancellations) GS-{yyyy}-{seq:5}; other statements AB-{yyyy}-{seq:5}. */
export function statementNumberPattern(kind: StatementKind): string {
  return kind === 'self_billing' ? 'GS-{yyyy}-{seq:5}' : 'AB-{yyyy}-{seq:5}';
}

export class StatementNumbersExhausted extends Error {}

export async function drawStatementNumber(trx: Trx, companyId: string, kind: StatementKind, issueDate: string): Promise<string> {
  const prefix = kind === 'self_billing' ? 'GS' : 'AB';
  const seq = await drawNumberInTransaction(trx, companyId, { key: `statement-${prefix}:${issueDate.slice(0, 4)}`, first: 1, last: 99_999 });
  if (seq === null) throw new StatementNumbersExhausted(`no ${prefix} statement number left for ${issueDate.slice(0, 4)}`);
  return formatNumberPattern(statementNumberPattern(kind), issueDate, seq);
}

/**
 * Numbers and books a draft statement, freezes its document, records
 * `commission_statement.issued` and the delivery job. Returns the issued row.
 */
export async function issueStatement(
  trx: Trx,
  input: {
    company: CompanyRow;
    partner: PartnerRow;
    statement: StatementRow;
    issueDate: string;
    now: Date;
    decidedBy?: string | null;
    /** The partner's contact when the caller read it in this transaction already. */
    contact?: PartnerContact;
  },
): Promise<StatementRow> {
  const { company, partner, issueDate, now } = input;
  // A draft made before issue 24 as settlement for a taxable partner goes out as a request
  // to invoice; a draft's e-invoice follows the partner as it is now (a person may have
  // switched an XRechnung partner to ZUGFeRD to get it issued).
  const kind = input.statement.type === 'statement' ? issuableKind(input.statement.kind, input.statement.tax_note) : input.statement.kind;
  const eInvoice = input.statement.type === 'statement' ? statementEInvoice(partner, kind) : input.statement.e_invoice_format;
  const statement: StatementRow = { ...input.statement, kind, e_invoice_format: eInvoice };
  const contact = input.contact ?? (await partnerContact(trx, company.id, partner.id));
  if (eInvoice === 'xrechnung') {
    const gaps = xrechnungContactGaps(partner, contact);
    if (gaps.length > 0) {
      const sentence = xrechnungContactSentence(partner.name, gaps);
      throw new StatementError(`statement ${statement.number ?? statement.id} was not issued: ${sentence}`, 'einvoice_contact_missing', sentence);
    }
  }
  let preceding: { number: string; issueDate: string } | null = null;
  if (statement.cancels_statement_id) {
    const cancelled = await trx
      .selectFrom('commission_statements')
      .select(['number', 'issue_date'])
      .where('company_id', '=', company.id)
      .where('id', '=', statement.cancels_statement_id)
      .executeTakeFirstOrThrow();
    preceding = { number: cancelled.number as string, issueDate: cancelled.issue_date as string };
  }
  // A request to invoice is no accounting document: the partner's own invoice is booked when it comes.
  const booked = statement.kind !== 'partner_invoice';
  const periodLock = booked ? await lockedUntil(trx, company.id) : null;
  // The delivery job is written with the issued row (below): one round trip less (issue 26).
  const deliverJob = jobWrite(trx, {
    name: DELIVER_STATEMENT_JOB,
    companyId: company.id,
    payload: { statement_id: statement.id, send: partner.email !== null },
    runAt: now,
    dedupeKey: `${DELIVER_STATEMENT_JOB}:${company.id}:${statement.id}`,
    // Before the statement run's next partners: rendering and mailing overlap the making (issue 26).
    priority: 1,
  });

  // The document is built before the draw and only numbered after it (less time under the lock).
  const unnumbered = buildStatementDocument(
    company,
    partner,
    {
      kind: statement.kind,
      type: statement.type,
      number: '',
      issueDate,
      period: { start: statement.period_start, end: statement.period_end },
      lines: statement.lines,
      vatRate: statement.vat_rate === '19' ? 19 : 0,
      taxNote: statement.tax_note,
      totals: { net: Number(statement.net_cents), vat: Number(statement.vat_cents), gross: Number(statement.gross_cents) },
      eInvoice: statement.e_invoice_format,
      precedingStatement: preceding,
    },
    // The payout account is set by a person in the app (issue 15); until then none is printed.
    { iban: null },
    contact,
  );
  await pauseAt('statement-issue.before-draw');
  const number = await drawStatementNumber(trx, company.id, statement.kind, issueDate);
  await pauseAt('statement-issue.after-draw');
  const doc = { ...unnumbered, number };
  const set = {
    status: 'issued' as const,
    kind: statement.kind,
    e_invoice_format: statement.e_invoice_format,
    held_reason: null,
    number,
    issue_date: issueDate,
    updated_at: now,
    ...(input.decidedBy ? { decided_by: input.decidedBy } : {}),
  };
  // The statement issued, its booking, the event and the delivery job in one statement (a
  // data-modifying WITH), under the number's row lock (issue 26). The event shows the row as it will be:
  // the draft with what is set here. If the draft was issued meanwhile, no row is updated
  // and the statement's select fails: the transaction rolls back whole.
  const issuing = trx
    .with('issued', () =>
      trx
        .updateTable('commission_statements')
        .set({ ...set, document: JSON.stringify(doc) })
        .where('company_id', '=', company.id)
        .where('id', '=', statement.id)
        .where('status', '=', 'draft')
        .returningAll(),
    )
    .with(
      'event',
      () =>
        eventWrite(trx, {
          companyId: company.id,
          type: 'commission_statement.issued',
          subjectId: statement.id,
          data: statementView({ ...statement, ...set, document: doc }, { partnerName: partner.name, hasPdf: false, hasXml: false }),
          createdAt: now,
        }).write,
    )
    .with('deliver_job', () => deliverJob);
  // A draft is never booked: the booking is the statement's first (the number is new here).
  const bookings = booked ? newStatementBookingWrites(trx, company.id, company.chart, doc, statement.id, periodLock) : [];
  const issued = await withWrites(issuing, bookings, 'booking').selectFrom('issued').selectAll().executeTakeFirstOrThrow();
  return issued;
}
