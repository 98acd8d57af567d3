import { sql } from 'kysely';
import type { Trx } from '../../../db/transaction.ts';

// The partner's balance is kept (interface §2 Balance): open, statemented and paid cents,
// each equal to the sum of the partner's entries in that status. Every change of entries
// moves the columns by the same amounts in the same transaction.

export type BalanceDelta = { open: bigint; statemented: bigint; paid: bigint };

export class BalanceDeltas {
  readonly byPartner = new Map<string, BalanceDelta>();

  add(partnerId: string, status: 'open' | 'statemented' | 'paid', cents: bigint): void {
    const delta = this.byPartner.get(partnerId) ?? { open: 0n, statemented: 0n, paid: 0n };
    delta[status] += cents;
    this.byPartner.set(partnerId, delta);
  }
}

/**
 * Moves the partners' balance columns. The rows are locked in id order first, so two
 * transactions touching the same partners never deadlock; the lock is FOR NO KEY UPDATE
 * (what the update itself takes), which does not wait for the key-share locks the entries'
 * foreign-key checks of a concurrent transaction hold on the same partners.
 */
export async function applyBalanceDeltas(trx: Trx, companyId: string, deltas: BalanceDeltas): Promise<void> {
  const changed = [...deltas.byPartner].filter(([, d]) => d.open !== 0n || d.statemented !== 0n || d.paid !== 0n).sort(([a], [b]) => (a < b ? -1 : 1));
  if (changed.length === 0) return;
  const ids = changed.map(([id]) => id);
  if (changed.length > 1) {
    await trx
      .selectFrom('commission_partners')
      .select('id')
      .where('company_id', '=', companyId)
      .where(sql<boolean>`id = any(${ids}::text[])`)
      .orderBy('id')
      .forNoKeyUpdate()
      .execute();
  }
  await sql`
    update commission_partners p
    set balance_open_cents = p.balance_open_cents + d.open,
        balance_statemented_cents = p.balance_statemented_cents + d.statemented,
        balance_paid_cents = p.balance_paid_cents + d.paid
    from unnest(${ids}::text[], ${changed.map(([, d]) => d.open.toString())}::bigint[],
                ${changed.map(([, d]) => d.statemented.toString())}::bigint[], ${changed.map(([, d]) => d.paid.toString())}::bigint[])
         as d(id, open, statemented, paid)
    where p.company_id = ${companyId} and p.id = d.id`.execute(trx);
}

const BALANCE_COLUMN = { open: 'balance_open_cents', statemented: 'balance_statemented_cents', paid: 'balance_paid_cents' } as const;

/**
 * One partner's balance moved by `cents` from one status to another, as an update not yet
 * run: for a caller that makes it part of the statement that moves the entries (a
 * data-modifying WITH, issue 26). The caller holds the partner's row locked already.
 */
export function balanceMoveWrite(trx: Trx, companyId: string, partnerId: string, move: { from: keyof BalanceDelta; to: keyof BalanceDelta; cents: number }) {
  return trx
    .updateTable('commission_partners')
    .set((eb) => ({
      [BALANCE_COLUMN[move.from]]: eb(BALANCE_COLUMN[move.from], '-', move.cents),
      [BALANCE_COLUMN[move.to]]: eb(BALANCE_COLUMN[move.to], '+', move.cents),
    }))
    .where('company_id', '=', companyId)
    .where('id', '=', partnerId)
    .returning('id');
}
