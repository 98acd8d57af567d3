import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';
import type { InvoiceDocument } from '../invoicing/document.ts';
import { accountPlan, debtorAccount, outputVatAccount, revenueAccount } from './accounts.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { findEntryByDocument, insertJournalEntry, journalEntryWrites, lockedUntil, type NewJournalEntry } from './journal.repository.ts';
import { assertBalanced, assertDatedAfterLock, centsOf, type JournalLine, mirror } from './journal.ts';

export type BookingResult = {
  /** booked now; already_booked: an earlier call booked this document (nothing written); nothing_to_book: a zero invoice. */
  status: 'booked' | 'already_booked' | 'nothing_to_book';
  entryId: string | null;
  lines: JournalLine[];
};

/** What the caller read already in this transaction (each saves a query). */
export type BookingKnowns = {
  /** The document was created in this transaction: no earlier booking can exist. */
  newDocument?: boolean;
  /** The company's period lock as read in this transaction. */
  lockedUntil?: string | null;
};

/**
 * Books an issued invoice or storno (german-rules §6.2) inside the caller's transaction:
 * S debtor gross / H revenue per rate and verdict net / H output VAT per rate tax. A storno
 * (negative amounts) books the exact mirror. Idempotent per document: a second call for the
 * same document id writes nothing and answers `already_booked` with the stored lines.
 */
export async function bookInvoice(
  trx: Trx,
  companyId: string,
  chart: Chart,
  doc: InvoiceDocument,
  documentId: string,
  known: BookingKnowns = {},
): Promise<BookingResult> {
  const lines = invoiceJournalLines(chart, doc);

  const existing = known.newDocument ? undefined : await findEntryByDocument(trx, companyId, doc.type, documentId);
  if (existing) return alreadyBooked(existing, doc);
  if (lines.length === 0) return { status: 'nothing_to_book', entryId: null, lines };

  const locked = known.lockedUntil !== undefined ? known.lockedUntil : await lockedUntil(trx, companyId);
  assertDatedAfterLock(locked, doc);
  const entryId = newId('jen');
  const inserted = await insertJournalEntry(trx, invoiceEntry(companyId, chart, doc, documentId, entryId), lines);
  if (!inserted) {
    const winner = await findEntryByDocument(trx, companyId, doc.type, documentId);
    if (!winner) throw new Error(`journal entry for ${doc.type} ${documentId} vanished`);
    return alreadyBooked(winner, doc);
  }
  return { status: 'booked', entryId, lines };
}

/**
 * The booking of a document created in the caller's transaction (no earlier booking can
 * exist), as inserts not yet run: the caller makes them part of its own statement (the
 * invoice's, which runs under the number's row lock: issue 26). None for a zero invoice.
 * `lockedUntil`: the company's period lock as read in this transaction.
 */
export function newInvoiceBookingWrites(trx: Trx, companyId: string, chart: Chart, doc: InvoiceDocument, documentId: string, lockedUntil: string | null) {
  const lines = invoiceJournalLines(chart, doc);
  if (lines.length === 0) return [];
  assertDatedAfterLock(lockedUntil, doc);
  return journalEntryWrites(trx, invoiceEntry(companyId, chart, doc, documentId, newId('jen')), lines);
}

function invoiceEntry(companyId: string, chart: Chart, doc: InvoiceDocument, documentId: string, entryId: string): NewJournalEntry {
  return {
    company_id: companyId,
    id: entryId,
    entry_date: doc.issueDate,
    document_type: doc.type,
    document_id: documentId,
    document_number: doc.number,
    description: describe(doc),
    chart,
    service_date: doc.servicePeriod.end,
    counterparty_vat_id: doc.verdict === 'reverse_charge' ? buyerVatId(doc) : null,
    // A storno settles the open item of the invoice it cancels (DATEV Belegfeld 1).
    settles_number: doc.type === 'storno' ? (doc.precedingInvoice?.number ?? null) : null,
  };
}

function alreadyBooked(existing: { id: string; documentNumber: string; lines: JournalLine[] }, doc: InvoiceDocument): BookingResult {
  if (existing.documentNumber !== doc.number)
    throw new BookkeepingError('already_booked', `this ${doc.type} is booked already as ${existing.documentNumber}, not ${doc.number}`);
  return { status: 'already_booked', entryId: existing.id, lines: existing.lines };
}

