import type { Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { attributableAgreement, attributeCustomer, attributionContext } from './attribute-customer.ts';
import type { AttributionView } from './attribution-view.ts';
import { hasAttributionOn, lockCustomer } from './attributions.repository.ts';

// createInvoice's `attribution` {partner_ref, agreement_ref} (interface §4 rule 4), run by
// invoicing inside the invoice's transaction: a refusal creates no invoice and leaves the
// idempotency key unused.

export type InvoiceAttribution = {
  /** The invoice's customer; partner_ref and agreement_ref are in its source (design §3). */
  customer: { id: string; name: string; source: string };
  partnerRef: string;
  agreementRef: string;
  /** The invoice's external_ref: the new attribution's reference and source_ref. */
  invoiceRef: string;
};

/**
 * Attributes the invoice's customer to the partner under the agreement from the company's
 * today on, open-ended, as upsertCommissionAttribution would (source `invoice`), unless the
 * customer already has an attribution under this agreement that is active or proposed
 * today: then nothing is written and the answer is null. Refusals: unknown agreement, or
 * one of another partner → 404 commission.agreement_not_found; for all customers → 422
 * commission.agreement_takes_no_attributions; then those of attributeCustomer.
 */
export async function attributeInvoiceCustomer(trx: Trx, clock: Clock, companyId: string, input: InvoiceAttribution): Promise<AttributionView | null> {
  const ctx = await attributionContext(trx, clock, companyId);
  const { customer } = input;
  const attributable = await attributableAgreement(trx, companyId, customer.source, input.agreementRef, input.partnerRef);
  // Before the look-up: two invoices of one customer at once make one attribution.
  await lockCustomer(trx, companyId, customer.id);
  if (await hasAttributionOn(trx, companyId, { customerId: customer.id, agreementId: attributable.agreement.id, day: ctx.today })) return null;
  const result = await attributeCustomer(trx, ctx, {
    ...attributable,
    ref: { source: customer.source, externalRef: input.invoiceRef },
    customer: { id: customer.id, name: customer.name },
    startDate: ctx.today,
    endDate: null,
    source: 'invoice',
    sourceRef: input.invoiceRef,
  });
  return result.attribution;
}
