import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';
import { anchorKey, type LedgerContext, loadLedgerContext } from './ledger-context.ts';
import { factEventIds, loadCustomerFacts } from './ledger-facts.ts';
import { lockLedgers } from './ledger-locks.ts';
import { reconcileEntries } from './reconcile-entries.ts';
import { emptyLedgerContext } from './reconcile-events.ts';
import { wantedEntries } from './wanted-entries.ts';
import type { EntryRow } from './write-entries.ts';

// A late fact (issue 24): revenue paid before a customer's anchor, an attribution made,
// changed or confirmed with dates in the past, an agreement's end moved, an agreement for
// all customers made with a start in the past. The customer's whole ledger is computed
// again from all its facts in paid-day order — anchors first, then every entry — and the
// stored entries are corrected to it (reconcile-entries.ts). Only the customers the fact
// touches, never the whole company; under the customers' exclusive ledger locks.

const CUSTOMERS_PER_ROUND = 200;

/** Computes the ledgers of these customers (null: revenue without a customer) again; returns the entries written. */
export async function reconcileCustomers(trx: Trx, companyId: string, customerIds: Iterable<string | null>, now: Date): Promise<EntryRow[]> {
  const all = [...new Set(customerIds)].sort((a, b) => ((a ?? '') < (b ?? '') ? -1 : 1));
  const written: EntryRow[] = [];
  for (let start = 0; start < all.length; start += CUSTOMERS_PER_ROUND) {
    const customers = all.slice(start, start + CUSTOMERS_PER_ROUND);
    await lockLedgers(
      trx,
      companyId,
      customers.map((id) => [id, 'exclusive']),
    );
    const ctx = (await loadLedgerContext(trx, companyId, new Set(customers))) ?? emptyLedgerContext();
    const stored = new Map(ctx.anchors);
    // The anchors follow from the facts: computed again, in paid-day order.
    ctx.anchors.clear();
    const facts = await loadCustomerFacts(trx, companyId, customers);
    const wanted = wantedEntries(ctx, facts);
    await syncAnchors(trx, companyId, stored, ctx);
    written.push(...(await reconcileEntries(trx, companyId, wanted, factEventIds(facts), now)));
  }
  return written;
}

/** The customers (null: none) with revenue paid on or after `day`, among `customerIds` (all when omitted). */
export async function customersWithRevenueSince(trx: Trx, companyId: string, day: string, customerIds?: readonly string[]): Promise<(string | null)[]> {
  if (customerIds && customerIds.length === 0) return [];
  let query = trx.selectFrom('revenue_events').select('customer_id').distinct().where('company_id', '=', companyId).where('paid_on', '>=', day);
  if (customerIds) query = query.where(sql<boolean>`customer_id = any(${customerIds}::text[])`);
  return (await query.execute()).map((row) => row.customer_id);
}

/** Makes the stored anchors of the context's customers what the computation set. */
async function syncAnchors(trx: Trx, companyId: string, stored: ReadonlyMap<string, string>, ctx: LedgerContext): Promise<void> {
  const computed = new Map([...ctx.newAnchors].map(([key, a]) => [key, a]));
  ctx.newAnchors.clear();
  const gone = [...stored.keys()].filter((key) => !computed.has(key));
  if (gone.length > 0) {
    const split = gone.map((key) => key.split('\n') as [string, string]);
    await sql`
      delete from commission_anchors
      where company_id = ${companyId}
        and (agreement_id, customer_key) in (select * from unnest(${split.map(([a]) => a)}::text[], ${split.map(([, c]) => c)}::text[]))`.execute(trx);
  }
  const changed = [...computed.values()].filter((a) => stored.get(anchorKey(a.agreementId, a.customerKey)) !== a.anchorDate);
  if (changed.length > 0) {
    await sql`
      insert into commission_anchors (company_id, agreement_id, customer_key, anchor_date)
      select ${companyId}, * from unnest(${changed.map((a) => a.agreementId)}::text[], ${changed.map((a) => a.customerKey)}::text[], ${changed.map((a) => a.anchorDate)}::date[])
      on conflict (company_id, agreement_id, customer_key) do update set anchor_date = excluded.anchor_date`.execute(trx);
  }
}
