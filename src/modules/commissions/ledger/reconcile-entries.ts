import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';
import { RetryTransaction } from '../../../shared/errors.ts';
import { newId } from '../../../shared/ids.ts';
import { centsNumber } from '../../../shared/money.ts';
import type { EntryRowRead } from '../revenue-events.repository.ts';
import { applyBalanceDeltas, BalanceDeltas } from './balances.ts';
import { groupKey, type Wanted, type WantedEntry } from './wanted-entries.ts';
import { type EntryRow, insertEntryRows } from './write-entries.ts';

// Brings the stored entries of a set of revenue events to what the facts want (issue 24),
// never by editing an amount:
// - an entry key is (revenue event, agreement, reversed event); its non-void entries are
//   summed per (contract month, percent) and compared with the wanted entry;
// - when they differ, the open ones are voided; a statemented or paid one stays and gets
//   a difference entry (open, `corrects_entry_id` = it) — the difference at the same month
//   and percent, or, at another month or percent, its reversal plus the wanted entry anew;
// - a sale or payment reversed in full whose entries (its own and its reversals') are all
//   still open is voided with them: nothing of it reaches a statement (design §6). A wanted
//   entry of such a group that was never written goes in as `void`, so the refund's answer
//   shows it.
// The partners' balances move with every entry written or voided.

export const entryKey = (eventId: string, agreementId: string, reversesEventId: string | null) => `${eventId}\n${agreementId}\n${reversesEventId ?? ''}`;

const rowGroup = (row: EntryRowRead) => groupKey(row.reverses_event_id ?? row.revenue_event_id, row.agreement_id);
const rowKey = (row: EntryRowRead) => entryKey(row.revenue_event_id, row.agreement_id, row.reverses_event_id);
const wantedGroup = (entry: WantedEntry) => groupKey(entry.reversesEventId ?? entry.eventId, entry.agreementId);
const wantedKey = (entry: WantedEntry) => entryKey(entry.eventId, entry.agreementId, entry.reversesEventId);
const termsOf = (month: number | null, percent: string) => `${month ?? ''}|${percent}`;

/** The stored entries (every status) of these revenue events, in writing order. */
export async function storedEntries(trx: Trx, companyId: string, eventIds: readonly string[]): Promise<EntryRowRead[]> {
  if (eventIds.length === 0) return [];
  return trx
    .selectFrom('commission_entries')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(sql<boolean>`revenue_event_id = any(${eventIds}::text[])`)
    .orderBy('seq')
    .execute();
}

/**
 * Writes the corrections that make the entries of `eventIds` what `wanted` says (its entries
 * must all belong to these events). Returns the entries written, with their status.
 */
export async function reconcileEntries(trx: Trx, companyId: string, wanted: Wanted, eventIds: readonly string[], now: Date): Promise<EntryRow[]> {
  const stored = await storedEntries(trx, companyId, eventIds);
  const storedOf = new Map<string, EntryRowRead[]>();
  for (const row of stored) storedOf.set(rowKey(row), [...(storedOf.get(rowKey(row)) ?? []), row]);
  const wantedOf = new Map(wanted.entries.map((entry) => [wantedKey(entry), entry]));

  // Groups reversed in full whose entries are all open (or not written yet): void.
  const voidGroups = new Set<string>();
  for (const group of wanted.reversedInFull) voidGroups.add(group);
  for (const row of stored) if (row.status === 'statemented' || row.status === 'paid') voidGroups.delete(rowGroup(row));

  const toVoid: EntryRowRead[] = [];
  const rows: EntryRow[] = [];
  /** Per group, the id of the sale's or payment's entry that stands (for reverses_entry_id). */
  const standing = new Map<string, string>();
  const keys = [...new Set([...storedOf.keys(), ...wantedOf.keys()])].sort((a, b) => {
    // Sales and payments first, so that their reversals can point at the entry that stands.
    const ra = a.endsWith('\n') ? 0 : 1;
    const rb = b.endsWith('\n') ? 0 : 1;
    return ra - rb || (a < b ? -1 : a > b ? 1 : 0);
  });
  for (const key of keys) {
    const existing = storedOf.get(key) ?? [];
    const live = existing.filter((row) => row.status !== 'void');
    const want = wantedOf.get(key) ?? null;
    const group = want ? wantedGroup(want) : rowGroup(existing[0] as EntryRowRead);
    if (voidGroups.has(group)) {
      toVoid.push(...live.filter((row) => row.status === 'open'));
      if (want && existing.length === 0) rows.push(entryRow(companyId, want, 'void', null, standing.get(group) ?? null, now));
      continue;
    }
    if (matches(live, want)) {
      const last = live.at(-1);
      if (last && want?.reversesEventId === null) standing.set(group, last.id);
      continue;
    }
    const open = live.filter((row) => row.status === 'open');
    toVoid.push(...open);
    const settled = new Map<string, { basis: bigint; amount: bigint; last: EntryRowRead }>();
    for (const row of live) {
      if (row.status === 'open') continue;
      const terms = termsOf(row.contract_month, row.percent);
      const sum = settled.get(terms) ?? { basis: 0n, amount: 0n, last: row };
      sum.basis += BigInt(row.basis_cents);
      sum.amount += BigInt(row.amount_cents);
      sum.last = row;
      settled.set(terms, sum);
    }
    const wantTerms = want ? termsOf(want.contractMonth, want.percent) : null;
    for (const [terms, sum] of settled) {
      if (terms === wantTerms || (sum.basis === 0n && sum.amount === 0n)) continue;
      // Settled at other terms: reversed by a difference entry of its own.
      rows.push(reversalOf(sum.last, -sum.basis, -sum.amount, now));
    }
    if (want) {
      const same = settled.get(wantTerms as string);
      const basis = want.basisCents - (same?.basis ?? 0n);
      const amount = want.amountCents - (same?.amount ?? 0n);
      if (basis !== 0n || amount !== 0n) {
        // It corrects the settled entry at these terms, else the settled one it replaces, else the open one voided.
        const corrects = same?.last.id ?? [...settled.values()].at(-1)?.last.id ?? open.at(-1)?.id ?? null;
        const row = entryRow(companyId, { ...want, basisCents: basis, amountCents: amount }, 'open', corrects, standing.get(group) ?? null, now);
        rows.push(row);
        if (want.reversesEventId === null) standing.set(group, row.id);
      } else if (same && want.reversesEventId === null) standing.set(group, same.last.id);
    }
  }

  const deltas = new BalanceDeltas();
  if (toVoid.length > 0) {
    const voided = await trx
      .updateTable('commission_entries')
      .set({ status: 'void', updated_at: now })
      .where('company_id', '=', companyId)
      .where(sql<boolean>`id = any(${toVoid.map((row) => row.id)}::text[])`)
      .where('status', '=', 'open')
      .returning(['partner_id', 'amount_cents'])
      .execute();
    // A statement run took one of them meanwhile: start over with the entries as they are now.
    if (voided.length !== toVoid.length) throw new RetryTransaction();
    for (const row of voided) deltas.add(row.partner_id, 'open', -BigInt(row.amount_cents));
  }
  await insertEntryRows(trx, rows);
  for (const row of rows) if (row.status === 'open') deltas.add(row.partner_id, 'open', BigInt(row.amount_cents));
  await applyBalanceDeltas(trx, companyId, deltas);
  return rows;
}

