import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { ContractPause, ContractStatus, CycleStatus } from '../../db/schema-contracts.ts';
import { D } from '../../shared/decimal.ts';
import { formatCents } from '../../shared/money.ts';
import { exactLineNet } from '../invoicing/index.ts';
import { priceForQuantity } from '../products/pricing.ts';
import { arrearsPeriod, billsUsage, type PlanItem, planBilling } from './billing-plan.ts';
import { creditsAfter, itemsAfter } from './billing-state.ts';
import { applyCredits, type OpenCredit } from './contract-credit.ts';
import {
  type ContractCreditRecord,
  type ContractItemRow,
  type ContractRow,
  findContractCredits,
  findContractItemsWithProduct,
} from './contracts.repository.ts';

// Read-only views of a company's contracts for the back-office app and `kontor admin
// contract show` (issue 15): the list, paged by contract number, with a cheap amount per
// cycle; one contract's terms, its billed cycles, the billings ahead (planned with the same
// pure function the billing run uses, so what is shown is what will be billed as things
// stand), the usage reported for the period still open, and its credits (issue 24).

export const CONTRACT_ID = /^ctr_[0-9a-z]{26}$/;
export const CONTRACT_STATUSES: readonly ContractStatus[] = ['draft', 'active', 'paused', 'cancelled', 'ended'];
/** The statuses the billing run bills (billing-run.ts). */
const BILLED_STATUSES: readonly ContractStatus[] = ['active', 'paused', 'cancelled'];

export type ContractListQuery = {
  q: string;
  status: ContractStatus | null;
  /** The contract number the page starts after (or ends before). */
  after: string | null;
  before: string | null;
  limit: number;
};

export type ListedContract = {
  id: string;
  number: string;
  name: string;
  status: ContractStatus;
  billing_interval: string;
  next_billing_date: string | null;
  customer_id: string;
  customer_name: string;
  /** Net per full cycle of the items billed by quantity and running today (decimal); null when it cannot be said. */
  cycle_net: string | null;
  /** Some running item is billed by its usage: the cycle's amount adds that. */
  plus_usage: boolean;
};

const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of contracts ordered by number (the company's unique index), paged by key. */
export async function listContracts(
  db: Database,
  companyId: string,
  today: string,
  query: ContractListQuery,
): Promise<{ rows: ListedContract[]; hasPrevious: boolean; hasNext: boolean }> {
  const backwards = query.before !== null;
  let builder = db
    .selectFrom('contracts as k')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'k.company_id').onRef('c.id', '=', 'k.customer_id'))
    .select(['k.id', 'k.number', 'k.name', 'k.status', 'k.billing_interval', 'k.next_billing_date', 'k.customer_id', 'c.name as customer_name'])
    .where('k.company_id', '=', companyId);
  if (query.q) {
    const like = escapeLike(query.q);
    // The customers by name first (trigram index), then their contracts or those by number.
    const customers = await db.selectFrom('customers').select('id').where('company_id', '=', companyId).where('name', 'ilike', like).limit(10_001).execute();
    const ids = customers.map((c) => c.id);
    builder = builder.where((eb) => {
      if (ids.length === 0) return eb.or([eb('k.number', 'ilike', like), eb('k.name', 'ilike', like)]);
      if (ids.length > 10_000) return eb.or([eb('k.number', 'ilike', like), eb('k.name', 'ilike', like), eb('c.name', 'ilike', like)]);
      return eb.or([eb('k.number', 'ilike', like), eb('k.name', 'ilike', like), eb('k.customer_id', '=', sql<string>`any(${ids}::text[])`)]);
    });
  }
  if (query.status) builder = builder.where('k.status', '=', query.status);
  const cursor = query.after ?? query.before;
  if (cursor !== null) builder = builder.where('k.number', backwards ? '<' : '>', cursor);
  const found = await builder
    .orderBy('k.number', backwards ? 'desc' : 'asc')
    .limit(query.limit + 1)
    .execute();
  const more = found.length > query.limit;
  const rows = found.slice(0, query.limit);
  if (backwards) rows.reverse();
  const amounts = await cycleAmounts(
    db,
    companyId,
    rows.map((r) => r.id),
    today,
  );
  return {
    rows: rows.map((row) => ({ ...row, ...(amounts.get(row.id) ?? { cycle_net: null, plus_usage: false }) })),
    hasPrevious: backwards ? more : query.after !== null,
    hasNext: backwards ? true : more,
  };
}

