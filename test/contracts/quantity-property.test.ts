import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ContractPause, ContractStatus } from '../../src/db/schema-contracts.ts';
import { type PlanContract, type PlanItem, planBilling } from '../../src/modules/contracts/billing-plan.ts';
import { creditsAfter, itemsAfter } from '../../src/modules/contracts/billing-state.ts';
import { cycleContaining, daysBetween } from '../../src/modules/contracts/calendar.ts';
import { applyCredits, type OpenCredit } from '../../src/modules/contracts/contract-credit.ts';
import { pausedOn, pausesAfter } from '../../src/modules/contracts/contract-pauses.ts';
import type { ContractItemRow, ContractRow } from '../../src/modules/contracts/contracts.repository.ts';
import { billedSoFar } from '../../src/modules/contracts/item-terms.ts';
import { quantityHistory, quantityOn, sameQuantity, withQuantityChange } from '../../src/modules/contracts/quantity-timeline.ts';
import { exactLineNet } from '../../src/modules/invoicing/index.ts';
import { priceForQuantity } from '../../src/modules/products/pricing.ts';
import { addDays } from '../../src/shared/dates.ts';
import { D } from '../../src/shared/decimal.ts';
import { mulberry32 } from '../helpers/random.ts';

// Issue 24, point 2, as a property: whatever the order of quantity changes, pauses,
// resumes, items ended (also inside days billed) or added, and billings — a change before or
// after the day's run, several in one cycle, a pause over a billing date, a cancellation,
// items at 19 % and 7 % — a contract bills in the end what its days were worth: Σ over the days of price(quantity that day) ÷ days of that day's cycle (0 on
// a paused day). What was billed is the invoices' lines less the credit still open; each
// line is rounded once, so the two differ by at most half a cent per line. No invoice ever
// goes below zero at any VAT rate, and every credit line is quantity −1 at a positive price.
//
// The state is moved on exactly as upsert-contract.ts and bill-contract.ts do it, through
// the same pure functions (withQuantityChange, pausesAfter, billedSoFar; planBilling,
// applyCredits, itemsAfter, creditsAfter). A failure prints its seed.

type Contract = PlanContract & { status: ContractStatus; next_billing_date: string | null; last_billing_date: string | null };

