import { formatCents } from '../../shared/money.ts';
import type { EntryRow } from './ledger/write-entries.ts';
import type { RevenueEventLineRow, RevenueEventRow } from './revenue-events.repository.ts';

// The revenue event as createRevenueEvent answers it (revenue-events.schemas.ts).

export type RevenueEventView = ReturnType<typeof revenueEventView>;

type ViewLine = Pick<RevenueEventLineRow, 'net_cents' | 'product_id' | 'description'>;
type ViewEntry = Pick<EntryRow, 'id' | 'partner_id' | 'agreement_id' | 'contract_month' | 'percent' | 'basis_cents' | 'amount_cents' | 'status'>;

export function revenueEventView(
  row: Pick<
    RevenueEventRow,
    'id' | 'external_source' | 'external_ref' | 'occurred_at' | 'paid_on' | 'net_cents' | 'customer_id' | 'reverses_id' | 'description' | 'created_at'
  >,
  more: { lines: readonly ViewLine[]; entries: readonly ViewEntry[]; customer: { source: string; external_ref: string } | null; reversesRef: string | null },
) {
  return {
    id: row.id,
    source: row.external_source as string,
    external_ref: row.external_ref as string,
    occurred_at: new Date(row.occurred_at).toISOString(),
    paid_on: row.paid_on,
    net_amount: formatCents(Number(row.net_cents)),
    currency: 'EUR' as const,
    customer: more.customer,
    customer_id: row.customer_id,
    reverses_ref: more.reversesRef,
    reverses_id: row.reverses_id,
    description: row.description,
    lines: more.lines.map((line) => ({ net_amount: formatCents(Number(line.net_cents)), product_id: line.product_id, description: line.description })),
    entries: more.entries.map((entry) => ({
      id: entry.id,
      partner_id: entry.partner_id,
      agreement_id: entry.agreement_id,
      contract_month: entry.contract_month ?? null,
      percent: Number(entry.percent),
      basis_cents: Number(entry.basis_cents),
      amount_cents: Number(entry.amount_cents),
      status: entry.status,
    })),
    created_at: new Date(row.created_at).toISOString(),
  };
}
