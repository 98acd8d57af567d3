import { sql } from 'kysely';
import { bulkInsert } from '../../../db/bulk-insert.ts';
import type { Trx } from '../../../db/transaction.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import { paidShare } from './accrual.ts';
import { loadLedgerContext } from './ledger-context.ts';
import { lockLedgers } from './ledger-locks.ts';
import { reconcileCustomers } from './reconcile-customers.ts';
import { accrueRevenue, type EntryRow, entryRows, insertLedgerEntries, storeNewAnchors } from './write-entries.ts';

// The revenue share of invoice payments (design §6): the bank import hands over every payment
// it books, in its own transaction. A payment earns on the invoice's net pro rata of its
// gross (paidShare: counted cumulatively, so an invoice paid in parts earns exactly its net).
// Every payment is kept as a revenue event of kind invoice_payment — also one that earns
// nothing yet, since an attribution reported later may make it earn (issue 24) — with what
// the invoice had before it; its entries have source_type invoice. An over-payment beyond
// the gross earns nothing. A payment paid before a customer's first-paid anchor moves the
// anchor: that customer's ledger is computed again (reconcile-customers.ts).

export type InvoicePaymentShare = {
  /** The payment (payment_allocations.id). */
  allocationId: string;
  invoiceId: string;
  customerId: string;
  amountCents: number;
  /** What the invoice had received before this payment. */
  paidBeforeCents: number;
  grossCents: number;
  /** The bank's booking day (the paid day) and its start in the company's time zone. */
  paidOn: string;
  paidAt: Date;
};

const CHUNK = 5000;

/** Books the payments' revenue share; returns the number of entries written. */
export async function accrueInvoicePayments(trx: Trx, companyId: string, payments: readonly InvoicePaymentShare[], now: Date): Promise<number> {
  if (payments.length === 0) return 0;
  const customers = new Set(payments.map((p) => p.customerId));
  await lockLedgers(
    trx,
    companyId,
    [...customers].map((id) => [id, 'shared']),
  );
  const invoiceIds = [...new Set(payments.map((p) => p.invoiceId))];
  const lines = new Map<string, { net: bigint; productId: string | null }[]>();
  const periods = new Map<string, string>();
  for (let start = 0; start < invoiceIds.length; start += CHUNK) {
    const part = invoiceIds.slice(start, start + CHUNK);
    const rows = await trx
      .selectFrom('invoice_lines')
      .select(['invoice_id', 'net_cents', 'product_id'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`invoice_id = any(${part}::text[])`)
      .execute();
    for (const row of rows) lines.set(row.invoice_id, [...(lines.get(row.invoice_id) ?? []), { net: BigInt(row.net_cents), productId: row.product_id }]);
    const invoices = await trx
      .selectFrom('invoices')
      .select(['id', 'service_period_start'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`id = any(${part}::text[])`)
      .execute();
    for (const row of invoices) periods.set(row.id, row.service_period_start);
  }

  const shareOf = (payment: InvoicePaymentShare, net: bigint) =>
    paidShare(net, BigInt(payment.grossCents), BigInt(payment.paidBeforeCents), BigInt(payment.amountCents));
  const netOf = (payment: InvoicePaymentShare, productIds: ReadonlySet<string> | null) =>
    (lines.get(payment.invoiceId) ?? []).reduce(
      (sum, line) => (productIds === null || (line.productId !== null && productIds.has(line.productId)) ? sum + line.net : sum),
      0n,
    );
  // Every payment is a fact, in the order the bank import applied them (seq).
  const events = payments.map((payment) => ({ id: newId('rev'), payment }));
  await insertPaymentEvents(
    trx,
    companyId,
    events.map(({ id, payment }) => ({ id, payment, netCents: shareOf(payment, netOf(payment, null)) })),
    now,
  );

  const ctx = await loadLedgerContext(trx, companyId, customers);
  if (!ctx) return 0;
  const late = new Set<string>();
  const entries: EntryRow[] = [];
  // In paid-day order: the first qualifying payment of a customer sets its anchor.
  const byPaidDay = [...events].sort((a, b) => (a.payment.paidOn < b.payment.paidOn ? -1 : a.payment.paidOn > b.payment.paidOn ? 1 : 0));
  for (const { id, payment } of byPaidDay) {
    const revenue = {
      customerId: payment.customerId,
      paidOn: payment.paidOn,
      paidAt: payment.paidAt,
      eventId: id,
      sourceType: 'invoice' as const,
      sourceId: payment.invoiceId,
      servicePeriodStart: periods.get(payment.invoiceId) ?? payment.paidOn,
      basisFor: (productIds: ReadonlySet<string> | null) => shareOf(payment, netOf(payment, productIds)),
    };
    const accruals = accrueRevenue(ctx, revenue, () => late.add(payment.customerId));
    entries.push(...entryRows(companyId, revenue, accruals, now));
  }
  if (late.size === 0) {
    await insertLedgerEntries(trx, companyId, ctx, entries);
    return entries.length;
  }
  // Paid before a customer's anchor: those customers' ledgers are computed again.
  await storeNewAnchors(trx, companyId, ctx, late);
  const fast = entries.filter((row) => !late.has(row.customer_id as string));
  await insertLedgerEntries(trx, companyId, ctx, fast);
  const again = await reconcileCustomers(trx, companyId, late, now);
  return fast.length + again.length;
}

async function insertPaymentEvents(trx: Trx, companyId: string, events: { id: string; payment: InvoicePaymentShare; netCents: bigint }[], now: Date) {
  if (events.length === 0) return;
  await bulkInsert(
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
      allocation_id: 'text',
      paid_before_cents: 'bigint',
      paid_cents: 'bigint',
      gross_cents: 'bigint',
      created_at: 'timestamptz',
    },
    events.map(({ id, payment, netCents }) => ({
      company_id: companyId,
      id,
      kind: 'invoice_payment' as const,
      occurred_at: payment.paidAt,
      paid_on: payment.paidOn,
      net_cents: centsNumber(netCents),
      customer_id: payment.customerId,
      invoice_id: payment.invoiceId,
      allocation_id: payment.allocationId,
      paid_before_cents: payment.paidBeforeCents,
      paid_cents: payment.amountCents,
      gross_cents: payment.grossCents,
      created_at: now,
    })),
  );
}
