import { type Selectable, sql } from 'kysely';
import type { InvoiceOrigin, InvoicesTable } from '../../db/schema-invoicing.ts';
import type { Trx } from '../../db/transaction.ts';
import { type WriteInStatement, withWrites } from '../../db/with-writes.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import type { InvoiceDocument } from './document.ts';
import { changeSeqDraw } from './invoice-changes.ts';
import type { ResolvedLine } from './resolve-lines.ts';
import { invoiceTotals } from './totals.ts';

/** Inserts the invoice (draft or issued) and its lines; returns what the view needs. */
export async function insertInvoice(
  trx: Trx,
  input: {
    companyId: string;
    invoiceId: string;
    customerId: string;
    /** The reference's source (the customer's for the API; none for a contract's invoice). */
    externalSource: string | null;
    body: { external_ref: string | null; service_period: CreateInvoiceBody['service_period'] };
    lines: ResolvedLine[];
    paymentTermsDays: number;
    doc: InvoiceDocument | null;
    contract: { id: string; externalRef: string } | null;
    now: Date;
    /** Written by a person in the app (invisible to the API); default: the API. */
    origin?: InvoiceOrigin;
    /** The app draft's note, printed on the invoice at issue. */
    note?: string | null;
  },
  /**
   * Writes that go into the same statement (the event, a contract's cycle), made from the
   * row as it will be: at issue it runs under the number's row lock, so each is a round trip
   * less there (issue 26). A write may refer to the invoice row by foreign key: checked at
   * the statement's end.
   */
  alongsideOf?: (invoice: PredictedInvoiceRow) => readonly WriteInStatement[],
) {
  const { companyId, invoiceId, doc, lines } = input;
  // A draft's totals use the rates sent; at issue the verdict has confirmed them.
  const totals = invoiceTotals(lines);
  // The invoice and its lines in one statement (a data-modifying WITH): at issue this runs
  // under the number's row lock, which every other issuing transaction of the company waits
  // for, so one round trip less there is more invoices per second (issue 26). The lines'
  // foreign key is checked at the statement's end, when the invoice row exists.
  const lineRows = lines.map((line, i) => ({
    company_id: companyId,
    invoice_id: invoiceId,
    position: i + 1,
    description: line.description,
    quantity: line.quantity,
    unit: line.unit,
    unit_price_net: line.unitPriceNet,
    vat_rate: line.vatRate,
    net_cents: line.netCents,
    product_id: line.productId,
    tax_exemption_reason: line.taxExemptionReason,
    service_period_start: line.servicePeriod?.start ?? null,
    service_period_end: line.servicePeriod?.end ?? null,
  }));
  const values = {
    company_id: companyId,
    id: invoiceId,
    number: doc?.number ?? null,
    status: doc ? 'issued' : 'draft',
    type: 'invoice',
    external_source: input.externalSource,
    external_ref: input.body.external_ref,
    customer_id: input.customerId,
    contract_id: input.contract?.id ?? null,
    contract_external_ref: input.contract?.externalRef ?? null,
    issue_date: doc?.issueDate ?? null,
    due_date: doc?.dueDate ?? null,
    service_period_start: input.body.service_period.start,
    service_period_end: input.body.service_period.end,
    payment_terms_days: input.paymentTermsDays,
    total_net_cents: totals.netCents,
    total_tax_cents: totals.taxCents,
    total_gross_cents: totals.grossCents,
    vat_verdict: doc?.verdict ?? null,
    e_invoice: doc?.eInvoice ?? null,
    document: doc ? JSON.stringify(doc) : null,
    sent_at: null,
    paid_at: null,
    dunning_level: null,
    cancels_invoice_id: null,
    cancelled_by_invoice_id: null,
    // The change feed's next position, drawn in this statement (invoice-changes.ts).
    change_seq: sql<number>`(select seq from change)`,
    changed_at: input.now,
    created_at: input.now,
    origin: input.origin ?? 'api',
    note: input.note ?? null,
  } as const;
  const insertInvoiceRow = trx.insertInto('invoices').values(values).returning(RETURNED);
  // The row as the statement will return it, known before it runs (the columns' defaults
  // of 0002_invoicing.sql for the rest) but for its change-feed position: what the
  // alongside writes (the event invoice.issued) say of the invoice.
  const predicted: PredictedInvoiceRow = {
    id: values.id,
    number: values.number,
    status: values.status,
    type: values.type,
    external_source: values.external_source,
    external_ref: values.external_ref,
    contract_external_ref: values.contract_external_ref,
    total_net_cents: values.total_net_cents,
    total_tax_cents: values.total_tax_cents,
    total_gross_cents: values.total_gross_cents,
    amount_paid_cents: 0,
    currency: 'EUR',
    issue_date: values.issue_date,
    due_date: values.due_date,
    service_period_start: values.service_period_start,
    service_period_end: values.service_period_end,
    sent_at: null,
    paid_at: null,
    overdue: false,
    dunning_level: null,
  };
  const alongside = alongsideOf?.(predicted) ?? [];
  const written = trx
    .with('change', () => changeSeqDraw(trx, companyId))
    .with('written_invoice', () => insertInvoiceRow)
    .with('written_lines', (db) => db.insertInto('invoice_lines').values(lineRows));
  return withWrites(written, alongside, 'alongside').selectFrom('written_invoice').selectAll().executeTakeFirstOrThrow();
}

/** The columns the invoice's statement returns (what the view needs of the row). */
const RETURNED = [
  'id',
  'number',
  'status',
  'type',
  'external_source',
  'external_ref',
  'contract_external_ref',
  'total_net_cents',
  'total_tax_cents',
  'total_gross_cents',
  'amount_paid_cents',
  'currency',
  'issue_date',
  'due_date',
  'service_period_start',
  'service_period_end',
  'sent_at',
  'paid_at',
  'overdue',
  'dunning_level',
  'change_seq',
] as const;

export type PredictedInvoiceRow = Omit<Selectable<InvoicesTable>, Exclude<keyof InvoicesTable, (typeof RETURNED)[number]> | 'change_seq'>;
