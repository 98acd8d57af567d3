import { sql } from 'kysely';
import { bulkInsert } from '../../../db/bulk-insert.ts';
import type { Trx } from '../../../db/transaction.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import { paidShare } from './accrual.ts';
import { lockLedgers } from './ledger-locks.ts';
import { reconcileEvents } from './reconcile-events.ts';

// Money taken back from an invoice (issue 24): the bank import calls this in its transaction
// for each debit it applies to an invoice — a refund to the customer, a returned direct
// debit. Each reversal is kept as a fact (a revenue event of kind
// invoice_payment_reversal, once per reversalId) and the revenue share of the invoice is
// computed again from its payments and reversals (wanted-entries.ts): the levels of the
// amount paid from `paidBefore − amount` to `paidBefore` are taken back, last paid first,
// at the percent and contract month of the payment entries that earned on them — the net
// share being the mirror of paidShare. A payment entry still open and reversed in full is
// voided together with its reversal instead of a ± pair. A later payment earns again.

export type InvoicePaymentReversal = {
  /** The bank side's row id of the debit's application to the invoice (unique). */
  reversalId: string;
  invoiceId: string;
  customerId: string;
  /** Gross cents taken back from the invoice (> 0). */
  amountCents: number;
  /** The invoice's amount_paid (cents) before this reversal. */
  paidBeforeCents: number;
  /** The invoice's total gross (cents). */
  grossCents: number;
  /** The bank's booking day (YYYY-MM-DD). */
  reversedOn: string;
  /** 00:00 of that day in the company's time zone. */
  reversedAt: Date;
};

/** Books the reversals' side of the revenue share; returns the number of entries written (void ones included). */
export async function reverseInvoicePayments(trx: Trx, companyId: string, reversals: readonly InvoicePaymentReversal[], now: Date): Promise<number> {
  if (reversals.length === 0) return 0;
  for (const reversal of reversals) {
    if (!(Number.isSafeInteger(reversal.amountCents) && reversal.amountCents > 0))
      throw new RangeError(`reversal ${reversal.reversalId}: amount must be > 0 cents`);
  }
  // Computing the invoices' entries again: nobody writes these customers' ledgers meanwhile.
  await lockLedgers(
    trx,
    companyId,
    reversals.map((r) => [r.customerId, 'exclusive']),
  );
  const invoiceIds = [...new Set(reversals.map((r) => r.invoiceId))];
  const nets = await trx
    .selectFrom('invoices')
    .select(['id', 'total_net_cents'])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`id = any(${invoiceIds}::text[])`)
    .execute();
  const netOf = new Map(nets.map((row) => [row.id, BigInt(row.total_net_cents)]));
  const inserted = await bulkInsert(
    trx,
    'revenue_events',
    {
      company_id: 'text',
      id: 'text',
      kind: 'text',
      occurred_at: 'timestamptz',
      paid_on: 'date',
      net_cents: 'bigint',
      customer_id: 'text',
      invoice_id: 'text',
      reversal_id: 'text',
      paid_before_cents: 'bigint',
      paid_cents: 'bigint',
      gross_cents: 'bigint',
      created_at: 'timestamptz',
    },
    reversals.map((r) => ({
      company_id: companyId,
      id: newId('rev'),
      kind: 'invoice_payment_reversal' as const,
      occurred_at: r.reversedAt,
      paid_on: r.reversedOn,
      // The invoice's net taken back: what was earned at paidBefore − amount … paidBefore, negative.
      net_cents: -centsNumber(paidShare(netOf.get(r.invoiceId) ?? 0n, BigInt(r.grossCents), BigInt(r.paidBeforeCents - r.amountCents), BigInt(r.amountCents))),
      customer_id: r.customerId,
      invoice_id: r.invoiceId,
      reversal_id: r.reversalId,
      paid_before_cents: r.paidBeforeCents,
      paid_cents: r.amountCents,
      gross_cents: r.grossCents,
      created_at: now,
    })),
    // A reversal already booked (the same debit applied again) changes nothing.
    { onConflictDoNothing: true, returning: 'invoice_id' },
  );
  if (inserted.length === 0) return 0;
  return (await reconcileEvents(trx, companyId, [], [...new Set(inserted)], now)).length;
}
