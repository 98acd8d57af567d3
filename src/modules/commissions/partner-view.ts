import type { PartnerRow } from './partners.repository.ts';

const instant = (value: Date | null) => (value ? value.toISOString() : null);

/** The CommissionPartner as the API shows it (interface §2), fields in the interface's order. */
export function partnerView(row: PartnerRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    kind: row.kind,
    tax_status: row.tax_status,
    billing_mode: row.billing_mode,
    self_billing_agreed_on: row.self_billing_agreed_on,
    self_billing_contract_ref: row.self_billing_contract_ref,
    self_billing_objected_at: instant(row.self_billing_objected_at),
    statement_cadence: row.statement_cadence,
    min_payout_cents: row.min_payout_cents,
    payout_rail: row.payout_rail,
    e_invoice_format: row.e_invoice_format,
    has_payee_account: row.iban_sealed !== null,
    iban_masked: row.iban_masked,
    bic: row.bic,
    payee_changed_at: instant(row.payee_changed_at),
    language: row.language,
    status: row.status,
    notes: row.notes,
    supplier_id: row.supplier_id,
    kreditorennummer: String(row.kreditorennummer),
    street: row.street,
    house_number: row.house_number,
    zip: row.zip,
    city: row.city,
    country_code: row.country_code,
    vat_id: row.vat_id,
    tax_number: row.tax_number,
    external_source: row.external_source,
    external_ref: row.external_ref,
    // Kept on the partner by the ledger, never summed here.
    balance: { open: row.balance_open_cents, statemented: row.balance_statemented_cents, paid: row.balance_paid_cents },
    created_at: row.created_at.toISOString(),
  };
}
export type PartnerView = ReturnType<typeof partnerView>;
