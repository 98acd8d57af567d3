import type { AgreementAppliesTo } from '../../../db/schema-commissions.ts';
import type { Trx } from '../../../db/transaction.ts';
import { customersWithRevenueSince, reconcileCustomers } from './reconcile-customers.ts';

// The ledger follows a change of who earns (issue 24): an attribution made, moved, ended or
// confirmed, an agreement's end moved, an agreement for all customers made with a start in
// the past. Revenue paid before `since` is not touched by the change, so only customers with
// revenue since then are computed again (reconcile-customers.ts), in the change's transaction.

/** An attribution of the customer changed from `since` on. */
export async function ledgerFollowsAttribution(trx: Trx, companyId: string, customerId: string, since: string, now: Date): Promise<void> {
  const customers = await customersWithRevenueSince(trx, companyId, since, [customerId]);
  if (customers.length > 0) await reconcileCustomers(trx, companyId, customers, now);
}

/** An agreement changed from `since` on: its customers (every customer's revenue, for all customers) follow. */
export async function ledgerFollowsAgreement(
  trx: Trx,
  companyId: string,
  agreement: { id: string; applies_to: AgreementAppliesTo },
  since: string,
  now: Date,
): Promise<void> {
  let attributed: string[] | undefined;
  if (agreement.applies_to === 'attributed_customers') {
    const rows = await trx
      .selectFrom('commission_attributions')
      .select('customer_id')
      .distinct()
      .where('company_id', '=', companyId)
      .where('agreement_id', '=', agreement.id)
      .where('status', '=', 'active')
      .execute();
    attributed = rows.map((row) => row.customer_id);
  }
  const customers = await customersWithRevenueSince(trx, companyId, since, attributed);
  if (customers.length > 0) await reconcileCustomers(trx, companyId, customers, now);
}
