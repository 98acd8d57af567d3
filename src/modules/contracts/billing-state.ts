import type { BillingPlan, PlanItem } from './billing-plan.ts';
import type { OpenCredit, SettledLines } from './contract-credit.ts';

// What one billing leaves for the next, as pure functions: the items' days billed, and the
// contract's open credits. The billing run writes the same into the database
// (bill-contract.ts); the app's billings ahead and the property tests chain them.

/** The items after `plan`: the last day billed in advance and the days billed by quantity. */
export function itemsAfter<I extends PlanItem>(items: readonly I[], plan: Pick<BillingPlan, 'billedUntil' | 'billed'>): I[] {
  return items.map((item) => {
    const until = plan.billedUntil.get(item.ref);
    const billed = plan.billed.get(item.ref);
    if (until === undefined && billed === undefined) return item;
    return { ...item, ...(until !== undefined ? { billed_until: until } : {}), ...(billed !== undefined ? { billed_quantities: billed } : {}) };
  });
}

/** The open credits after a billing on `billingDate` that used `settled.uses` and carries `settled.credits`. */
export function creditsAfter(open: readonly OpenCredit[], settled: Pick<SettledLines, 'uses' | 'credits'>, billingDate: string): OpenCredit[] {
  const left = open
    .map((credit) => {
      const used = settled.uses.find((use) => use.billingDate === credit.billingDate && use.position === credit.position)?.amountCents ?? 0;
      return { ...credit, openCents: credit.openCents - used };
    })
    .filter((credit) => credit.openCents > 0);
  const carried = settled.credits.map(({ usedCents, ...credit }) => ({ ...credit, billingDate, openCents: credit.amountCents - usedCents }));
  return [...left, ...carried];
}