/** Per contract: the net of a full cycle of its running quantity-billed items, and whether usage adds to it. One query. */
async function cycleAmounts(db: Database, companyId: string, contractIds: readonly string[], today: string) {
  const result = new Map<string, { cycle_net: string | null; plus_usage: boolean }>();
  if (contractIds.length === 0) return result;
  const items = await db
    .selectFrom('contract_items')
    .select(['contract_id', 'quantity', 'billing_timing', 'unit_price_net', 'pricing_model', 'included_quantity', 'overage_price', 'tiers', 'ends_after'])
    .where('company_id', '=', companyId)
    .where('contract_id', '=', sql<string>`any(${[...contractIds]}::text[])`)
    .execute();
  for (const item of items) {
    const entry = result.get(item.contract_id) ?? { cycle_net: '0.00', plus_usage: false };
    result.set(item.contract_id, entry);
    if (item.ends_after !== null && item.ends_after < today) continue;
    if (billsUsage(item)) {
      entry.plus_usage = true;
      continue;
    }
    try {
      if (entry.cycle_net !== null) entry.cycle_net = new D(entry.cycle_net).plus(priceForQuantity(item, item.quantity)).toFixed(2);
    } catch {
      entry.cycle_net = null;
    }
  }
  return result;
}

export type ContractItem = Awaited<ReturnType<typeof findContractItemsWithProduct>>[number];

export type ContractCycle = {
  billing_date: string;
  start_date: string;
  end_date: string;
  status: CycleStatus;
  reason: string | null;
  attempts: number;
  total_net: string | null;
  invoice_id: string | null;
  invoice_number: string | null;
  invoice_status: string | null;
  invoice_gross_cents: number | null;
};

/** A billing ahead, planned as things stand today. */
export type UpcomingBilling = {
  billing_date: string;
  /** The cycle it belongs to (for the final billing: the last one, up to the end). */
  start: string;
  end: string;
  /** The billing after the contract's end (arrears only). */
  final: boolean;
  /** The billing date lies inside a pause: no advance items. */
  paused: boolean;
  /** Net of the planned lines (usage as reported so far); null when the terms cannot be priced. */
  expected_net: string | null;
  /** Usage-billed items will add what is reported until then. */
  plus_usage: boolean;
};

export type UsageSum = { item_ref: string; description: string; unit: string | null; quantity: string; records: number };

export type ContractRecord = {
  contract: ContractRow;
  customer: { id: string; name: string; kundennummer: number; external_ref: string };
  items: ContractItem[];
  cycles: ContractCycle[];
  upcoming: UpcomingBilling[];
  /** The usage period still open (from usage_open_from), null when the contract bills no usage. */
  usage: { from: string; to: string | null; sums: UsageSum[] } | null;
  /** Credits its invoices could not carry in full, oldest first, with what is open and which invoices used them. */
  credits: ContractCreditRecord[];
};

const pausesOf = (value: unknown): ContractPause[] => (typeof value === 'string' ? JSON.parse(value) : ((value as ContractPause[] | null) ?? []));

