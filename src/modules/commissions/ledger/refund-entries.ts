import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import type { EntryRowRead } from '../revenue-events.repository.ts';
import { commissionAmount, divideHalfUp } from './accrual.ts';
import { applyBalanceDeltas, BalanceDeltas } from './balances.ts';
import { type EntryRow, insertEntryRows } from './write-entries.ts';

// A refund of paid revenue (design §6): negative entries at the original percent, one per
// entry of the reversed revenue, pro rata of the refunded part. Counted cumulatively, so the
// refunds of the whole revenue reverse exactly its basis and amount. When the revenue is
// reversed in full and its entry is still open (and every refund entry of it too), the entry
// is voided together with its reversal: neither reaches a statement.

export type RefundToBook = {
  eventId: string;
  externalRef: string;
  paidOn: string;
  paidAt: Date;
  originalId: string;
  /** The reversed event's net (positive). */
  originalNetCents: bigint;
  /** What earlier refunds reversed (positive). */
  refundedBeforeCents: bigint;
  /** What this refund reverses (positive). */
  refundCents: bigint;
};

/** Writes the refunds' entries in order; returns them with their final status. */
export async function writeRefundEntries(trx: Trx, companyId: string, refunds: readonly RefundToBook[], now: Date): Promise<EntryRow[]> {
  if (refunds.length === 0) return [];
  const originalIds = [...new Set(refunds.map((r) => r.originalId))];
  const originals = await trx
    .selectFrom('commission_entries')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`revenue_event_id = any(${originalIds}::text[])`)
    .where('reverses_entry_id', 'is', null)
    .orderBy('seq')
    .execute();
  if (originals.length === 0) return [];
  const earlier = await trx
    .selectFrom('commission_entries')
    .select(['id', 'reverses_entry_id', 'status', 'amount_cents'])
    .where('company_id', '=', companyId)
    .where(sql<boolean>`reverses_entry_id = any(${originals.map((e) => e.id)}::text[])`)
    .execute();
  const entriesOf = new Map<string, EntryRowRead[]>();
  for (const entry of originals) entriesOf.set(entry.revenue_event_id, [...(entriesOf.get(entry.revenue_event_id) ?? []), entry]);
  /** Per original entry: its refund entries so far (stored and new). */
  const reversals = new Map<string, { id: string; status: string; amount: bigint; fresh: EntryRow | null }[]>();
  for (const row of earlier)
    reversals.set(row.reverses_entry_id as string, [
      ...(reversals.get(row.reverses_entry_id as string) ?? []),
      { id: row.id, status: row.status, amount: BigInt(row.amount_cents), fresh: null },
    ]);

  const rows: EntryRow[] = [];
  const voidIds: string[] = [];
  for (const refund of refunds) {
    const after = refund.refundedBeforeCents + refund.refundCents;
    for (const entry of entriesOf.get(refund.originalId) ?? []) {
      const basis = BigInt(entry.basis_cents);
      const basisBefore = divideHalfUp(basis * refund.refundedBeforeCents, refund.originalNetCents);
      const basisAfter = divideHalfUp(basis * after, refund.originalNetCents);
      const amount = -(commissionAmount(basisAfter, entry.percent) - commissionAmount(basisBefore, entry.percent));
      const row: EntryRow = {
        company_id: companyId,
        id: newId('cen'),
        partner_id: entry.partner_id,
        agreement_id: entry.agreement_id,
        customer_id: entry.customer_id,
        revenue_event_id: refund.eventId,
        source_type: 'revenue_event',
        source_id: refund.externalRef,
        service_period_start: entry.service_period_start,
        paid_at: refund.paidAt,
        paid_on: refund.paidOn,
        contract_month: entry.contract_month,
        percent: entry.percent,
        basis_cents: centsNumber(-(basisAfter - basisBefore)),
        amount_cents: centsNumber(amount),
        status: 'open',
        statement_id: null,
        reverses_entry_id: entry.id,
        created_at: now,
        updated_at: now,
      };
      if (row.basis_cents === 0 && row.amount_cents === 0) continue;
      rows.push(row);
      const list = [...(reversals.get(entry.id) ?? []), { id: row.id, status: 'open', amount, fresh: row }];
      reversals.set(entry.id, list);
      // Reversed in full while everything is still open: the entry and its reversals are void.
      if (after === refund.originalNetCents && entry.status === 'open' && list.every((r) => r.status === 'open')) {
        voidIds.push(entry.id);
        for (const r of list) {
          if (r.fresh) r.fresh.status = 'void';
          else voidIds.push(r.id);
          r.status = 'void';
        }
        entry.status = 'void';
      }
    }
  }
  // New entries go in with their final status; only open ones count in the balance.
  await insertEntryRows(trx, rows);
  const deltas = new BalanceDeltas();
  for (const row of rows) if (row.status === 'open') deltas.add(row.partner_id, 'open', BigInt(row.amount_cents));
  if (voidIds.length > 0) {
    const voided = await trx
      .updateTable('commission_entries')
      .set({ status: 'void', updated_at: now })
      .where('company_id', '=', companyId)
      .where(sql<boolean>`id = any(${voidIds}::text[])`)
      .where('status', '=', 'open')
      .returning(['partner_id', 'amount_cents'])
      .execute();
    for (const row of voided) deltas.add(row.partner_id, 'open', -BigInt(row.amount_cents));
  }
  await applyBalanceDeltas(trx, companyId, deltas);
  return rows;
}
