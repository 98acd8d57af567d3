import type { SendError } from '../mail/index.ts';
import type { InvoiceViewRow } from './invoices.repository.ts';
import { centsToDecimal } from './totals.ts';

export type { SendError };

const ref = (id: string | null, number: string | null, externalRef: string | null) => (id ? { id, number, external_ref: externalRef } : null);

/** The Invoice as the API shows it (interface §2): exactly these fields, in this order. */
export function invoiceView(row: InvoiceViewRow) {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    type: row.type,
    external_source: row.external_source,
    external_ref: row.external_ref,
    customer_external_ref: row.customer_external_ref,
    contract_external_ref: row.contract_external_ref,
    total_net: centsToDecimal(row.total_net_cents),
    total_tax: centsToDecimal(row.total_tax_cents),
    total_gross: centsToDecimal(row.total_gross_cents),
    amount_paid: centsToDecimal(row.amount_paid_cents),
    currency: row.currency,
    issue_date: row.issue_date,
    due_date: row.due_date,
    service_period: { start: row.service_period_start, end: row.service_period_end },
    sent_at: row.sent_at ? row.sent_at.toISOString() : null,
    paid_at: row.paid_at ? row.paid_at.toISOString() : null,
    overdue: row.overdue,
    dunning_level: row.dunning_level,
    cancels_invoice: ref(row.cancels_id, row.cancels_number, row.cancels_external_ref),
    cancelled_by: ref(row.cancelled_by_id, row.cancelled_by_number, row.cancelled_by_external_ref),
  };
}
export type InvoiceView = ReturnType<typeof invoiceView>;

/** InvoiceCreated: the Invoice plus send_error. */
export function invoiceCreatedView(row: InvoiceViewRow, sendError: SendError | null) {
  return { ...invoiceView(row), send_error: sendError };
}
