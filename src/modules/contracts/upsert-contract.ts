import type { Database } from '../../db/connection.ts';
import { drawNumberInTransaction, type NumberRange } from '../../db/number-ranges.ts';
import type { Tier } from '../../db/schema.ts';
import type { ContractInterval, ContractStatus } from '../../db/schema-contracts.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { addDays } from '../../shared/dates.ts';
import { AppError, RetryTransaction, type ValidationIssue, validationFailed } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { formatNumberPattern } from '../../shared/number-pattern.ts';
import { findCustomerByRef } from '../customers/index.ts';
import { checkPricing, type PricingModel } from '../products/index.ts';
import type { TierInput } from '../products/pricing.ts';
import { findProductByRefOrNumber, type ProductRow } from '../products/products.repository.ts';
import { anchorOf, nextBillingDate } from './billing-plan.ts';
import type { ContractInput, ContractItemInput } from './contract-input.ts';
import { pausesAfter } from './contract-pauses.ts';
import { type ContractView, contractView } from './contract-view.ts';
import { type ContractItemRow, type ContractRow, findContractByRef, findContractItems, saveContractItems } from './contracts.repository.ts';
import { keptItemRow } from './item-terms.ts';

// upsertContract (interface §2/§3/§7, design §6): PUT semantics for the contract, the
// rules of a running contract (no way back to draft, interval and start fixed, every term
// of an item frozen when it was added (item-terms.ts), items end with ends_after rather
// than leave, a quantity change takes effect today), and its own gapless number.

export const CONTRACT_NUMBERS: NumberRange = { key: 'contract', first: 1, last: 999_999_999 };

export type { ContractInput, ContractItemInput } from './contract-input.ts';

type ContractFields = Pick<
  ContractRow,
  'name' | 'status' | 'billing_interval' | 'start_date' | 'billing_starts_on' | 'end_date' | 'invoice_mode' | 'payment_terms_days'
>;

const isRunning = (status: ContractStatus) => status !== 'draft';

/** The contract fields as sent, with defaults; checks that need nothing stored. */
function contractFields(input: ContractInput): ContractFields {
  const issues: ValidationIssue[] = [];
  if (input.end_date && input.end_date < input.start_date) throw new AppError('contract.date_range_invalid');
  if (input.billing_starts_on && input.billing_starts_on < input.start_date)
    issues.push({ loc: ['body', 'billing_starts_on'], type: 'date_range', msg: 'Billing cannot start before the contract starts' });
  if (input.status === 'cancelled' && !input.end_date)
    issues.push({ loc: ['body', 'end_date'], type: 'missing', msg: 'A cancelled contract needs the day it ends (end_date)' });
  const refs = input.items.map((item, i) => item.ref ?? String(i + 1));
  refs.forEach((ref, i) => {
    if (refs.indexOf(ref) !== i) issues.push({ loc: ['body', 'items', i, 'ref'], type: 'unique', msg: `Item reference ${ref} stands twice` });
  });
  if (!input.name.trim()) issues.push({ loc: ['body', 'name'], type: 'too_short', msg: 'Name must not be blank' });
  if (issues.length) throw validationFailed(issues);
  return {
    name: input.name.trim(),
    status: input.status ?? 'draft',
    billing_interval: input.billing_interval,
    start_date: input.start_date,
    billing_starts_on: input.billing_starts_on ?? null,
    end_date: input.end_date ?? null,
    invoice_mode: input.invoice_mode ?? 'issue',
    payment_terms_days: input.payment_terms_days ?? null,
  };
}

const USAGE_MODELS: readonly PricingModel[] = ['per_unit', 'package', 'graduated', 'volume', 'quota'];

