import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type AttributionView, attributionView } from './attribution-view.ts';
import {
  type AttributionRow,
  findAttributionById,
  findNamedAttribution,
  findOverlappingAttributions,
  lockCustomer,
  updateAttribution,
} from './attributions.repository.ts';

// The person-side steps of an attribution (design §2 `kontor admin attribution
// confirm|reject`, §7): a proposed attribution is confirmed (active from then on) or
// rejected (it stays rejected). An active one is ended with end_date, not rejected. A
// refusal is an AttributionDecisionError with one sentence.

export class AttributionDecisionError extends Error {}

type Deps = { db: Database; clock: Clock };
export type DecidedAttribution = { attribution: AttributionView; changed: boolean };

/** The attribution, its customer locked first (the order every attribution write keeps), read again under the lock. */
async function lockedAttribution(trx: Trx, id: string): Promise<AttributionRow> {
  const found = await findAttributionById(trx, id);
  if (!found) throw new AttributionDecisionError(`no attribution ${id}`);
  await lockCustomer(trx, found.company_id, found.customer_id);
  return (await findAttributionById(trx, id, true)) as AttributionRow;
}

async function view(trx: Trx, clock: Clock, row: AttributionRow): Promise<AttributionView> {
  const company = await trx.selectFrom('companies').select('timezone').where('id', '=', row.company_id).executeTakeFirstOrThrow();
  return attributionView((await findNamedAttribution(trx, row))!, clock.today(company.timezone));
}

/**
 * Confirms a proposed attribution: active, confirmed_at now. Refused when it was rejected,
 * or when another partner holds the customer with an active attribution overlapping it. An
 * active one is answered unchanged.
 */
export function confirmAttribution(deps: Deps, id: string, by = 'cli'): Promise<DecidedAttribution> {
  return inTransaction(deps.db, async (trx) => {
    const row = await lockedAttribution(trx, id);
    if (row.status === 'rejected') throw new AttributionDecisionError(`attribution ${id} was rejected and cannot be confirmed`);
    if (row.status === 'active') return { attribution: await view(trx, deps.clock, row), changed: false };
    const overlapping = await findOverlappingAttributions(trx, row.company_id, {
      customerId: row.customer_id,
      partnerId: row.partner_id,
      excludeId: row.id,
      start: row.start_date,
      end: row.end_date,
    });
    const holder = overlapping.find((other) => other.status === 'active');
    if (holder) {
      throw new AttributionDecisionError(
        `attribution ${id} cannot be confirmed: another partner holds the customer in an overlapping period with attribution ${holder.id}; end that one first`,
      );
    }
    const now = deps.clock.now();
    const confirmed = await updateAttribution(trx, row.company_id, row.id, { status: 'active', confirmed_at: now, decided_by: by, decided_at: now }, now);
    return { attribution: await view(trx, deps.clock, confirmed), changed: true };
  });
}

/** Rejects a proposed attribution. An active one is refused (end it with end_date); a rejected one is answered unchanged. */
export function rejectAttribution(deps: Deps, id: string, by = 'cli'): Promise<DecidedAttribution> {
  return inTransaction(deps.db, async (trx) => {
    const row = await lockedAttribution(trx, id);
    if (row.status === 'active') throw new AttributionDecisionError(`attribution ${id} is confirmed and cannot be rejected; end it with end_date instead`);
    if (row.status === 'rejected') return { attribution: await view(trx, deps.clock, row), changed: false };
    const now = deps.clock.now();
    const rejected = await updateAttribution(trx, row.company_id, row.id, { status: 'rejected', confirmed_at: null, decided_by: by, decided_at: now }, now);
    return { attribution: await view(trx, deps.clock, rejected), changed: true };
  });
}
