import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';

// The facts the ledger is a function of (issue 24), as stored: revenue reported through the
// API (sales and their refunds) and every payment and reversal of an invoice, each with its
// paid day. ledger/wanted-entries.ts turns them into the entries they earn; the loaders here
// read them for a set of events (the fast path: one sale and its refunds, one invoice) or
// for whole customers (a late fact: everything of the customer).

export type FactLine = { netCents: bigint; productId: string | null };

/** A revenue event reported through the API that is not a refund. */
export type SaleFact = {
  eventId: string;
  externalRef: string;
  customerId: string | null;
  paidOn: string;
  paidAt: Date;
  netCents: bigint;
  lines: FactLine[];
};

/** A refund (a revenue event with reverses_ref); `netCents` and the lines are what it refunds (positive). */
export type RefundFact = SaleFact & { reversesId: string };

/** One payment (or reversal: money taken back) of an invoice, in the order it was applied. */
export type InvoiceOp = {
  eventId: string;
  reversal: boolean;
  paidOn: string;
  paidAt: Date;
  /** The invoice's amount_paid before it (cents). */
  beforeCents: bigint;
  /** The amount paid or taken back (positive cents). */
  amountCents: bigint;
};

export type InvoiceFacts = {
  invoiceId: string;
  customerId: string;
  grossCents: bigint;
  servicePeriodStart: string;
  lines: FactLine[];
  ops: InvoiceOp[];
};

export type LedgerFacts = { sales: SaleFact[]; refunds: RefundFact[]; invoices: InvoiceFacts[] };

/** The customers' keys ('' for revenue without a customer) of the facts. */
export function factCustomers(facts: LedgerFacts): Set<string | null> {
  const out = new Set<string | null>();
  for (const sale of facts.sales) out.add(sale.customerId);
  for (const refund of facts.refunds) out.add(refund.customerId);
  for (const invoice of facts.invoices) out.add(invoice.customerId);
  return out;
}

/** Every event id of the facts. */
export function factEventIds(facts: LedgerFacts): string[] {
  return [...facts.sales.map((s) => s.eventId), ...facts.refunds.map((r) => r.eventId), ...facts.invoices.flatMap((i) => i.ops.map((o) => o.eventId))];
}

type EventRow = {
  id: string;
  kind: string;
  external_ref: string | null;
  customer_id: string | null;
  reverses_id: string | null;
  invoice_id: string | null;
  paid_on: string;
  occurred_at: Date;
  net_cents: number | string;
  paid_before_cents: number | string | null;
  paid_cents: number | string | null;
  gross_cents: number | string | null;
  seq: number | string;
};

const EVENT_COLUMNS = [
  'id',
  'kind',
  'external_ref',
  'customer_id',
  'reverses_id',
  'invoice_id',
  'paid_on',
  'occurred_at',
  'net_cents',
  'paid_before_cents',
  'paid_cents',
  'gross_cents',
  'seq',
] as const;

/** The facts of these sales (with all their refunds) and invoices (with all their payments and reversals). */
export async function loadEventFacts(trx: Trx, companyId: string, saleIds: readonly string[], invoiceIds: readonly string[]): Promise<LedgerFacts> {
  const rows: EventRow[] = [];
  if (saleIds.length > 0) {
    rows.push(
      ...(await trx
        .selectFrom('revenue_events')
        .select(EVENT_COLUMNS)
        .where('company_id', '=', companyId)
        .where((eb) => eb.or([sql<boolean>`id = any(${saleIds}::text[])`, sql<boolean>`reverses_id = any(${saleIds}::text[])`]))
        .execute()),
    );
  }
  if (invoiceIds.length > 0) {
    rows.push(
      ...(await trx
        .selectFrom('revenue_events')
        .select(EVENT_COLUMNS)
        .where('company_id', '=', companyId)
        .where(sql<boolean>`invoice_id = any(${invoiceIds}::text[])`)
        .execute()),
    );
  }
  return factsOf(trx, companyId, rows);
}

/** Every fact of these customers (null: revenue without a customer). */
export async function loadCustomerFacts(trx: Trx, companyId: string, customerIds: readonly (string | null)[]): Promise<LedgerFacts> {
  const ids = customerIds.filter((id): id is string => id !== null);
  const rows: EventRow[] = [];
  if (ids.length > 0)
    rows.push(
      ...(await trx
        .selectFrom('revenue_events')
        .select(EVENT_COLUMNS)
        .where('company_id', '=', companyId)
        .where(sql<boolean>`customer_id = any(${ids}::text[])`)
        .execute()),
    );
  if (customerIds.includes(null))
    rows.push(...(await trx.selectFrom('revenue_events').select(EVENT_COLUMNS).where('company_id', '=', companyId).where('customer_id', 'is', null).execute()));
  return factsOf(trx, companyId, rows);
}