function scenario(seed: number) {
  const random = mulberry32(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const interval = pick(['month', 'month', 'quarter'] as const);
  const start = pick(['2026-01-01', '2026-01-31', '2026-02-15']);
  let contract: Contract = {
    start_date: start,
    billing_starts_on: null,
    end_date: null,
    billing_interval: interval,
    usage_open_from: start,
    pauses: [],
    status: 'active',
    next_billing_date: start,
    last_billing_date: null,
  };
  const newItem = (position: number, startsOn: string): PlanItem => ({
    ref: `i-${position}`,
    position,
    description: `Position ${position}`,
    quantity: pick(['1', '2', '3']),
    unit: null,
    billing_timing: pick(['advance', 'advance', 'arrears'] as const),
    unit_price_net: pick(['10.00', '29.99', '65.20', '100.00']),
    vat_rate: pick([19, 19, 7] as const),
    pricing_model: 'flat',
    included_quantity: null,
    overage_price: null,
    tiers: null,
    starts_on: startsOn,
    ends_after: null,
    billed_until: null,
    quantities: null,
    billed_quantities: null,
  });
  let items: PlanItem[] = [newItem(1, start), newItem(2, start)];
  let open: OpenCredit[] = [];
  let billedCents = 0;
  let lineCount = 0;
  const problems: string[] = [];

  /** What the upsert does to the items of a running contract before a change: record the days billed so far. */
  const recordBilled = () => {
    items = items.map((item) => ({ ...item, billed_quantities: billedSoFar(contract as unknown as ContractRow, item as unknown as ContractItemRow) }));
  };
  const bill = (day: string) => {
    const plan = planBilling(contract, items, new Map(), day);
    const settled = applyCredits(plan.lines, open);
    lineCount += plan.lines.length;
    const perRate = new Map<number, number>();
    for (const line of settled.lines) perRate.set(line.vatRate, (perRate.get(line.vatRate) ?? 0) + Number(exactLineNet(line)));
    for (const [rate, net] of perRate) if (net < 0) problems.push(`${day}: invoice net ${net} cents at ${rate} %`);
    for (const line of settled.lines)
      if (line.quantity.startsWith('-') && (line.quantity !== '-1' || new D(line.unitPriceNet).lessThanOrEqualTo(0)))
        problems.push(`${day}: credit line ${line.quantity} × ${line.unitPriceNet}`);
    billedCents += [...perRate.values()].reduce((sum, net) => sum + net, 0);
    items = itemsAfter(items, plan);
    open = creditsAfter(open, settled, day);
    contract = {
      ...contract,
      usage_open_from: plan.usageOpenFrom,
      next_billing_date: plan.next,
      last_billing_date: day,
      ...(plan.final ? { status: 'ended' } : {}),
    };
  };
  const change = (day: string) => {
    const roll = random();
    const at = Math.floor(random() * items.length);
    if (roll < 0.06) {
      const quantity = pick(['0', '1', '2', '3', '5', '2.5']);
      recordBilled();
      const item = items[at]!;
      if (!sameQuantity(quantity, item.quantity))
        items[at] = { ...item, quantity, quantities: withQuantityChange(quantityHistory(item), item.starts_on, day, quantity) };
    } else if (roll < 0.09) {
      const to: ContractStatus = contract.status === 'paused' ? 'active' : 'paused';
      recordBilled();
      contract = { ...contract, pauses: pausesAfter(contract.pauses, contract.status, to, day), status: to };
    } else if (roll < 0.105) {
      // An item's end moved: into days billed already (credited), ahead, or taken back.
      recordBilled();
      items[at] = { ...items[at]!, ends_after: random() < 0.3 ? null : addDays(day, Math.floor(random() * 40) - 10) };
    } else if (roll < 0.115 && items.length < 4) {
      recordBilled();
      items = [...items, newItem(items.length + 1, day > start ? day : start)];
    }
  };

  const ended = () => contract.status === 'ended';
  let day = start;
  const horizon = addDays(start, 200 + Math.floor(random() * 200));
  while (!ended()) {
    const due = contract.next_billing_date !== null && contract.next_billing_date <= day;
    if (random() < 0.5) {
      if (due) bill(day);
      if (!ended() && contract.end_date === null) change(day);
    } else {
      if (contract.end_date === null) change(day);
      if (due) bill(day);
    }
    if (day === horizon && contract.end_date === null) {
      // A cancellation: the contract ends at the end of the cycle billed last (never inside a billed period).
      const billed = [...items.map((item) => item.billed_until), addDays(contract.usage_open_from ?? start, -1), day]
        .filter((d): d is string => d !== null)
        .sort()
        .at(-1)!;
      recordBilled();
      const end = cycleContaining(start, interval, billed).end;
      contract = { ...contract, end_date: end, status: contract.status === 'paused' ? 'paused' : 'cancelled' };
      contract = {
        ...contract,
        next_billing_date: contract.next_billing_date && contract.next_billing_date > end ? addDays(end, 1) : contract.next_billing_date,
      };
    }
    day = addDays(day, 1);
  }

  // What the days were worth: each item, each day it ran, at the quantity of that day by its final history, 0 in a pause.
  let worth = new D(0);
  for (const item of items) {
    const history = quantityHistory(item);
    for (let d = item.starts_on; d <= contract.end_date! && (item.ends_after === null || d <= item.ends_after); d = addDays(d, 1)) {
      if (pausedOn(contract.pauses as ContractPause[], d)) continue;
      const cycle = cycleContaining(start, interval, d);
      worth = worth.plus(new D(priceForQuantity(item, quantityOn(history, d))).dividedBy(daysBetween(cycle.start, cycle.end)));
    }
  }
  const openCents = open.reduce((sum, credit) => sum + credit.openCents, 0);
  const describe = {
    interval,
    start,
    pauses: contract.pauses,
    items: items.map(({ ref, billing_timing, unit_price_net, vat_rate, starts_on, ends_after, quantities }) => ({
      ref,
      billing_timing,
      unit_price_net,
      vat_rate,
      starts_on,
      ends_after,
      quantities,
    })),
  };
  return { worth, billedCents, openCents, lineCount, problems, describe };
}

describe('quantity changes and pauses in any order (property)', () => {
  test('the days are billed at what they were worth, within half a cent per line; no invoice below zero', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const result = scenario(seed);
      const context = `seed ${seed}: ${JSON.stringify(result.describe)}`;
      assert.deepEqual(result.problems, [], context);
      const billed = new D(result.billedCents - result.openCents).dividedBy(100);
      const tolerance = new D(result.lineCount).times('0.005');
      assert.ok(
        billed.minus(result.worth).abs().lessThanOrEqualTo(tolerance),
        `${context}: billed ${billed}, worth ${result.worth.toFixed(4)}, ${result.lineCount} lines`,
      );
    }
  });
});