/** A new item (or one of a draft) as it will be stored: the product's terms unless the item sets them. */
function itemRow(
  companyId: string,
  contractId: string,
  position: number,
  input: ContractItemInput,
  product: ProductRow | null,
  startsOn: string,
): ContractItemRow {
  const loc = ['body', 'items', position - 1];
  const priced = input.unit_price_net !== undefined && input.unit_price_net !== null;
  const pricingInput = {
    pricing_model: input.pricing_model ?? product?.pricing_model ?? null,
    unit_price_net: priced ? input.unit_price_net! : (product?.unit_price_net ?? ''),
    included_quantity: input.included_quantity !== undefined ? input.included_quantity : (product?.included_quantity ?? null),
    overage_price: input.overage_price !== undefined ? input.overage_price : (product?.overage_price ?? null),
    tiers: input.tiers !== undefined ? input.tiers : ((product?.tiers as TierInput[] | null) ?? null),
  };
  if (pricingInput.unit_price_net === '')
    throw validationFailed([{ loc: [...loc, 'unit_price_net'], type: 'missing', msg: 'An item without a product needs its unit_price_net' }]);
  const { terms, issues } = checkPricing(pricingInput, 'month', loc);
  if (input.quantity !== undefined && input.quantity !== null && String(input.quantity).trim().startsWith('-')) throw new AppError('pricing.quantity_negative');
  const description = input.description?.trim() || product?.name || '';
  if (!description) issues.push({ loc: [...loc, 'description'], type: 'missing', msg: 'An item without a product needs its description' });
  if (issues.length) throw validationFailed(issues);
  const timing = input.billing_timing ?? (USAGE_MODELS.includes(terms.pricing_model) ? 'arrears' : 'advance');
  return {
    company_id: companyId,
    contract_id: contractId,
    ref: input.ref ?? String(position),
    position,
    product_id: product?.id ?? null,
    description,
    quantity: input.quantity === undefined || input.quantity === null ? '1' : String(input.quantity),
    unit: input.unit !== undefined ? input.unit : (product?.unit ?? null),
    billing_timing: timing,
    unit_price_net: terms.unit_price_net,
    vat_rate: input.vat_rate ?? (product?.vat_rate as 0 | 7 | 19 | undefined) ?? 19,
    pricing_model: terms.pricing_model,
    included_quantity: terms.included_quantity,
    overage_price: terms.overage_price,
    tiers: terms.tiers ? ([...terms.tiers] as Tier[]) : null,
    starts_on: startsOn,
    ends_after: input.ends_after ?? null,
    billed_until: null,
    quantities: null,
    billed_quantities: null,
  };
}

async function resolveProducts(trx: Trx, companyId: string, input: ContractInput, interval: ContractInterval) {
  return Promise.all(
    input.items.map(async (item) => {
      if (item.product_ref === undefined && item.product_number === undefined) return null;
      const lookup = item.product_number !== undefined ? { productNumber: item.product_number } : { source: input.customer.source, ref: item.product_ref! };
      const product = await findProductByRefOrNumber(trx, companyId, lookup);
      if (!product)
        throw new AppError(
          'product_not_found',
          item.product_number !== undefined ? { product_number: item.product_number } : { product_ref: item.product_ref },
        );
      if (product.billing_interval !== interval) throw new AppError('contract.interval_mismatch', { product: product.product_number });
      return product;
    }),
  );
}

/** The contract's terms a request may not change once it runs (checked before its items). */
function checkRunningContract(existing: ContractRow, fields: ContractFields) {
  if (existing.status === 'ended') throw new AppError('contract.ended');
  if (!isRunning(existing.status)) return;
  if (fields.status === 'draft') throw new AppError('contract.not_draft');
  if (fields.billing_interval !== existing.billing_interval || fields.start_date !== existing.start_date || anchorOf(fields) !== anchorOf(existing))
    throw new AppError('contract.terms_frozen');
  const billed = billedThrough(existing);
  if (billed && fields.end_date && fields.end_date < billed) throw new AppError('contract.end_before_billed', { args: { billed_until: billed } });
}

/** The last day billed: in advance (billed_until) or in arrears (the day before usage_open_from, once billed). */
function billedThrough(contract: ContractRow): string | null {
  const arrears = contract.last_billing_date && contract.usage_open_from ? addDays(contract.usage_open_from, -1) : null;
  if (!arrears) return contract.billed_until;
  return contract.billed_until && contract.billed_until > arrears ? contract.billed_until : arrears;
}

/** The items of a running contract: none leaves (their terms are checked per item, item-terms.ts). */
function checkRunningItems(existing: ContractRow, keptItems: Map<string, ContractItemRow>, items: ContractItemRow[]) {
  if (!isRunning(existing.status)) return;
  const sent = new Set(items.map((item) => item.ref));
  const left = [...keptItems.keys()].find((ref) => !sent.has(ref));
  if (left)
    throw new AppError(
      'contract.terms_frozen',
      { args: { ref: left, terms: [] } },
      `Die Position ${left} gehört zum laufenden Vertrag: Sie endet mit ends_after, statt weggelassen zu werden.`,
    );
}

