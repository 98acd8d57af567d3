import type { InvoiceOrigin } from '../../db/schema-invoicing.ts';
import type { Trx } from '../../db/transaction.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import type { InvoiceDocument } from './document.ts';
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
    changeSeq: number;
    now: Date;
    /** Written by a person in the app (invisible to the API); default: the API. */
    origin?: InvoiceOrigin;
    /** The app draft's note, printed on the invoice at issue. */
    note?: string | null;
  },
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
  const insertInvoiceRow = trx
    .insertInto('invoices')
    .values({
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
      change_seq: input.changeSeq,
      changed_at: input.now,
      created_at: input.now,
      origin: input.origin ?? 'api',
      note: input.note ?? null,
    })
    .returning([
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
    ]);
  const invoice = await trx
    .with('written_invoice', () => insertInvoiceRow)
    .with('written_lines', (db) => db.insertInto('invoice_lines').values(lineRows))
    .selectFrom('written_invoice')
    .selectAll()
    .executeTakeFirstOrThrow();
  return invoice;
}
