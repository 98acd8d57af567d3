import type { BankEntryStatus, BankTransactionStatus } from '../../db/schema-payments.ts';
import { newId } from '../../shared/ids.ts';
import { centsToAmount, displayAmount, toCents } from './amounts.ts';
import { type ImportNote, importNote, notesText, noteText } from './import-notes.ts';
import { type ImportPlan, ignoreNote, outcomeBase, type PaymentOutcome, type PlanInput, type TransactionOutcome, transactionRow } from './import-plan.ts';
import { matchTransfer, type OpenInvoice } from './match-payments.ts';
import { planDebit } from './plan-debits.ts';
import type { ParsedEntry, ParsedTransaction } from './statement.ts';

// What an import writes, worked out in memory (pure apart from new ids): the rows of the
// new entries and their transactions, the payments and credits, the journal entries and
// what each entry came to, in the shape the command prints. The plan's shape and the rows
// every transaction adds are in import-plan.ts (shared with plan-debits.ts).

export type {
  EntryOutcome,
  ImportPlan,
  PaymentOutcome,
  PlanInput,
  ReversalOutcome,
  ReversalShare,
  TouchedInvoice,
  TransactionOutcome,
} from './import-plan.ts';
export { ignoreNote, ignoreReason, outcomeBase, transactionRow } from './import-plan.ts';

function entryStatus(transactions: TransactionOutcome[]): BankEntryStatus {
  if (transactions.every((t) => t.status === 'matched')) return 'matched';
  if (transactions.some((t) => t.status === 'matched' || t.reversals.length > 0)) return 'partially_matched';
  return transactions.every((t) => t.status === 'ignored') ? 'ignored' : 'unmatched';
}

export function planImport(input: PlanInput): ImportPlan {
  const plan: ImportPlan = {
    entryRows: [],
    transactionRows: [],
    allocationRows: [],
    creditRows: [],
    reversalRows: [],
    payments: [],
    reversalBookings: [],
    shares: [],
    reversalShares: [],
    touched: new Map(),
    paidByEndToEnd: new Map(),
    outcomes: [],
  };
  for (const entry of input.entries) {
    const entryId = newId('bke');
    const ignoredNote = ignoreNote(entry);
    const ignored = ignoredNote && noteText(ignoredNote);
    const transactions = entry.transactions.map((tx, i) =>
      entry.direction === 'debit' && !ignoredNote
        ? planDebit(input, plan, entry, entryId, tx, i + 1)
        : planTransaction(input, plan, entry, entryId, ignoredNote, tx, i + 1),
    );
    const status = ignored ? 'ignored' : entryStatus(transactions);
    // The note of the entry: why it is ignored, or why (the first of) its transactions wait for a person.
    const first = status === 'matched' ? undefined : transactions.find((t) => t.status === (status === 'ignored' ? 'ignored' : 'unmatched'));
    const note = ignored ?? first?.note ?? null;
    const notes = ignoredNote ? [ignoredNote] : (first?.notes ?? []);
    plan.entryRows.push({
      company_id: input.companyId,
      id: entryId,
      statement_id: input.statementId,
      entry_key: entry.key,
      position: entry.position,
      account: entry.account,
      booking_date: entry.bookingDate,
      value_date: entry.valueDate,
      direction: entry.direction,
      reversal: entry.reversal,
      bank_status: entry.status,
      amount: entry.amount,
      currency: entry.currency,
      bank_reference: entry.bankReference,
      booking_text: entry.bookingText,
      status,
      note,
    });
    plan.outcomes.push({
      position: entry.position,
      booking_date: entry.bookingDate,
      direction: entry.direction,
      amount: displayAmount(entry.amount),
      currency: entry.currency,
      status,
      note,
      notes,
      transactions,
    });
  }
  return plan;
}

