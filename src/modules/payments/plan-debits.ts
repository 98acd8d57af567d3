import { newId } from '../../shared/ids.ts';
import { centsToAmount, toCents } from './amounts.ts';
import { importNote, notesText, noteText } from './import-notes.ts';
import { type ImportPlan, outcomeBase, type PlanInput, type ReversalOutcome, type TransactionOutcome, transactionRow } from './import-plan.ts';
import { debitReason, matchDebit, statusFor } from './match-debits.ts';
import type { ParsedEntry, ParsedTransaction } from './statement.ts';

// The debits of an import (issue 24), planned in file order with the credits: a debit that
// names an invoice (a refund) or that the bank marks as a return takes money back from it
// (match-debits.ts). Each invoice it reaches gets a reversal row, booked debtor against bank
// on the booking day, and the revenue share's reversal; what cannot be taken back stays on
// the transaction for a person (`unmatched`, `unassigned_cents`). A debit that is neither
// (rent, salaries, the bank's fees) is "debit ignored", as before.

export function planDebit(
  input: PlanInput,
  plan: ImportPlan,
  entry: ParsedEntry,
  entryId: string,
  tx: ParsedTransaction,
  position: number,
): TransactionOutcome {
  const base = outcomeBase(tx, position);
  const cents = toCents(tx.amount) ?? 0;
  const hits = input.hitsOf(tx);
  // RvslInd on a debit without details of its own: the entry is the return.
  const returned = tx.returned ?? (entry.reversal ? { marker: 'RvslInd', reason: null, originalAmount: null } : null);
  if (cents === 0 || (hits.length === 0 && !returned)) {
    const ignored = cents === 0 ? importNote('zero_amount_ignored', {}) : importNote('debit_ignored', {});
    const note = noteText(ignored);
    transactionRow(input, plan, entryId, tx, position, 'ignored', note, 0);
    return { ...base, status: 'ignored', note, notes: [ignored], payments: [], credit: null, reversals: [] };
  }
  const original = returned?.originalAmount ? toCents(returned.originalAmount) : null;
  const reversibleCents = original !== null && original > 0 && original < cents ? original : cents;
  const originals = returned && tx.endToEndId ? [...(input.paidByEndToEnd.get(tx.endToEndId) ?? []), ...(plan.paidByEndToEnd.get(tx.endToEndId) ?? [])] : [];
  const match = matchDebit({ amountCents: cents, reversibleCents, hits, returned, originals: [...new Set(originals)] }, input.open, input.closed);
  if (!match.matched) {
    const note = debitReason(match.reasons);
    transactionRow(input, plan, entryId, tx, position, 'unmatched', note, match.leftCents, match.reasons);
    return { ...base, status: 'unmatched', note, notes: match.reasons, payments: [], credit: null, reversals: [] };
  }

  const note = notesText(match.noted);
  transactionRow(input, plan, entryId, tx, position, match.leftCents > 0 ? 'unmatched' : 'matched', note, match.leftCents, match.noted);
  const reversals: ReversalOutcome[] = match.reversals.map((reversal) => {
    const { invoice } = reversal;
    const reversalId = newId('prv');
    plan.reversalRows.push({
      company_id: input.companyId,
      id: reversalId,
      entry_id: entryId,
      transaction_position: position,
      invoice_id: invoice.id,
      invoice_cents: reversal.invoiceCents,
      credit_cents: reversal.creditCents,
      booking_date: entry.bookingDate,
      kind: returned ? 'return' : 'refund',
      return_marker: returned?.marker.slice(0, 40) ?? null,
      return_reason: returned?.reason ?? null,
      status_before: reversal.statusBefore,
      paid_before_cents: reversal.paidBeforeCents,
      assigned_by: null,
      created_at: input.now,
    });
    plan.reversalBookings.push({
      documentId: reversalId,
      invoiceNumber: invoice.number,
      customerNumber: String(invoice.customerNumber),
      amountCents: reversal.invoiceCents + reversal.creditCents,
      date: entry.bookingDate,
      description: `${returned ? 'Rückbuchung' : 'Erstattung'} ${invoice.number} ${invoice.customerName}`,
    });
    if (reversal.invoiceCents > 0) {
      plan.reversalShares.push({
        reversalId,
        invoiceId: invoice.id,
        customerId: invoice.customerId,
        amountCents: reversal.invoiceCents,
        paidBeforeCents: reversal.paidBeforeCents,
        grossCents: invoice.grossCents,
        reversedOn: entry.bookingDate,
      });
      const touched = plan.touched.get(invoice.id) ?? { invoice, paidOn: null };
      if (invoice.paidCents < invoice.grossCents) touched.paidOn = null;
      plan.touched.set(invoice.id, touched);
    }
    return {
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: centsToAmount(reversal.invoiceCents),
      credit: centsToAmount(reversal.creditCents),
      status_after: statusFor(invoice, invoice.paidCents),
      paid_after: centsToAmount(invoice.paidCents),
    };
  });
  return { ...base, status: match.leftCents > 0 ? 'unmatched' : 'matched', note, notes: match.noted, payments: [], credit: null, reversals };
}
