import type { Insertable } from 'kysely';
import { bulkInsert, type ColumnTypes } from '../../../db/bulk-insert.ts';
import type { CommissionEntriesTable, EntrySourceType } from '../../../db/schema-commissions.ts';
import type { Trx } from '../../../db/transaction.ts';
import { RetryTransaction } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import { type Accrual, accrue, type LedgerAgreement, type PaidRevenue } from './accrual.ts';
import { applyBalanceDeltas, BalanceDeltas } from './balances.ts';
import { anchorKey, type LedgerContext } from './ledger-context.ts';

// Writes the ledger entries of paid revenue inside the caller's transaction (the bank
// import's, createRevenueEvent's): entries, the anchors they set, the partners' balances.

export type LedgerRevenue = PaidRevenue & {
  eventId: string;
  sourceType: EntrySourceType;
  sourceId: string | null;
  servicePeriodStart: string;
  paidAt: Date;
};

export type EntryRow = Insertable<CommissionEntriesTable>;

const ENTRY_COLUMNS: ColumnTypes<'commission_entries'> = {
  company_id: 'text',
  id: 'text',
  partner_id: 'text',
  agreement_id: 'text',
  customer_id: 'text',
  revenue_event_id: 'text',
  source_type: 'text',
  source_id: 'text',
  service_period_start: 'date',
  paid_at: 'timestamptz',
  paid_on: 'date',
  contract_month: 'integer',
  percent: 'text',
  basis_cents: 'bigint',
  amount_cents: 'bigint',
  status: 'text',
  statement_id: 'text',
  reverses_entry_id: 'text',
  reverses_event_id: 'text',
  corrects_entry_id: 'text',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
};

/** Inserts entry rows as they are (the caller moves the balances). */
export async function insertEntryRows(trx: Trx, rows: readonly EntryRow[]): Promise<void> {
  if (rows.length > 0) await bulkInsert(trx, 'commission_entries', ENTRY_COLUMNS, rows);
}

/**
 * The accruals of one revenue against the context; anchors it sets are visible to the next.
 * `onBeforeAnchor` hears of a revenue paid before a stored first-paid anchor it qualifies
 * under (the anchor must move: the caller computes the customer's ledger again).
 */
export function accrueRevenue(ctx: LedgerContext, revenue: PaidRevenue, onBeforeAnchor?: () => void): Accrual[] {
  const attributions = revenue.customerId === null ? [] : (ctx.attributionsOf.get(revenue.customerId) ?? []);
  // Candidates: the agreements for all customers and those the customer is attributed to.
  const candidates = new Set(ctx.forAllCustomers);
  for (const attribution of attributions) candidates.add(ctx.byId.get(attribution.agreementId) as LedgerAgreement);
  return accrue(
    revenue,
    [...candidates].sort((a, b) => (a.id < b.id ? -1 : 1)),
    attributions,
    (agreementId, customerKey) => ctx.anchors.get(anchorKey(agreementId, customerKey)),
    {
      set: (agreementId, customerKey, anchorDate) => {
        const key = anchorKey(agreementId, customerKey);
        ctx.anchors.set(key, anchorDate);
        ctx.newAnchors.set(key, { agreementId, customerKey, anchorDate });
      },
      ...(onBeforeAnchor ? { before: onBeforeAnchor } : {}),
    },
  );
}

/** The entry rows of a revenue's accruals (status open). */
export function entryRows(companyId: string, revenue: LedgerRevenue, accruals: readonly Accrual[], now: Date): EntryRow[] {
  return accruals.map((accrual) => ({
    company_id: companyId,
    id: newId('cen'),
    partner_id: accrual.agreement.partnerId,
    agreement_id: accrual.agreement.id,
    customer_id: revenue.customerId,
    revenue_event_id: revenue.eventId,
    source_type: revenue.sourceType,
    source_id: revenue.sourceId,
    service_period_start: revenue.servicePeriodStart,
    paid_at: revenue.paidAt,
    paid_on: revenue.paidOn,
    contract_month: accrual.contractMonth,
    percent: accrual.percent,
    basis_cents: centsNumber(accrual.basisCents),
    amount_cents: centsNumber(accrual.amountCents),
    status: 'open',
    statement_id: null,
    reverses_entry_id: null,
    created_at: now,
    updated_at: now,
  }));
}

/**
 * Stores the anchors the batch set (a concurrent batch that set one first makes this one
 * start over, so month numbers never disagree), except those of the customers' keys in
 * `except` (their ledger is computed again, anchors included).
 */
export async function storeNewAnchors(trx: Trx, companyId: string, ctx: LedgerContext, except: ReadonlySet<string> = new Set()): Promise<void> {
  const anchors = [...ctx.newAnchors.values()].filter((a) => !except.has(a.customerKey));
  ctx.newAnchors.clear();
  if (anchors.length === 0) return;
  const inserted = await bulkInsert(
    trx,
    'commission_anchors',
    { company_id: 'text', agreement_id: 'text', customer_key: 'text', anchor_date: 'date' },
    anchors.map((a) => ({ company_id: companyId, agreement_id: a.agreementId, customer_key: a.customerKey, anchor_date: a.anchorDate })),
    { onConflictDoNothing: true, returning: 'agreement_id' },
  );
  if (inserted.length !== anchors.length) throw new RetryTransaction();
}

/** Stores the anchors the batch set (storeNewAnchors), the entries, and moves the balances. */
export async function insertLedgerEntries(trx: Trx, companyId: string, ctx: LedgerContext, rows: readonly EntryRow[]): Promise<void> {
  await storeNewAnchors(trx, companyId, ctx);
  if (rows.length === 0) return;
  await insertEntryRows(trx, rows);
  const deltas = new BalanceDeltas();
  for (const row of rows) deltas.add(row.partner_id, row.status as 'open', BigInt(row.amount_cents));
  await applyBalanceDeltas(trx, companyId, deltas);
}
