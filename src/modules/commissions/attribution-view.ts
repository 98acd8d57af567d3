import type { NamedAttribution } from './attributions.repository.ts';

/**
 * The CommissionAttribution as the API and `kontor admin attribution … --json` show it
 * (interface §2), fields in the interface's order. `today` is the company's calendar day:
 * an active attribution whose end_date lies before it has ended (the end_date itself is its
 * last day). Proposed and rejected ones show as stored.
 */
export function attributionView({ row, agreementName, partnerName, customerName }: NamedAttribution, today: string) {
  const ended = row.status === 'active' && row.end_date !== null && row.end_date < today;
  return {
    id: row.id,
    agreement_id: row.agreement_id,
    agreement_name: agreementName,
    partner_id: row.partner_id,
    partner_name: partnerName,
    customer_id: row.customer_id,
    customer_name: customerName,
    start_date: row.start_date,
    end_date: row.end_date,
    status: ended ? ('ended' as const) : row.status,
    source: row.source,
    source_ref: row.source_ref,
    conflicts_with_id: row.conflicts_with_id,
    confirmed_at: row.confirmed_at ? row.confirmed_at.toISOString() : null,
    external_ref: row.external_ref,
  };
}
export type AttributionView = ReturnType<typeof attributionView>;
