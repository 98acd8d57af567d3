import type { CompanyRow } from '../../src/modules/invoicing/build-document.ts';
import { postEvent, putAgreement, putPartner, SELF_BILLING_PARTNER } from '../commissions/helpers.ts';
import type { TestApp } from '../helpers/app.ts';

// The set-up several statement tests share: self-billing partners with 10 % of all the
// company's paid revenue, and one payment of 1,000.00 in October 2026.

/** The agreement `ag-<partner>`: 10 % of the revenue of all customers, from January 2026 on. */
export function putTenPercentOfAll(t: TestApp, partnerRef: string, more: Record<string, unknown> = {}): Promise<string> {
  return putAgreement(t, `ag-${partnerRef}`, {
    partner_ref: partnerRef,
    start_date: '2026-01-01',
    applies_to: 'all_customers',
    tiers: [{ from_month: 1, to_month: null, percent: 10 }],
    ...more,
  });
}

/** Partners `Partner <ref> GmbH` (<ref>@partner.example), each with putTenPercentOfAll, and October's payment; returns the company's row. */
export async function selfBillingPartnersWithOctoberRevenue(t: TestApp, refs: readonly string[]): Promise<CompanyRow> {
  for (const ref of refs) {
    await putPartner(t, ref, { ...SELF_BILLING_PARTNER, name: `Partner ${ref} GmbH`, email: `${ref}@partner.example` });
    await putTenPercentOfAll(t, ref);
  }
  await postEvent(t, { external_ref: 'oct-1', occurred_at: '2026-10-10T10:00:00Z', net_amount: '1000.00' });
  return (await t.handle.db.selectFrom('companies').selectAll().where('id', '=', t.company.companyId).executeTakeFirstOrThrow()) as CompanyRow;
}

/** The id of the partner with this external ref. */
export async function partnerIdOf(t: TestApp, ref: string): Promise<string> {
  return (await t.handle.db.selectFrom('commission_partners').select('id').where('external_ref', '=', ref).executeTakeFirstOrThrow()).id;
}
