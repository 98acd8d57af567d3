import type { InvoiceStatus } from '../../db/schema-invoicing.ts';
import { centsToAmount } from './amounts.ts';
import { type ImportNote, importNote, noteText } from './import-notes.ts';
import type { NumberHit } from './invoice-number-finder.ts';

// Matching credits to invoices, in memory (pure): the invoices a transfer names (found by
// invoice-number-finder.ts) are looked up in a Map by normalised number, so 10,000
// transfers against 10,000 open invoices cost 10,000 look-ups, not 10^8 comparisons.
//
// Amount rules: one open invoice named → it gets the money up to its open amount (full or
// partial); several → split in the order named, each up to its open amount, so a shortfall
// leaves the last one reached partially paid; money beyond the open amounts becomes a
// credit of the customer of the last invoice paid. A transfer that names no open invoice
// (none at all, unknown numbers, or only paid/cancelled ones) stays unmatched, with the
// reason, for a person to assign. Transfers are applied in file order, and an invoice paid
// by an earlier transfer of the same file is no longer open for a later one.

/**
 * An invoice as the matcher sees and updates it: an open one, or a paid one a debit names
 * (match-debits.ts), which a later credit of the same file finds again when the debit
 * opened it.
 */
export type OpenInvoice = {
  id: string;
  number: string;
  customerId: string;
  customerNumber: number;
  customerName: string;
  grossCents: number;
  /** Paid so far; grows as credits are applied, shrinks as debits take it back. */
  paidCents: number;
  /** amount_paid and status as read from the database (the update checks they still hold). */
  loadedPaidCents: number;
  status: InvoiceStatus;
  /** Mailed (sent_at set): opened again by a reversal it is `sent`, else `issued`. */
  sent: boolean;
  /** Marked overdue (its event sent), now or before a payment cleared the flag: a reversal restores it. */
  wasOverdue: boolean;
  /** Customer credit its over-payments left (paid back first by a refund naming it); known for invoices a debit names. */
  creditCents: number;
  /** Paid in full before (event invoice.paid sent): not sent again when it is paid once more. */
  everPaid: boolean;
};

/** An invoice that is not open (found only for the reason of an unmatched transfer). */
export type ClosedInvoice = { number: string; status: InvoiceStatus; type: 'invoice' | 'storno' };

export type TransferToMatch = { amountCents: number; hits: NumberHit[] };

export type Allocation = {
  invoice: OpenInvoice;
  amountCents: number;
  /** The invoice's state after this allocation. */
  effect: 'paid' | 'partially_paid';
  openAfterCents: number;
};

/** `notes`/`reason`: the English text; `noted`/`reasons`: the same as codes with values (import-notes.ts). */
export type TransferMatch =
  | { matched: true; allocations: Allocation[]; creditCents: number; notes: string[]; noted: ImportNote[] }
  | { matched: false; reason: string; reasons: ImportNote[] };

function whyClosed(invoice: ClosedInvoice): ImportNote {
  if (invoice.type === 'storno') return importNote('invoice_is_storno', { number: invoice.number });
  if (invoice.status === 'cancelled') return importNote('invoice_cancelled', { number: invoice.number });
  if (invoice.status === 'paid') return importNote('invoice_already_paid', { number: invoice.number });
  return importNote('invoice_not_open', { number: invoice.number, status: invoice.status });
}

/** Applies one transfer to the open invoices it names; mutates their paidCents. */
export function matchTransfer(transfer: TransferToMatch, open: ReadonlyMap<string, OpenInvoice>, closed: ReadonlyMap<string, ClosedInvoice>): TransferMatch {
  if (transfer.hits.length === 0) {
    const none = importNote('no_invoice_number', {});
    return { matched: false, reason: noteText(none), reasons: [none] };
  }
  const named: OpenInvoice[] = [];
  const problems: ImportNote[] = [];
  for (const hit of transfer.hits) {
    const invoice = open.get(hit.key);
    if (invoice && invoice.paidCents < invoice.grossCents) named.push(invoice);
    else if (invoice) problems.push(importNote('invoice_already_paid', { number: invoice.number }));
    else {
      const other = closed.get(hit.key);
      problems.push(other ? whyClosed(other) : importNote('unknown_invoice_number', { number: hit.written }));
    }
  }
  if (named.length === 0) return { matched: false, reason: problems.map(noteText).join('; '), reasons: problems };

  let remaining = transfer.amountCents;
  const allocations: Allocation[] = [];
  for (const invoice of named) {
    if (remaining === 0) break;
    const amountCents = Math.min(remaining, invoice.grossCents - invoice.paidCents);
    invoice.paidCents += amountCents;
    remaining -= amountCents;
    const openAfterCents = invoice.grossCents - invoice.paidCents;
    allocations.push({ invoice, amountCents, effect: openAfterCents === 0 ? 'paid' : 'partially_paid', openAfterCents });
  }
  const noted = [...problems];
  if (remaining > 0) noted.push(importNote('overpaid', { amount: centsToAmount(remaining), customer: allocations.at(-1)!.invoice.customerName }));
  return { matched: true, allocations, creditCents: remaining, notes: noted.map(noteText), noted };
}
