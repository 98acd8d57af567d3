import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import { type AttributeResult, attributableAgreement, attributeCustomer, attributionContext } from './attribute-customer.ts';

// upsertCommissionAttribution (interface §2/§4, design §6 "Attribution body"): puts a
// customer under an agreement from start_date until end_date; 201 on create, 200 on
// update or no change. The writing itself is attributeCustomer's (shared with createInvoice).

/** The body as the schema lets it through (attributions.schemas.ts). */
export type AttributionInput = {
  agreement_ref: string;
  customer: { source: string; external_ref: string };
  start_date?: string | null;
  end_date?: string | null;
};

/**
 * Creates (201) or updates (200) an attribution by reference. Refusals in this order, each
 * writing nothing: end before start (both sent) → 422 commission.date_range_invalid before
 * any look-up; unknown agreement in the path's source → 404 commission.agreement_not_found;
 * an agreement for all customers → 422 commission.agreement_takes_no_attributions; unknown
 * customer → 404 customer_not_found; then attributeCustomer's (reference mismatch, end
 * before the start it keeps or defaults, conflict).
 */
export async function upsertCommissionAttribution(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: AttributionInput,
): Promise<AttributeResult> {
  const startDate = input.start_date ?? null;
  const endDate = input.end_date ?? null;
  if (startDate !== null && endDate !== null && endDate < startDate) throw new AppError('commission.date_range_invalid');
  return inTransaction(db, async (trx) => {
    const ctx = await attributionContext(trx, clock, companyId);
    const attributable = await attributableAgreement(trx, companyId, ref.source, input.agreement_ref);
    const customer = await trx
      .selectFrom('customers')
      .select(['id', 'name'])
      .where('company_id', '=', companyId)
      .where('external_source', '=', input.customer.source)
      .where('external_ref', '=', input.customer.external_ref)
      .executeTakeFirst();
    if (!customer) throw new AppError('customer_not_found');
    return attributeCustomer(trx, ctx, { ...attributable, ref, customer, startDate, endDate, source: 'api', sourceRef: null });
  });
}
