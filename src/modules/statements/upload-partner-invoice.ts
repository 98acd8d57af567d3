import { createHash } from 'node:crypto';
import type { Database } from '../../db/connection.ts';
import type { PartnerInvoiceUploadsTable } from '../../db/schema-commissions.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob, recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { formatCentsMoney as euro, formatDate } from '../../shared/german-format.ts';
import { newId } from '../../shared/ids.ts';
import { type PartnerActor, recordAudit } from '../audit/audit-log.ts';
import type { PartnerRow } from './build-statement.ts';
import { checkPartnerEInvoice, type ReadResult, readEInvoice, type StatementExpectation } from './partner-einvoice/index.ts';
import { checkPartnerInvoice, notRecordable, type Parsed, PartnerInvoiceRefused } from './partner-invoice-checks.ts';
import { PARTNER_INVOICE_NOTICE_JOB, type PartnerInvoiceNoticePayload } from './partner-invoice-notice.ts';
import { invoiceAuditFields, statementWithNumber, writePartnerInvoice } from './record-partner-invoice.ts';
import type { StatementRow } from './statement-view.ts';
import { findStatement, viewsOf } from './statements.repository.ts';

// The partner hands in its own invoice for a request to invoice in the portal (issue 27
// §3): an e-invoice file — XRechnung (CII or UBL) or ZUGFeRD/Factur-X — read and checked by
// partner-einvoice/ against the EN 16931 rules Kontor runs and against the statement
// (parties, amounts, VAT, type, currency, dates), and here against what needs the books:
// the statement still takes an invoice, the number is new for this partner. Accepted (all
// in one transaction): recorded as the partner's invoice with the partner account as its
// recorder, booked (creditor account, input VAT where due: book-partner-invoice.ts), the
// file kept as received, the event `commission_statement.partner_invoice_received`, the
// audit row, the company's notice mail; the statement is then payable. Refused: the upload
// row with its German reasons, the event `commission_statement.partner_invoice_refused` and
// the audit row — no invoice, no booking. A plain PDF is refused (an e-invoice is required
// between businesses), except from a small business or a private person, who type the
// invoice's number, date and amount beside it.

export type UploadedFile = { name: string; bytes: Uint8Array };

/** For a plain PDF of a small business or private person: what the invoice says. */
export type TypedInvoice = { number: string; invoiceDate: string; gross: string };

export type UploadOutcome =
  | { accepted: true; uploadId: string; number: string; invoiceDate: string; grossCents: number }
  | { accepted: false; uploadId: string; reasons: string[]; needsTyped: boolean };

type Session = PartnerActor & { partnerId: string; email: string };

const MAX_NAME = 200;

function formatOf(read: ReadResult): PartnerInvoiceUploadsTable['format'] {
  if (read.kind === 'plain_pdf') return 'pdf';
  if (read.kind === 'unreadable') return null;
  if (read.invoice.container === 'pdf') return 'zugferd';
  return read.invoice.syntax === 'CII' ? 'xrechnung_cii' : 'xrechnung_ubl';
}

/** Whether the partner may hand in a plain PDF (no e-invoice duty: § 34a UStDV, no business). */
const plainPdfAllowed = (statement: StatementRow) => statement.tax_note === 'small_business' || statement.tax_note === 'private_person';