/** JSON with object keys in one order (jsonb reorders them), for comparing rows. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
/** The items as stored equal those of the request (the record of days billed aside: writing it down changes nothing). */
const sameItems = (a: readonly ContractItemRow[], b: readonly ContractItemRow[]) =>
  canonical(a.map(({ billed_quantities: _, ...item }) => item)) === canonical(b.map(({ billed_quantities: _, ...item }) => item));

export type UpsertContractResult = { created: boolean; contract: ContractView };

export async function upsertContract(
  db: Database,
  clock: Clock,
  companyId: string,
  ref: { source: string; externalRef: string },
  input: ContractInput,
): Promise<UpsertContractResult> {
  const fields = contractFields(input);
  return inTransaction(db, async (trx) => {
    const company = await trx.selectFrom('companies').select(['timezone', 'contract_number_pattern']).where('id', '=', companyId).executeTakeFirstOrThrow();
    const customer = await findCustomerByRef(trx, companyId, input.customer.source, input.customer.external_ref);
    if (!customer) throw new AppError('customer_not_found');
    const existing = await findContractByRef(trx, companyId, ref.source, ref.externalRef, true);
    if (existing && existing.customer_id !== customer.id) throw new AppError('contract.customer_mismatch');
    if (existing) checkRunningContract(existing, fields);
    const products = await resolveProducts(trx, companyId, input, fields.billing_interval);
    const contractId = existing?.id ?? newId('ctr');
    const keptItems = new Map((existing ? await findContractItems(trx, companyId, contractId) : []).map((item) => [item.ref, item]));
    const today = clock.today(company.timezone);
    const newItemStart = existing && isRunning(existing.status) ? (today > fields.start_date ? today : fields.start_date) : fields.start_date;
    const items = input.items.map((item, i) => {
      const itemRef = item.ref ?? String(i + 1);
      const kept = keptItems.get(itemRef);
      const product = products[i] ?? null;
      if (kept && kept.product_id !== (product?.id ?? null)) throw new AppError('contract.item_product_changed', { ref: itemRef });
      if (kept && existing && isRunning(existing.status)) return keptItemRow(existing, kept, item, i + 1, today);
      // A draft is still negotiable: its items take what is sent.
      return itemRow(companyId, contractId, i + 1, item, product, newItemStart);
    });
    if (existing) checkRunningItems(existing, keptItems, items);
    // Pausing or cancelling needs a contract that has run: a draft is activated first.
    if ((fields.status === 'paused' || fields.status === 'cancelled') && !existing?.activated_at) throw new AppError('contract.not_active');

    const now = clock.now();
    const activating = isRunning(fields.status) && !existing?.activated_at;
    // The next billing date follows the schedule from the last one billed, up to the day after the end.
    const schedule = {
      next_billing_date: isRunning(fields.status) ? nextBillingDate(fields, existing?.last_billing_date ?? null) : null,
      pauses: JSON.stringify(pausesAfter(existing?.pauses ?? [], existing?.status, fields.status, today)),
      ...(activating ? { usage_open_from: fields.start_date, activated_at: now } : {}),
    };
    if (existing) {
      const unchanged =
        (Object.keys(fields) as (keyof ContractFields)[]).every((key) => existing[key] === fields[key]) && sameItems([...keptItems.values()], items);
      if (unchanged) return { created: false, contract: await contractView(trx, existing, customer.external_ref) };
      const updated = await trx
        .updateTable('contracts')
        .set({ ...fields, ...schedule, updated_at: now })
        .where('company_id', '=', companyId)
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await saveContractItems(trx, companyId, contractId, items);
      return { created: false, contract: await contractView(trx, updated, customer.external_ref) };
    }
    const seq = await drawNumberInTransaction(trx, companyId, CONTRACT_NUMBERS);
    if (seq === null) throw new AppError('conflict_retry', {}, 'The contract number range is used up.');
    const inserted = await trx
      .insertInto('contracts')
      .values({
        company_id: companyId,
        id: contractId,
        number: formatNumberPattern(company.contract_number_pattern, today, seq),
        external_source: ref.source,
        external_ref: ref.externalRef,
        customer_id: customer.id,
        ...fields,
        usage_open_from: null,
        billed_until: null,
        activated_at: null,
        last_billing_date: null,
        ...schedule,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['company_id', 'external_source', 'external_ref']).doNothing())
      .returningAll()
      .executeTakeFirst();
    // A concurrent request created this reference first: run again, now as an update.
    if (!inserted) throw new RetryTransaction();
    await saveContractItems(trx, companyId, contractId, items);
    return { created: true, contract: await contractView(trx, inserted, customer.external_ref) };
  });
}
