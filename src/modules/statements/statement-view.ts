import type { Selectable } from 'kysely';
import type { CommissionStatementsTable } from '../../db/schema-commissions.ts';

// The statement as the API shows it (interface §2 CommissionStatement).

export type StatementRow = Selectable<CommissionStatementsTable>;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The partner's own invoice of a request to invoice, as the API shows it (issue 27 §4). */
export type PartnerInvoiceView = {
  status: 'missing' | 'refused' | 'accepted';
  number: string | null;
  invoice_date: string | null;
  net_cents: number | null;
  vat_cents: number | null;
  gross_cents: number | null;
  via: 'app' | 'portal' | null;
  received_at: string | null;
  reasons: string[];
};

export function statementView(
  row: StatementRow,
  more: { partnerName: string | null; hasPdf: boolean; hasXml: boolean; partnerInvoice?: PartnerInvoiceView | null },
) {
  return {
    id: row.id,
    partner_id: row.partner_id,
    partner_name: more.partnerName,
    kind: row.kind,
    status: row.status,
    number: row.number,
    issue_date: row.issue_date,
    period_end: row.period_end,
    net_cents: Number(row.net_cents),
    vat_cents: Number(row.vat_cents),
    gross_cents: Number(row.gross_cents),
    vat_rate: Number(row.vat_rate),
    tax_note: row.tax_note,
    lines: row.lines.map((line) => ({
      position: line.position,
      description: line.description,
      agreement_id: line.agreement_id,
      customer_id: line.customer_id,
      customer_name: line.customer_name,
      contract_month: line.contract_month,
      percent: Number(line.percent),
      basis_cents: line.basis_cents,
      amount_cents: line.amount_cents,
      entry_count: line.entry_count,
      period_start: line.period_start,
      period_end: line.period_end,
    })),
    has_pdf: more.hasPdf,
    has_xml: more.hasXml,
    e_invoice_format: row.e_invoice_format,
    // The booking's document reference: the statement itself once it is numbered.
    document_id: row.number === null ? null : row.id,
    cancels_statement_id: row.cancels_statement_id,
    cancelled_by_id: row.cancelled_by_id,
    objected_at: iso(row.objected_at),
    sent_at: iso(row.sent_at),
    paid_at: iso(row.paid_at),
    sent_to: row.sent_to,
    partner_invoice: more.partnerInvoice ?? null,
  };
}

export type StatementView = ReturnType<typeof statementView>;
