import type { AgreementRow } from './agreements.repository.ts';

/**
 * The CommissionAgreement as the API shows it (interface §2), fields in the interface's
 * order. `today` is the company's calendar day: an agreement whose end_date lies before it
 * has ended (the end_date itself is its last day). Percents are stored as exact decimal
 * text and shown as JSON numbers (interface: CommissionTier.percent is a number).
 */
export function agreementView(row: AgreementRow, context: { partnerName: string | null; productIds: string[]; today: string }) {
  return {
    id: row.id,
    partner_id: row.partner_id,
    partner_name: context.partnerName,
    condition_id: row.condition_id,
    name: row.name,
    start_date: row.start_date,
    end_date: row.end_date,
    accrue_from: row.accrue_from,
    contract_reference: row.contract_reference,
    status: row.end_date !== null && row.end_date < context.today ? ('ended' as const) : ('active' as const),
    external_source: row.external_source,
    external_ref: row.external_ref,
    applies_to: row.applies_to,
    product_ids: [...context.productIds].sort(),
    tiers: row.tiers.map((tier) => ({ from_month: tier.from_month, to_month: tier.to_month, percent: Number(tier.percent) })),
    anchor: row.anchor,
    basis: row.basis,
  };
}
export type AgreementView = ReturnType<typeof agreementView>;