/** The journal lines of an invoice or storno snapshot (pure; position = index + 1). */
export function invoiceJournalLines(chart: Chart, doc: InvoiceDocument): JournalLine[] {
  const plan = accountPlan(chart);
  // A storno carries negative amounts: book its absolute amounts, then mirror.
  const sign = doc.type === 'storno' ? -1 : 1;
  const positive = (amount: string, what: string) => {
    const cents = centsOf(amount) * sign;
    if (cents < 0) throw new BookkeepingError('invalid_document', `${what} of ${doc.type} ${doc.number} has the wrong sign: ${amount}`);
    return cents;
  };

  const revenue = new Map<string, number>();
  const vat = new Map<7 | 19, number>();
  let net = 0;
  let tax = 0;
  for (const entry of doc.vatBreakdown) {
    const taxable = positive(entry.taxableAmount, `taxable amount at ${entry.rate} %`);
    const taxAmount = positive(entry.taxAmount, `tax at ${entry.rate} %`);
    const lineNets = doc.lines
      .filter((l) => l.vatRate === entry.rate && l.category === entry.category)
      .reduce((sum, l) => sum + centsOf(l.netAmount) * sign, 0);
    if (lineNets !== taxable)
      throw new BookkeepingError(
        'invalid_document',
        `${doc.number}: lines at ${entry.rate} % (${entry.category}) sum to ${lineNets} cents, the breakdown says ${taxable}`,
      );
    const account = revenueAccount(plan, doc.verdict, entry.rate);
    revenue.set(account, (revenue.get(account) ?? 0) + taxable);
    if (entry.rate === 0) {
      if (taxAmount !== 0) throw new BookkeepingError('invalid_document', `${doc.number}: tax ${entry.taxAmount} at 0 %`);
    } else {
      vat.set(entry.rate, (vat.get(entry.rate) ?? 0) + taxAmount);
    }
    net += taxable;
    tax += taxAmount;
  }
  const allLineNets = doc.lines.reduce((sum, l) => sum + centsOf(l.netAmount) * sign, 0);
  if (allLineNets !== net) throw new BookkeepingError('invalid_document', `${doc.number}: the lines sum to ${allLineNets} cents, the VAT breakdown to ${net}`);
  const gross = positive(doc.totals.gross, 'gross total');
  if (net !== positive(doc.totals.net, 'net total') || tax !== positive(doc.totals.tax, 'tax total') || net + tax !== gross)
    throw new BookkeepingError('invalid_document', `${doc.number}: totals ${JSON.stringify(doc.totals)} do not match the VAT breakdown`);

  const lines: JournalLine[] = [];
  if (gross > 0) lines.push({ account: debtorAccount(doc.buyer.customerNumber), side: 'S', amountCents: gross, taxKey: null });
  // Revenue and output VAT accounts carry no tax key: the revenue accounts are DATEV
  // automatic accounts (or carry no VAT), see export-datev.ts for how the VAT is handed over.
  for (const [account, amountCents] of revenue) if (amountCents > 0) lines.push({ account, side: 'H', amountCents, taxKey: null });
  for (const rate of [19, 7] as const) {
    const amountCents = vat.get(rate) ?? 0;
    if (amountCents > 0) lines.push({ account: outputVatAccount(plan, rate), side: 'H', amountCents, taxKey: null });
  }
  if (lines.length === 0) return lines;
  assertBalanced(lines);
  return doc.type === 'storno' ? mirror(lines) : lines;
}

function describe(doc: InvoiceDocument): string {
  const what = doc.type === 'storno' ? `Storno ${doc.number}${doc.precedingInvoice ? ` zu ${doc.precedingInvoice.number}` : ''}` : `Rechnung ${doc.number}`;
  return `${what} ${doc.buyer.name}`.slice(0, 255);
}

function buyerVatId(doc: InvoiceDocument): string {
  const vatId = (doc.buyer.vatId ?? '').replace(/[\s.-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}[A-Z0-9+*]{2,13}$/.test(vatId))
    throw new BookkeepingError('invalid_document', `${doc.number}: a reverse-charge invoice needs the buyer's VAT ID`);
  return vatId;
}