export async function uploadPartnerInvoice(
  deps: { db: Database; clock: Clock },
  session: Session,
  statementId: string,
  file: UploadedFile,
  typed: TypedInvoice | null = null,
): Promise<UploadOutcome> {
  // Reading a PDF or XML is the slow part; it needs no lock and runs before the transaction.
  const read = await readEInvoice(file.bytes);
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  const name = (file.name.replace(/[\\/]/g, '_').trim() || 'rechnung').slice(0, MAX_NAME);
  return inTransaction(deps.db, async (trx) => {
    const statement = await findStatement(trx, session.companyId, statementId, true);
    if (!statement || statement.partner_id !== session.partnerId) throw new PartnerInvoiceRefused('not_found', `no statement ${statementId}`);
    const now = deps.clock.now();
    const company = await trx
      .selectFrom('companies')
      .select(['name', 'vat_id', 'tax_number', 'timezone', 'chart'])
      .where('id', '=', statement.company_id)
      .executeTakeFirstOrThrow();
    const partner = (await trx
      .selectFrom('commission_partners')
      .selectAll()
      .where('company_id', '=', statement.company_id)
      .where('id', '=', statement.partner_id)
      .executeTakeFirstOrThrow()) as PartnerRow;
    const today = deps.clock.today(company.timezone);
    const reasons: string[] = [];
    let parsed: Parsed | null = null;
    const why = notRecordable(statement);
    const recorded = await trx
      .selectFrom('commission_partner_invoices')
      .select(['number', 'invoice_date'])
      .where('company_id', '=', statement.company_id)
      .where('statement_id', '=', statement.id)
      .executeTakeFirst();
    if (recorded)
      reasons.push(
        `Zu dieser Abrechnung ist bereits Ihre Rechnung ${recorded.number} vom ${formatDate(recorded.invoice_date)} erfasst; eine weitere wird nicht angenommen.`,
      );
    else if (why) reasons.push(why);
    else if (read.kind === 'plain_pdf' && plainPdfAllowed(statement)) {
      if (!typed) reasons.push(PLAIN_PDF_TYPED_REASON);
      else {
        try {
          parsed = checkPartnerInvoice({ ...typed, net: typed.gross, vat: '0', confirmMismatch: false }, statement, today);
          if (parsed.grossCents !== Number(statement.gross_cents))
            reasons.push(
              `Der Betrag der Rechnung (${euro(parsed.grossCents)}) stimmt nicht mit der Abrechnung ${statement.number} überein (${euro(Number(statement.gross_cents))}).`,
            );
        } catch (error) {
          if (!(error instanceof PartnerInvoiceRefused)) throw error;
          reasons.push(...(Object.values(error.fields).length > 0 ? Object.values(error.fields) : [error.message]));
        }
      }
    } else {
      const check = checkPartnerEInvoice(read, expectationOf(statement, company, partner, today));
      if (!check.ok) reasons.push(...check.reasons);
      else {
        const invoice = check.invoice;
        parsed = {
          number: (invoice.number as string).replace(/\s+/g, ' ').trim(),
          invoiceDate: invoice.issueDate as string,
          netCents: invoice.netCents as number,
          vatCents: invoice.vatCents as number,
          grossCents: invoice.grossCents as number,
        };
      }
    }
    if (parsed && reasons.length === 0) {
      const taken = await statementWithNumber(trx, statement, parsed.number);
      if (taken) reasons.push(`Ihre Rechnungsnummer ${parsed.number} ist bereits zur Abrechnung ${taken} erfasst; jede Rechnung braucht eine eigene Nummer.`);
    }
    const uploadId = newId('piu');
    const accepted = parsed !== null && reasons.length === 0;
    await trx
      .insertInto('partner_invoice_uploads')
      .values({
        company_id: statement.company_id,
        id: uploadId,
        statement_id: statement.id,
        account_id: session.partnerAccountId,
        received_at: now,
        file_name: name,
        format: formatOf(read),
        sha256,
        size: file.bytes.length,
        accepted,
        reasons: JSON.stringify(accepted ? [] : reasons),
        content: accepted ? Buffer.from(file.bytes) : null,
      })
      .execute();
    if (!accepted || !parsed) {
      await recordEvent(trx, {
        companyId: statement.company_id,
        type: 'commission_statement.partner_invoice_refused',
        subjectId: statement.id,
        data: { ...(await statementData(trx, statement)), upload: { id: uploadId, file_name: name, received_at: now.toISOString(), reasons } },
        createdAt: now,
      });
      await recordAudit(trx, session, now, {
        action: 'statement.invoice_refused',
        subjectType: 'commission_statement',
        subjectId: statement.id,
        after: { statement: statement.number, file_name: name, sha256, reasons },
      });
      return { accepted: false, uploadId, reasons, needsTyped: read.kind === 'plain_pdf' && plainPdfAllowed(statement) && !typed };
    }
    await writePartnerInvoice(
      trx,
      { statement, partner, chart: company.chart, today, now },
      parsed,
      { recorded_by_partner: session.partnerAccountId },
      () => 'Ihre Rechnung kann heute nicht gebucht werden (der Buchungszeitraum der Firma ist gesperrt). Bitte wenden Sie sich an die Firma.',
    );
    await recordEvent(trx, {
      companyId: statement.company_id,
      type: 'commission_statement.partner_invoice_received',
      subjectId: statement.id,
      data: await statementData(trx, statement),
      createdAt: now,
    });
    await recordAudit(trx, session, now, {
      action: 'statement.invoice_received',
      subjectType: 'commission_statement',
      subjectId: statement.id,
      after: {
        ...invoiceAuditFields(statement, parsed),
        file_name: name,
        format: formatOf(read),
        sha256,
      },
    });
    const notice: PartnerInvoiceNoticePayload = { statement_id: statement.id, upload_id: uploadId, by: session.email, at: now.toISOString() };
    await enqueueJob(trx, { name: PARTNER_INVOICE_NOTICE_JOB, companyId: statement.company_id, payload: notice, runAt: now });
    return { accepted: true, uploadId, number: parsed.number, invoiceDate: parsed.invoiceDate, grossCents: parsed.grossCents };
  });
}

export const PLAIN_PDF_TYPED_REASON =
  'Ihre PDF-Datei enthält keine E-Rechnung. Als Kleinunternehmer oder Privatperson dürfen Sie sie trotzdem einreichen: bitte geben Sie dazu Rechnungsnummer, Rechnungsdatum und Betrag Ihrer Rechnung an.';

function expectationOf(
  statement: StatementRow,
  company: { name: string; vat_id: string | null; tax_number: string | null },
  partner: PartnerRow,
  today: string,
): StatementExpectation {
  return {
    statementNumber: statement.number as string,
    netCents: Number(statement.net_cents),
    vatCents: Number(statement.vat_cents),
    grossCents: Number(statement.gross_cents),
    vatRate: statement.vat_rate,
    taxNote: statement.tax_note,
    periodStart: statement.period_start,
    today,
    company: { name: company.name, vatId: company.vat_id, taxNumber: company.tax_number },
    partner: { name: partner.name, vatId: partner.vat_id, taxNumber: partner.tax_number },
  };
}

async function statementData(trx: Trx, statement: StatementRow) {
  return (await viewsOf(trx, statement.company_id, [statement]))[0] as Record<string, unknown>;
}
