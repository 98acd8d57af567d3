import { sql } from 'kysely';
import { bulkInsert } from '../../../db/bulk-insert.ts';
import type { Trx } from '../../../db/transaction.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import { paidShare } from './accrual.ts';
import { loadLedgerContext } from './ledger-context.ts';
import { accrueRevenue, type EntryRow, entryRows, insertLedgerEntries } from './write-entries.ts';

// The revenue share of invoice payments (design §6): the bank import hands over every payment
// it books, in its own transaction. A payment earns on the invoice's net pro rata of its
// gross (paidShare: counted cumulatively, so an invoice paid in parts earns exactly its net);
// each payment that earns anything becomes a revenue event of kind invoice_payment with its
// entries. An over-payment beyond the gross earns nothing.

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

export async function accrueInvoicePayments(trx: Trx, companyId: string, payments: readonly InvoicePaymentShare[], now: Date): Promise<number> {
  if (payments.length === 0) return 0;
  const ctx = await loadLedgerContext(trx, companyId, new Set(payments.map((p) => p.customerId)));
  if (!ctx) return 0;
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

  const events: Parameters<typeof insertPaymentEvents>[2] = [];
  const entries: EntryRow[] = [];
  for (const payment of payments) {
    const invoiceLines = lines.get(payment.invoiceId) ?? [];
    const gross = BigInt(payment.grossCents);
    const share = (net: bigint) => paidShare(net, gross, BigInt(payment.paidBeforeCents), BigInt(payment.amountCents));
    const eventId = newId('rev');
    const revenue = {
      customerId: payment.customerId,
      paidOn: payment.paidOn,
      paidAt: payment.paidAt,
      eventId,
      sourceType: 'invoice' as const,
      sourceId: payment.invoiceId,
      servicePeriodStart: periods.get(payment.invoiceId) ?? payment.paidOn,
      basisFor: (productIds: ReadonlySet<string> | null) =>
        share(
          invoiceLines.reduce((sum, line) => (productIds === null || (line.productId !== null && productIds.has(line.productId)) ? sum + line.net : sum), 0n),
        ),
    };
    const accruals = accrueRevenue(ctx, revenue);
    if (accruals.length === 0) continue;
    events.push({ id: eventId, payment, netCents: share(invoiceLines.reduce((sum, line) => sum + line.net, 0n)) });
    entries.push(...entryRows(companyId, revenue, accruals, now));
  }
  await insertPaymentEvents(trx, companyId, events, now);
  await insertLedgerEntries(trx, companyId, ctx, entries);
  return entries.length;
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
      created_at: now,
    })),
  );
}
