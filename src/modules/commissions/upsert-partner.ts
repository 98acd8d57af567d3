import type { Database } from '../../db/connection.ts';
import { CREDITOR_NUMBERS, drawNumberInTransaction } from '../../db/number-ranges.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, RetryTransaction, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { countryAndVatIdIssues, normalizeVatId } from '../../shared/tax-ids.ts';
import { type PartnerView, partnerView } from './partner-view.ts';
import { findPartnerByRef, insertPartner, insertSupplier, type PartnerFields, renameSupplier, updatePartner } from './partners.repository.ts';
import { BILLING_MODES, E_INVOICE_FORMATS, PARTNER_KINDS, TAX_STATUSES } from './partners.schemas.ts';

/** The body as the schema lets it through (partners.schemas.ts); the rest is checked here. */
export type PartnerInput = {
  name?: string | null;
  email?: string | null;
  kind?: string | null;
  tax_status?: string | null;
  billing_mode?: string | null;
  self_billing_agreed_on?: string | null;
  self_billing_contract_ref?: string | null;
  statement_cadence?: PartnerFields['statement_cadence'] | null;
  min_payout_cents?: number | null;
  payout_rail?: PartnerFields['payout_rail'] | null;
  e_invoice_format?: string | null;
  language?: PartnerFields['language'] | null;
  notes?: string | null;
  street?: string | null;
  house_number?: string | null;
  zip?: string | null;
  city?: string | null;
  country_code?: string | null;
  vat_id?: string | null;
  tax_number?: string | null;
};

function oneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/**
 * PUT semantics: the partner becomes what is sent, omitted or null fields take their
 * default. The commission.* refusals come first, in the order of interface §7's partner
 * rows as design §3 names them; then what remains of validation_failed.
 */
export function partnerFields(input: PartnerInput): PartnerFields {
  const name = input.name?.trim() ?? '';
  if (!name) throw new AppError('commission.partner_name_missing');
  const kind = input.kind ?? 'other';
  if (!oneOf(PARTNER_KINDS, kind)) throw new AppError('commission.partner_kind_invalid');
  const taxStatus = input.tax_status ?? 'domestic_regular';
  if (!oneOf(TAX_STATUSES, taxStatus)) throw new AppError('commission.tax_status_invalid');
  const billingMode = input.billing_mode ?? 'self_billing';
  if (!oneOf(BILLING_MODES, billingMode)) throw new AppError('commission.billing_mode_invalid');
  const eInvoiceFormat = input.e_invoice_format ?? 'auto';
  if (!oneOf(E_INVOICE_FORMATS, eInvoiceFormat)) throw new AppError('commission.e_invoice_format_invalid');
  const minPayout = input.min_payout_cents ?? 0;
  if (!Number.isInteger(minPayout) || minPayout < 0) throw new AppError('commission.min_payout_invalid');

  const vatId = input.vat_id ? normalizeVatId(input.vat_id) : null;
  const fields: PartnerFields = {
    name,
    email: input.email ?? null,
    kind,
    tax_status: taxStatus,
    billing_mode: billingMode,
    self_billing_agreed_on: input.self_billing_agreed_on ?? null,
    self_billing_contract_ref: input.self_billing_contract_ref ?? null,
    statement_cadence: input.statement_cadence ?? 'month',
    // -0 is stored as 0.
    min_payout_cents: minPayout || 0,
    payout_rail: input.payout_rail ?? 'sepa_credit_transfer',
    e_invoice_format: eInvoiceFormat,
    language: input.language ?? 'de',
    notes: input.notes ?? null,
    street: input.street ?? null,
    house_number: input.house_number ?? null,
    zip: input.zip ?? null,
    city: input.city ?? null,
    country_code: input.country_code ?? null,
    vat_id: vatId || null,
    tax_number: input.tax_number ?? null,
  };
  const issues = countryAndVatIdIssues(fields, 'partner');
  if (issues.length > 0) throw validationFailed(issues);
  return fields;
}

/**
 * Creates or updates a revenue-share partner by reference (200 either way, interface §4).
 * A new partner draws the next creditor number and gets its supplier in the same
 * transaction, so a refusal or a lost race leaves no number used and nothing written.
 */
export async function upsertCommissionPartner(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: PartnerInput,
): Promise<PartnerView> {
  const fields = partnerFields(input);
  return inTransaction(db, async (trx) => {
    const existing = await findPartnerByRef(trx, companyId, ref.source, ref.externalRef, true);
    if (existing) {
      if (existing.status === 'archived') throw new AppError('commission.partner_archived');
      const unchanged = (Object.keys(fields) as (keyof PartnerFields)[]).every((key) => existing[key] === fields[key]);
      if (unchanged) return partnerView(existing);
      const updated = await updatePartner(trx, companyId, existing.id, fields, clock.now());
      if (updated.name !== existing.name) await renameSupplier(trx, companyId, existing.supplier_id, updated.name);
      return partnerView(updated);
    }
    const kreditorennummer = await drawNumberInTransaction(trx, companyId, CREDITOR_NUMBERS);
    if (kreditorennummer === null) throw new AppError('commission.creditor_number_range_exhausted');
    const now = clock.now();
    const supplierId = newId('sup');
    await insertSupplier(trx, { company_id: companyId, id: supplierId, name: fields.name, kreditorennummer, created_at: now });
    const inserted = await insertPartner(trx, {
      company_id: companyId,
      id: newId('cpt'),
      external_source: ref.source,
      external_ref: ref.externalRef,
      ...fields,
      self_billing_objected_at: null,
      supplier_id: supplierId,
      kreditorennummer,
      created_at: now,
      updated_at: now,
    });
    // A concurrent request created this reference first: run again (its number and
    // supplier roll back), now finding the partner.
    if (!inserted) throw new RetryTransaction();
    return partnerView(inserted);
  });
}
