import type { Trx } from '../../db/transaction.ts';
import type { WriteInStatement } from '../../db/with-writes.ts';
import { eventWrite } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import type { CustomerRow } from '../customers/customers.repository.ts';
import { amountLimitIssues } from './amount-limits.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import { drawInvoiceNumber } from './draw-invoice-number.ts';
import { insertInvoice } from './insert-invoice.ts';
import { invoiceView } from './invoice-view.ts';
import type { InvoiceViewRow } from './invoices.repository.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { assertPeriodOpen } from './period-lock.ts';
import { type IssueTerms, issuedDocument, issuingVerdict } from './plan-issue.ts';
import type { ResolvedLine } from './resolve-lines.ts';

// The part every way of making an invoice shares, inside the caller's transaction: the VAT
// verdict with the issuing checks, the locked-period check, the gapless number, the
// snapshot, the rows of invoice and lines, the booking and the event invoice.issued (or a
// draft: only the rows). createInvoice (the API), the contract billing run and the app's
// drafts (create-app-draft.ts) use it.

export type InvoiceToWrite = {
  company: CompanyRow;
  customer: CustomerRow;
  invoiceId: string;
  lines: ResolvedLine[];
  /** The request's fields the rows and the snapshot read: its reference (none for a contract's invoice), service period, terms. */
  body: IssueTerms & { external_ref: string | null };
  externalSource: string | null;
  paymentTermsDays: number;
  issue: boolean;
  /** The contract that bills it (contract billing). */
  contract?: { id: string; externalRef: string } | null;
  /** A draft a person writes in the app (create-app-draft.ts): invisible to the API, with its note. */
  app?: { note: string | null };
  /**
   * The period lock as issuingProblems read it in this transaction, which found the period
   * open: not read again (contract billing; one round trip less per invoice, issue 26).
   */
  periodLock?: { lockedUntil: string | null };
  /**
   * Writes of the caller that go into the invoice's statement (a contract's cycle): they run
   * under the number's row lock, each a round trip less there (issue 26).
   */
  alongside?: readonly WriteInStatement[];
};

export type WrittenInvoice = { row: InvoiceViewRow; doc: InvoiceDocument | null };

/**
 * The German messages that keep these lines from being issued today (none: issuable):
 * missing issuing details, a VAT rate the verdict refuses, a locked period, an amount no
 * bank transfer can carry. Reads only; the caller may record the refusal in its transaction.
 */
export async function issuingProblems(
  trx: Trx,
  input: Pick<InvoiceToWrite, 'company' | 'customer' | 'lines'>,
  issueDate: string,
): Promise<{ problems: string[]; periodLock: { lockedUntil: string | null } }> {
  const { messages } = issuingVerdict(input);
  const limits = amountLimitIssues(
    input.lines.map((line) => ({ description: line.description, quantity: line.quantity, unit_price_net: line.unitPriceNet, vat_rate: line.vatRate })),
  );
  const problems = [...messages, ...limits.map((issue) => `${issue.msg}.`)];
  let lockedUntil: string | null = null;
  try {
    lockedUntil = await assertPeriodOpen(trx, input.company.id, issueDate);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problems.push(error.message);
  }
  return { problems, periodLock: { lockedUntil } };
}

/**
 * Writes the invoice (issued when `input.issue`, else a draft) in `trx`. `onDocument` sees
 * the snapshot and its counter value as soon as they exist, before the rows are written
 * (createInvoice starts its rendering there).
 */
export async function writeInvoice(
  trx: Trx,
  deps: Pick<InvoicingDeps, 'clock' | 'bookingWrites'>,
  input: InvoiceToWrite,
  onDocument?: (doc: InvoiceDocument, seq: number) => void,
): Promise<WrittenInvoice> {
  const { company, customer, lines } = input;
  let doc: InvoiceDocument | null = null;
  let lockedUntil: string | null = null;
  if (input.issue) {
    const issueDate = deps.clock.today(company.timezone);
    const { verdict, messages } = issuingVerdict({ company, customer, lines });
    if (messages.length > 0) throw new AppError('invoice_not_issuable', { messages, message: messages.join(' ') });
    lockedUntil = input.periodLock ? input.periodLock.lockedUntil : await assertPeriodOpen(trx, company.id, issueDate);
    const { number, seq } = await drawInvoiceNumber(trx, company, issueDate);
    doc = issuedDocument({ company, customer, lines, body: input.body, issueDate }, verdict, number);
    onDocument?.(doc, seq);
  }
  const eventAt = deps.clock.now();
  // The booking (journal entry and lines) goes into the invoice's statement as well.
  const bookings = doc ? deps.bookingWrites(trx, company, doc, input.invoiceId, lockedUntil) : [];
  const viewOf = <R>(invoice: R) => ({
    ...invoice,
    customer_external_ref: customer.external_ref,
    cancels_id: null,
    cancels_number: null,
    cancels_external_ref: null,
    cancelled_by_id: null,
    cancelled_by_number: null,
    cancelled_by_external_ref: null,
  });
  const inserted = await insertInvoice(
    trx,
    {
      companyId: company.id,
      invoiceId: input.invoiceId,
      customerId: customer.id,
      externalSource: input.externalSource,
      body: input.body,
      lines,
      paymentTermsDays: input.paymentTermsDays,
      doc,
      contract: input.contract ?? null,
      now: deps.clock.now(),
      ...(input.app ? { origin: 'app' as const, note: input.app.note } : {}),
    },
    // The event invoice.issued and the caller's writes go into the invoice's statement. The
    // event's data is the view of the row as written: everything it shows is known here.
    (predicted) => [
      ...(doc
        ? [
            eventWrite(trx, {
              companyId: company.id,
              type: 'invoice.issued',
              subjectId: input.invoiceId,
              data: invoiceView(viewOf({ ...predicted, change_seq: 0 })),
              createdAt: eventAt,
            }).write,
          ]
        : []),
      ...bookings,
      ...(input.alongside ?? []),
    ],
  );
  // Everything the view shows is known here: no read back (a 4-way join costs PGlite ~3 ms).
  const row: InvoiceViewRow = viewOf(inserted);
  return { row, doc };
}
