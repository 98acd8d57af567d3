import type { AttributionSource } from '../../db/schema-commissions.ts';
import type { Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError, RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { AgreementRow } from './agreements.repository.ts';
import { findAgreementByRef } from './agreements.repository.ts';
import { type AttributionView, attributionView } from './attribution-view.ts';
import {
  type AttributionChangeable,
  type AttributionRow,
  findAttributionByRef,
  findOverlappingAttributions,
  insertAttribution,
  lockCustomer,
  updateAttribution,
} from './attributions.repository.ts';
import { ledgerFollowsAttribution } from './ledger/ledger-follows.ts';

// Putting a customer under an agreement (interface §2 Attribution, design §6): the one
// writer of attributions, used by upsertCommissionAttribution (PUT by reference) and by
// createInvoice's `attribution` (attribute-invoice-customer.ts), inside the caller's
// transaction so that a refusal writes nothing.

/** What every attribution write needs to know about the company, read once per transaction. */
export type AttributionContext = { companyId: string; today: string; now: Date; needsConfirmation: boolean };

export async function attributionContext(trx: Trx, clock: Clock, companyId: string): Promise<AttributionContext> {
  const company = await trx
    .selectFrom('companies')
    .select(['timezone', 'attributions_need_confirmation'])
    .where('id', '=', companyId)
    .executeTakeFirstOrThrow();
  return { companyId, today: clock.today(company.timezone), now: clock.now(), needsConfirmation: company.attributions_need_confirmation };
}

export type AttributableAgreement = { agreement: AgreementRow; partnerName: string };

/**
 * The agreement with this reference in `source`, when it takes attributions: unknown (or,
 * with `partnerRef`, one of another partner) → 404 commission.agreement_not_found; one for
 * all customers → 422 commission.agreement_takes_no_attributions.
 */
export async function attributableAgreement(
  trx: Trx,
  companyId: string,
  source: string,
  agreementRef: string,
  partnerRef?: string,
): Promise<AttributableAgreement> {
  const agreement = await findAgreementByRef(trx, companyId, source, agreementRef);
  if (!agreement) throw new AppError('commission.agreement_not_found');
  const partner = await trx
    .selectFrom('commission_partners')
    .select(['name', 'external_source', 'external_ref'])
    .where('company_id', '=', companyId)
    .where('id', '=', agreement.partner_id)
    .executeTakeFirstOrThrow();
  if (partnerRef !== undefined && (partner.external_source !== source || partner.external_ref !== partnerRef)) {
    throw new AppError('commission.agreement_not_found', {}, 'No agreement with this reference for this partner.');
  }
  if (agreement.applies_to === 'all_customers') throw new AppError('commission.agreement_takes_no_attributions');
  return { agreement, partnerName: partner.name };
}

export type AttributeRequest = AttributableAgreement & {
  /** The attribution's own reference. */
  ref: { source: string; externalRef: string };
  customer: { id: string; name: string };
  /** null: the stored start on update, the company's today on create. */
  startDate: string | null;
  /** null: open-ended. */
  endDate: string | null;
  source: Exclude<AttributionSource, 'app'>;
  sourceRef: string | null;
};

export type AttributeResult = { created: boolean; attribution: AttributionView };

/**
 * Creates the attribution (active, or proposed when the company has a person confirm
 * attributions) or updates its dates; its status stays (a rejected one stays rejected).
 * Refusals, after the caller's own: the reference held by another customer or agreement →
 * 409 commission.attribution_reference_mismatch; end before start → 422
 * commission.date_range_invalid; another partner's active attribution of the customer
 * overlapping [start, end] → 409 commission.attribution_conflict with conflicts_with_id.
 * Another partner's overlapping proposed attribution only marks a proposed one
 * (conflicts_with_id); the same partner under another agreement is no conflict.
 */
export async function attributeCustomer(trx: Trx, ctx: AttributionContext, request: AttributeRequest): Promise<AttributeResult> {
  const { agreement, customer, ref } = request;
  // Writes for one customer run one after the other from here (see lockCustomer).
  await lockCustomer(trx, ctx.companyId, customer.id);
  const existing = await findAttributionByRef(trx, ctx.companyId, ref.source, ref.externalRef);
  if (existing && (existing.customer_id !== customer.id || existing.agreement_id !== agreement.id)) {
    throw new AppError('commission.attribution_reference_mismatch');
  }
  const start = request.startDate ?? existing?.start_date ?? ctx.today;
  const end = request.endDate;
  if (end !== null && end < start) throw new AppError('commission.date_range_invalid');
  const status = existing?.status ?? (ctx.needsConfirmation ? 'proposed' : 'active');

  // A rejected attribution holds nothing, so nothing can conflict with it.
  let conflictsWith = existing?.conflicts_with_id ?? null;
  if (status !== 'rejected') {
    const overlapping = await findOverlappingAttributions(trx, ctx.companyId, {
      customerId: customer.id,
      partnerId: agreement.partner_id,
      excludeId: existing?.id ?? null,
      start,
      end,
    });
    const holder = overlapping.find((other) => other.status === 'active');
    if (holder) {
      throw new AppError(
        'commission.attribution_conflict',
        { conflicts_with_id: holder.id },
        `Another partner holds this customer in an overlapping period (attribution ${holder.id}); end that attribution first.`,
      );
    }
    if (status === 'proposed') conflictsWith = overlapping[0]?.id ?? null;
  }

  const view = (row: AttributionRow) =>
    attributionView({ row, agreementName: agreement.name, partnerName: request.partnerName, customerName: customer.name }, ctx.today);
  if (existing) {
    const fields: AttributionChangeable = { start_date: start, end_date: end, conflicts_with_id: conflictsWith };
    const unchanged = (Object.keys(fields) as (keyof AttributionChangeable)[]).every((key) => existing[key] === fields[key]);
    if (unchanged) return { created: false, attribution: view(existing) };
    const updated = await updateAttribution(trx, ctx.companyId, existing.id, fields, ctx.now);
    // An active attribution's period moved: the customer's revenue since the earlier start follows (issue 24).
    if (status === 'active' && (existing.start_date !== start || existing.end_date !== end)) {
      await ledgerFollowsAttribution(trx, ctx.companyId, customer.id, existing.start_date < start ? existing.start_date : start, ctx.now);
    }
    return { created: false, attribution: view(updated) };
  }

  const inserted = await insertAttribution(trx, {
    company_id: ctx.companyId,
    id: newId('cat'),
    agreement_id: agreement.id,
    partner_id: agreement.partner_id,
    customer_id: customer.id,
    start_date: start,
    end_date: end,
    status,
    source: request.source,
    source_ref: request.sourceRef,
    conflicts_with_id: conflictsWith,
    confirmed_at: status === 'active' ? ctx.now : null,
    external_source: ref.source,
    external_ref: ref.externalRef,
    created_at: ctx.now,
    updated_at: ctx.now,
  });
  // A concurrent request created this reference first: run again, now as an update.
  if (!inserted) throw new RetryTransaction();
  // Active from a start in the past: the customer's revenue since earns (issue 24).
  if (status === 'active') await ledgerFollowsAttribution(trx, ctx.companyId, customer.id, start, ctx.now);
  return { created: true, attribution: view(inserted) };
}
