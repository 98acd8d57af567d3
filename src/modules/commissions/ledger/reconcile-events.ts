import type { Trx } from '../../../db/transaction.ts';
import { type LedgerContext, loadLedgerContext } from './ledger-context.ts';
import { factCustomers, factEventIds, loadEventFacts } from './ledger-facts.ts';
import { reconcileEntries } from './reconcile-entries.ts';
import { wantedEntries } from './wanted-entries.ts';
import { type EntryRow, storeNewAnchors } from './write-entries.ts';

// A refund or a reversal touches the entries of one sale or one invoice only (its anchors
// stay, issue 24): the entries of these sales (with all their refunds) and invoices (with
// all their payments and reversals) are computed again and the stored ones corrected. The
// caller holds the customers' ledger locks exclusive (ledger-locks.ts).

export const emptyLedgerContext = (): LedgerContext => ({
  forAllCustomers: [],
  byId: new Map(),
  attributionsOf: new Map(),
  anchors: new Map(),
  newAnchors: new Map(),
});

/** Reconciles the entries of these sales and invoices; returns the entries written. */
export async function reconcileEvents(trx: Trx, companyId: string, saleIds: readonly string[], invoiceIds: readonly string[], now: Date): Promise<EntryRow[]> {
  if (saleIds.length === 0 && invoiceIds.length === 0) return [];
  const facts = await loadEventFacts(trx, companyId, saleIds, invoiceIds);
  const ctx = (await loadLedgerContext(trx, companyId, factCustomers(facts))) ?? emptyLedgerContext();
  const wanted = wantedEntries(ctx, facts);
  await storeNewAnchors(trx, companyId, ctx);
  return reconcileEntries(trx, companyId, wanted, factEventIds(facts), now);
}