async function factsOf(trx: Trx, companyId: string, rows: readonly EventRow[]): Promise<LedgerFacts> {
  const unique = [...new Map(rows.map((row) => [row.id, row])).values()];
  const apiIds = unique.filter((row) => row.kind === 'api').map((row) => row.id);
  const linesOf = new Map<string, FactLine[]>();
  if (apiIds.length > 0) {
    const lines = await trx
      .selectFrom('revenue_event_lines')
      .select(['event_id', 'net_cents', 'product_id'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`event_id = any(${apiIds}::text[])`)
      .orderBy('event_id')
      .orderBy('position')
      .execute();
    for (const line of lines)
      linesOf.set(line.event_id, [...(linesOf.get(line.event_id) ?? []), { netCents: BigInt(line.net_cents), productId: line.product_id }]);
  }
  const facts: LedgerFacts = { sales: [], refunds: [], invoices: [] };
  const invoiceOps = new Map<string, { customerId: string; grossCents: bigint; ops: (InvoiceOp & { seq: bigint })[] }>();
  for (const row of unique) {
    if (row.kind === 'api') {
      const sale: SaleFact = {
        eventId: row.id,
        externalRef: row.external_ref as string,
        customerId: row.customer_id,
        paidOn: row.paid_on,
        paidAt: row.occurred_at,
        netCents: BigInt(row.net_cents),
        lines: linesOf.get(row.id) ?? [],
      };
      if (row.reverses_id === null) facts.sales.push(sale);
      else
        facts.refunds.push({
          ...sale,
          netCents: -sale.netCents,
          lines: sale.lines.map((line) => ({ ...line, netCents: -line.netCents })),
          reversesId: row.reverses_id,
        });
      continue;
    }
    const invoiceId = row.invoice_id as string;
    const entry = invoiceOps.get(invoiceId) ?? { customerId: row.customer_id as string, grossCents: BigInt(row.gross_cents ?? 0), ops: [] };
    entry.ops.push({
      eventId: row.id,
      reversal: row.kind === 'invoice_payment_reversal',
      paidOn: row.paid_on,
      paidAt: row.occurred_at,
      beforeCents: BigInt(row.paid_before_cents ?? 0),
      amountCents: BigInt(row.paid_cents ?? 0),
      seq: BigInt(row.seq),
    });
    invoiceOps.set(invoiceId, entry);
  }
  if (invoiceOps.size > 0) {
    const invoiceIds = [...invoiceOps.keys()];
    const lines = await trx
      .selectFrom('invoice_lines')
      .select(['invoice_id', 'net_cents', 'product_id'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`invoice_id = any(${invoiceIds}::text[])`)
      .execute();
    const invoiceLines = new Map<string, FactLine[]>();
    for (const line of lines)
      invoiceLines.set(line.invoice_id, [...(invoiceLines.get(line.invoice_id) ?? []), { netCents: BigInt(line.net_cents), productId: line.product_id }]);
    const periods = await trx
      .selectFrom('invoices')
      .select(['id', 'service_period_start'])
      .where('company_id', '=', companyId)
      .where(sql<boolean>`id = any(${invoiceIds}::text[])`)
      .execute();
    const periodOf = new Map(periods.map((row) => [row.id, row.service_period_start]));
    for (const [invoiceId, entry] of invoiceOps) {
      const ops = appliedOrder(entry.ops);
      facts.invoices.push({
        invoiceId,
        customerId: entry.customerId,
        grossCents: entry.grossCents,
        servicePeriodStart: periodOf.get(invoiceId) ?? (ops[0] as InvoiceOp).paidOn,
        lines: invoiceLines.get(invoiceId) ?? [],
        ops,
      });
    }
  }
  return facts;
}

/**
 * An invoice's payments and reversals in the order they were applied to its amount paid:
 * each one starts where the one before ended (a payment from `before` up, a reversal from
 * `before` down). The order of writing (seq) decides between ops starting at the same level
 * and where the chain breaks; it alone is not enough, since one bank import writes its
 * payments before its reversals whatever the order of the file (a debit of a payment and
 * the payment made again in one statement).
 */
export function appliedOrder(ops: readonly (InvoiceOp & { seq: bigint })[]): InvoiceOp[] {
  const left = [...ops].sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
  const out: InvoiceOp[] = [];
  let level = 0n;
  while (left.length > 0) {
    const index = Math.max(
      0,
      left.findIndex((op) => op.beforeCents === level),
    );
    const [{ seq: _seq, ...op }] = left.splice(index, 1) as [InvoiceOp & { seq: bigint }];
    out.push(op);
    level = op.reversal ? op.beforeCents - op.amountCents : op.beforeCents + op.amountCents;
  }
  return out;
}