function planTransaction(
  input: PlanInput,
  plan: ImportPlan,
  entry: ParsedEntry,
  entryId: string,
  entryIgnored: ImportNote | null,
  tx: ParsedTransaction,
  position: number,
): TransactionOutcome {
  const cents = entryIgnored ? null : toCents(tx.amount);
  const base = outcomeBase(tx, position);
  const row = (status: BankTransactionStatus, note: string | null, unassignedCents: number, notes: readonly ImportNote[] = []) =>
    transactionRow(input, plan, entryId, tx, position, status, note, unassignedCents, notes);

  if (entryIgnored || cents === null || cents === 0) {
    const ignored = entryIgnored ?? importNote('zero_amount_ignored', {});
    const note = noteText(ignored);
    row('ignored', note, 0);
    return { ...base, status: 'ignored', note, notes: [ignored], payments: [], credit: null, reversals: [] };
  }
  const match = matchTransfer({ amountCents: cents, hits: input.hitsOf(tx) }, input.open, input.closed);
  if (!match.matched) {
    row('unmatched', match.reason, cents, match.reasons);
    return { ...base, status: 'unmatched', note: match.reason, notes: match.reasons, payments: [], credit: null, reversals: [] };
  }

  const note = notesText(match.noted);
  row('matched', note, 0);
  const paidByThis: OpenInvoice[] = [];
  const payments: PaymentOutcome[] = [];
  let credit: TransactionOutcome['credit'] = null;
  match.allocations.forEach((allocation, i) => {
    const { invoice } = allocation;
    const allocationId = newId('pay');
    const last = i === match.allocations.length - 1;
    plan.allocationRows.push({
      company_id: input.companyId,
      id: allocationId,
      entry_id: entryId,
      transaction_position: position,
      invoice_id: invoice.id,
      amount_cents: allocation.amountCents,
      booking_date: entry.bookingDate,
      created_at: input.now,
      invoice_was_overdue: invoice.wasOverdue,
    });
    paidByThis.push(invoice);
    plan.shares.push({
      allocationId,
      invoiceId: invoice.id,
      customerId: invoice.customerId,
      amountCents: allocation.amountCents,
      paidBeforeCents: invoice.grossCents - allocation.openAfterCents - allocation.amountCents,
      grossCents: invoice.grossCents,
      paidOn: entry.bookingDate,
    });
    // The surplus travels with the last payment: bank against debtor for all that came in.
    const surplus = last ? match.creditCents : 0;
    if (surplus > 0) {
      invoice.creditCents += surplus;
      plan.creditRows.push({
        company_id: input.companyId,
        id: newId('ccr'),
        customer_id: invoice.customerId,
        amount_cents: surplus,
        booking_date: entry.bookingDate,
        entry_id: entryId,
        transaction_position: position,
        allocation_id: allocationId,
        created_at: input.now,
      });
      credit = { customer_id: invoice.customerId, customer_name: invoice.customerName, amount: centsToAmount(surplus) };
    }
    plan.payments.push({
      documentId: allocationId,
      invoiceNumber: invoice.number,
      customerNumber: String(invoice.customerNumber),
      amountCents: allocation.amountCents + surplus,
      date: entry.bookingDate,
      description: `Zahlungseingang ${invoice.number} ${invoice.customerName}`,
    });
    const touched = plan.touched.get(invoice.id) ?? { invoice, paidOn: null };
    if (allocation.effect === 'paid') touched.paidOn = entry.bookingDate;
    plan.touched.set(invoice.id, touched);
    payments.push({
      invoice_id: invoice.id,
      invoice_number: invoice.number,
      amount: centsToAmount(allocation.amountCents),
      effect: allocation.effect,
      open_after: centsToAmount(allocation.openAfterCents),
    });
  });
  if (tx.endToEndId) plan.paidByEndToEnd.set(tx.endToEndId, [...(plan.paidByEndToEnd.get(tx.endToEndId) ?? []), ...paidByThis]);
  return { ...base, status: 'matched', note, notes: match.noted, payments, credit, reversals: [] };
}
