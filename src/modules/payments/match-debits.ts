import { centsToAmount } from './amounts.ts';
import { type ImportNote, importNote, noteText } from './import-notes.ts';
import type { NumberHit } from './invoice-number-finder.ts';
import type { ClosedInvoice, OpenInvoice } from './match-payments.ts';
import type { ReturnMark } from './return-mark.ts';

// Matching a debit to the invoices whose money it takes back, in memory (pure), issue 24:
// a refund to the customer names the invoice (the same spellings as a credit); a return
// (returned direct debit, returned or recalled credit) names it too, or is found through
// the earlier credit with its end-to-end reference (`originals`).
//
// Amount rules: in the order named, each invoice gives back first the customer credit its
// over-payment left (money the company owed the customer anyway; the invoice stays paid),
// then what it was paid, never more (amount_paid does not go below 0). What the invoices
// named cannot take back stays unassigned, for a person. A return's fees (the bank books
// original + fees; MT940 OAMT+/COAM+, camt InstdAmt) are no invoice money: noted, not taken.

export type DebitToMatch = {
  amountCents: number;
  /** Cents to take back: the whole amount, or a return's original amount without the bank's fees. */
  reversibleCents: number;
  hits: NumberHit[];
  returned: ReturnMark | null;
  /** A return naming no invoice: the invoices the credit it returns paid (found by its end-to-end reference). */
  originals: OpenInvoice[];
};

export type Reversal = {
  invoice: OpenInvoice;
  /** Taken back from the invoice's amount paid. */
  invoiceCents: number;
  /** Paid back of the customer credit its over-payment left. */
  creditCents: number;
  /** The invoice before this reversal. */
  paidBeforeCents: number;
  statusBefore: 'issued' | 'sent' | 'partially_paid' | 'paid';
};

export type DebitMatch =
  | { matched: true; reversals: Reversal[]; leftCents: number; noted: ImportNote[] }
  | { matched: false; leftCents: number; reasons: ImportNote[] };

/** The status an invoice has with `paidCents` received (a reversal may open it again). */
export function statusFor(invoice: Pick<OpenInvoice, 'grossCents' | 'sent'>, paidCents: number): 'issued' | 'sent' | 'partially_paid' | 'paid' {
  if (paidCents >= invoice.grossCents) return 'paid';
  if (paidCents > 0) return 'partially_paid';
  return invoice.sent ? 'sent' : 'issued';
}

function whyNot(hit: NumberHit, invoices: ReadonlyMap<string, OpenInvoice>, closed: ReadonlyMap<string, ClosedInvoice>): ImportNote | null {
  const invoice = invoices.get(hit.key);
  if (invoice) return invoice.paidCents + invoice.creditCents > 0 ? null : importNote('nothing_to_reverse', { number: invoice.number });
  const other = closed.get(hit.key);
  if (!other) return importNote('unknown_invoice_number', { number: hit.written });
  if (other.type === 'storno') return importNote('invoice_is_storno', { number: other.number });
  if (other.status === 'cancelled') return importNote('invoice_cancelled', { number: other.number });
  return importNote('invoice_not_open', { number: other.number, status: other.status });
}

/** Applies one debit to the invoices it names (or returns); mutates their paidCents and creditCents. */
export function matchDebit(debit: DebitToMatch, invoices: ReadonlyMap<string, OpenInvoice>, closed: ReadonlyMap<string, ClosedInvoice>): DebitMatch {
  const named: OpenInvoice[] = [];
  const problems: ImportNote[] = [];
  for (const hit of debit.hits) {
    const problem = whyNot(hit, invoices, closed);
    if (problem) problems.push(problem);
    else if (!named.includes(invoices.get(hit.key)!)) named.push(invoices.get(hit.key)!);
  }
  // A return naming none of the company's open or paid invoices: the ones its credit paid.
  if (named.length === 0 && debit.returned) named.push(...debit.originals.filter((invoice) => invoice.paidCents + invoice.creditCents > 0));
  const fees = debit.amountCents - debit.reversibleCents;
  const feeNotes = fees > 0 ? [importNote('return_fee', { amount: centsToAmount(fees) })] : [];
  const returnNotes = debit.returned ? [importNote('returned', { marker: debit.returned.marker, reason: debit.returned.reason ?? '' })] : [];
  if (named.length === 0) {
    const why = problems.length ? problems : [debit.returned ? importNote('return_without_invoice', {}) : importNote('no_invoice_number', {})];
    return { matched: false, leftCents: debit.reversibleCents, reasons: [...returnNotes, ...why, ...feeNotes] };
  }

  let remaining = debit.reversibleCents;
  const reversals: Reversal[] = [];
  for (const invoice of named) {
    if (remaining === 0) break;
    const creditCents = Math.min(remaining, invoice.creditCents);
    const invoiceCents = Math.min(remaining - creditCents, invoice.paidCents);
    if (creditCents + invoiceCents === 0) continue;
    reversals.push({ invoice, invoiceCents, creditCents, paidBeforeCents: invoice.paidCents, statusBefore: statusFor(invoice, invoice.paidCents) });
    if (invoice.paidCents >= invoice.grossCents && invoiceCents > 0) invoice.everPaid = true;
    invoice.creditCents -= creditCents;
    invoice.paidCents -= invoiceCents;
    remaining -= creditCents + invoiceCents;
  }
  const noted = [...returnNotes, ...problems, ...feeNotes];
  if (remaining > 0) noted.push(importNote('reversal_exceeds_paid', { amount: centsToAmount(remaining) }));
  return { matched: true, reversals, leftCents: remaining, noted };
}

/** The English reason of an unmatched debit, as the import prints and stores it. */
export const debitReason = (reasons: readonly ImportNote[]) => reasons.map(noteText).join('; ');