/** Whether the non-void entries of a key sum to the wanted entry at its month and percent (and to nothing at any other). */
function matches(live: readonly EntryRowRead[], want: WantedEntry | null): boolean {
  const sums = new Map<string, { basis: bigint; amount: bigint }>();
  for (const row of live) {
    const terms = termsOf(row.contract_month, row.percent);
    const sum = sums.get(terms) ?? { basis: 0n, amount: 0n };
    sum.basis += BigInt(row.basis_cents);
    sum.amount += BigInt(row.amount_cents);
    sums.set(terms, sum);
  }
  const wantTerms = want ? termsOf(want.contractMonth, want.percent) : null;
  if (want) {
    const sum = sums.get(wantTerms as string);
    if (!sum || sum.basis !== want.basisCents || sum.amount !== want.amountCents) return false;
  }
  for (const [terms, sum] of sums) if (terms !== wantTerms && (sum.basis !== 0n || sum.amount !== 0n)) return false;
  return true;
}

function entryRow(companyId: string, entry: WantedEntry, status: 'open' | 'void', corrects: string | null, reversesEntry: string | null, now: Date): EntryRow {
  return {
    company_id: companyId,
    id: newId('cen'),
    partner_id: entry.partnerId,
    agreement_id: entry.agreementId,
    customer_id: entry.customerId,
    revenue_event_id: entry.eventId,
    source_type: entry.sourceType,
    source_id: entry.sourceId,
    service_period_start: entry.servicePeriodStart,
    paid_at: entry.paidAt,
    paid_on: entry.paidOn,
    contract_month: entry.contractMonth,
    percent: entry.percent,
    basis_cents: centsNumber(entry.basisCents),
    amount_cents: centsNumber(entry.amountCents),
    status,
    statement_id: null,
    reverses_entry_id: entry.reversesEventId === null ? null : reversesEntry,
    reverses_event_id: entry.reversesEventId,
    corrects_entry_id: corrects,
    created_at: now,
    updated_at: now,
  };
}

/** A difference entry taking back (part of) a statemented or paid entry at its own terms. */
function reversalOf(settled: EntryRowRead, basis: bigint, amount: bigint, now: Date): EntryRow {
  return {
    company_id: settled.company_id,
    id: newId('cen'),
    partner_id: settled.partner_id,
    agreement_id: settled.agreement_id,
    customer_id: settled.customer_id,
    revenue_event_id: settled.revenue_event_id,
    source_type: settled.source_type,
    source_id: settled.source_id,
    service_period_start: settled.service_period_start,
    paid_at: settled.paid_at,
    paid_on: settled.paid_on,
    contract_month: settled.contract_month,
    percent: settled.percent,
    basis_cents: centsNumber(basis),
    amount_cents: centsNumber(amount),
    status: 'open',
    statement_id: null,
    reverses_entry_id: settled.reverses_entry_id,
    reverses_event_id: settled.reverses_event_id,
    corrects_entry_id: settled.id,
    created_at: now,
    updated_at: now,
  };
}