/** One contract with its terms, cycles, billings ahead and open usage; null when the company has no such contract. */
export async function contractRecord(db: Database, companyId: string, contractId: string, ahead = 3): Promise<ContractRecord | null> {
  if (!CONTRACT_ID.test(contractId)) return null;
  const found = await db
    .selectFrom('contracts as k')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'k.company_id').onRef('c.id', '=', 'k.customer_id'))
    .selectAll('k')
    .select(['c.name as customer_name', 'c.kundennummer', 'c.external_ref as customer_external_ref'])
    .where('k.company_id', '=', companyId)
    .where('k.id', '=', contractId)
    .executeTakeFirst();
  if (!found) return null;
  const { customer_name, kundennummer, customer_external_ref, ...rest } = found;
  const contract: ContractRow = { ...rest, pauses: pausesOf(rest.pauses) };
  const [items, cycles, credits] = await Promise.all([
    findContractItemsWithProduct(db, companyId, contractId),
    db
      .selectFrom('contract_cycles as y')
      .leftJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 'y.company_id').onRef('i.id', '=', 'y.invoice_id'))
      .select([
        'y.billing_date',
        'y.start_date',
        'y.end_date',
        'y.status',
        'y.reason',
        'y.attempts',
        'y.total_net',
        'y.invoice_id',
        'i.number as invoice_number',
        'i.status as invoice_status',
        'i.total_gross_cents as invoice_gross_cents',
      ])
      .where('y.company_id', '=', companyId)
      .where('y.contract_id', '=', contractId)
      .orderBy('y.billing_date', 'desc')
      .execute(),
    findContractCredits(db, companyId, contractId),
  ]);
  const usageItems = items.filter(billsUsage);
  let usage: ContractRecord['usage'] = null;
  let usageMap = new Map<string, string>();
  if (usageItems.length > 0) {
    const from = contract.usage_open_from ?? contract.start_date;
    const to = contract.next_billing_date ? arrearsPeriod(contract, contract.next_billing_date).to : null;
    let sums = db
      .selectFrom('usage_records')
      .select(['item_ref', sql<string>`sum(quantity)::text`.as('total'), sql<number>`count(*)::int`.as('records')])
      .where('company_id', '=', companyId)
      .where('contract_id', '=', contractId)
      .where('occurred_on', '>=', from);
    if (to) sums = sums.where('occurred_on', '<=', to);
    const rows = await sums.groupBy('item_ref').execute();
    usageMap = new Map(rows.map((r) => [r.item_ref, r.total]));
    usage = {
      from,
      to,
      sums: usageItems.map((item) => {
        const row = rows.find((r) => r.item_ref === item.ref);
        return { item_ref: item.ref, description: item.description, unit: item.unit, quantity: new D(row?.total ?? '0').toFixed(), records: row?.records ?? 0 };
      }),
    };
  }
  return {
    contract,
    customer: { id: contract.customer_id, name: customer_name, kundennummer, external_ref: customer_external_ref },
    items,
    cycles: cycles as ContractCycle[],
    upcoming: upcomingBillings(contract, items, usageMap, ahead, openCredits(credits)),
    usage,
    credits,
  };
}

/** The credits with something open, as the billing run reads them. */
function openCredits(credits: readonly ContractCreditRecord[]): OpenCredit[] {
  return credits
    .filter((credit) => credit.open_cents > 0)
    .map((credit) => ({
      billingDate: credit.billing_date,
      position: credit.position,
      itemRef: credit.item_ref,
      vatRate: credit.vat_rate,
      description: credit.description,
      servicePeriod: { start: credit.service_period_start, end: credit.service_period_end },
      amountCents: credit.amount_cents,
      openCents: credit.open_cents,
    }));
}

/**
 * The next `count` billings of a running contract, planned by the billing run's own pure
 * planner with the credits the invoices can carry: the first with the usage reported so
 * far, each later one on the state the one before leaves (days billed, usage period,
 * credits open), with no usage yet.
 */
export function upcomingBillings(
  contract: ContractRow,
  items: readonly ContractItemRow[],
  usage: ReadonlyMap<string, string>,
  count: number,
  credits: readonly OpenCredit[] = [],
): UpcomingBilling[] {
  if (!BILLED_STATUSES.includes(contract.status) || !contract.next_billing_date) return [];
  const result: UpcomingBilling[] = [];
  let state = { ...contract, pauses: pausesOf(contract.pauses) };
  let planItems: PlanItem[] = items.map((item) => ({ ...item, tiers: item.tiers ?? null }));
  let date: string | null = contract.next_billing_date;
  let usageNow: ReadonlyMap<string, string> = usage;
  let open = credits;
  const plusUsage = items.some(billsUsage);
  while (date && result.length < count) {
    let plan: ReturnType<typeof planBilling>;
    let settled: ReturnType<typeof applyCredits>;
    try {
      plan = planBilling(state, planItems, usageNow, date);
      settled = applyCredits(plan.lines, open);
    } catch {
      break;
    }
    let net: bigint | null = 0n;
    try {
      for (const line of settled.lines) net += exactLineNet(line);
    } catch {
      net = null;
    }
    result.push({
      billing_date: plan.billingDate,
      start: plan.cycle.start,
      end: plan.cycle.end,
      final: plan.final,
      paused: plan.paused,
      expected_net: net === null ? null : formatCents(net),
      plus_usage: plusUsage,
    });
    planItems = itemsAfter(planItems, plan);
    open = creditsAfter(open, settled, plan.billingDate);
    state = { ...state, usage_open_from: plan.usageOpenFrom };
    usageNow = new Map();
    date = plan.next;
  }
  return result;
}
