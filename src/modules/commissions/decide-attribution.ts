import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { type AttributionView, attributionView } from './attribution-view.ts';
import {
  type AttributionRow,
  findAttributionById,
  findNamedAttribution,
  findOverlappingAttributions,
  lockCustomer,
  updateAttribution,
} from './attributions.repository.ts';
import { ledgerFollowsAttribution } from './ledger/ledger-follows.ts';

// The person-side steps of an attribution (design §2 `kontor admin attribution
// confirm|reject`, §7): a proposed attribution is confirmed (active from then on) or
// rejected (it stays rejected). An active one is ended with end_date, not rejected. A
// refusal is an AttributionDecisionError with one sentence. A person acting in the app (or
// the CLI's --by) passes `actor`: the decision is then limited to the actor's company and
// its audit row is written in the same transaction.

/** Why a decision was refused (the app words it in German by this code). */
export type AttributionRefusal = 'not_found' | 'rejected_not_confirmable' | 'customer_held' | 'active_not_rejectable';

export class AttributionDecisionError extends Error {
  readonly refusal: AttributionRefusal | null;
  constructor(message: string, refusal: AttributionRefusal | null = null) {
    super(message);
    this.name = 'AttributionDecisionError';
    this.refusal = refusal;
  }
}

type Deps = { db: Database; clock: Clock };
export type DecidedAttribution = { attribution: AttributionView; changed: boolean };

/** The attribution, its customer locked first (the order every attribution write keeps), read again under the lock. */
async function lockedAttribution(trx: Trx, id: string, actor?: Actor): Promise<AttributionRow> {
  const found = await findAttributionById(trx, id);
  if (!found || (actor && found.company_id !== actor.companyId)) throw new AttributionDecisionError(`no attribution ${id}`, 'not_found');
  await lockCustomer(trx, found.company_id, found.customer_id);
  return (await findAttributionById(trx, id, true)) as AttributionRow;
}

async function view(trx: Trx, clock: Clock, row: AttributionRow): Promise<AttributionView> {
  const company = await trx.selectFrom('companies').select('timezone').where('id', '=', row.company_id).executeTakeFirstOrThrow();
  return attributionView((await findNamedAttribution(trx, row))!, clock.today(company.timezone));
}

async function audit(trx: Trx, actor: Actor | undefined, now: Date, action: string, before: AttributionRow, after: AttributionRow): Promise<void> {
  if (!actor) return;
  const state = (row: AttributionRow) => ({ status: row.status, start_date: row.start_date, end_date: row.end_date });
  await recordAudit(trx, actor, now, {
    action,
    subjectType: 'commission_attribution',
    subjectId: before.id,
    before: state(before),
    after: { ...state(after), partner_id: after.partner_id, customer_id: after.customer_id, agreement_id: after.agreement_id },
  });
}

/**
 * Confirms a proposed attribution: active, confirmed_at now. Refused when it was rejected,
 * or when another partner holds the customer with an active attribution overlapping it. An
 * active one is answered unchanged.
 */
export function confirmAttribution(deps: Deps, id: string, by = 'cli', actor?: Actor): Promise<DecidedAttribution> {
  return inTransaction(deps.db, async (trx) => {
    const row = await lockedAttribution(trx, id, actor);
    if (row.status === 'rejected') throw new AttributionDecisionError(`attribution ${id} was rejected and cannot be confirmed`, 'rejected_not_confirmable');
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
        'customer_held',
      );
    }
    const now = deps.clock.now();
    const confirmed = await updateAttribution(trx, row.company_id, row.id, { status: 'active', confirmed_at: now, decided_by: by, decided_at: now }, now);
    // Confirmed: the customer's revenue since the attribution's start earns (issue 24).
    await ledgerFollowsAttribution(trx, row.company_id, row.customer_id, row.start_date, now);
    await audit(trx, actor, now, 'attribution.confirmed', row, confirmed);
    return { attribution: await view(trx, deps.clock, confirmed), changed: true };
  });
}

/** Rejects a proposed attribution. An active one is refused (end it with end_date); a rejected one is answered unchanged. */
export function rejectAttribution(deps: Deps, id: string, by = 'cli', actor?: Actor): Promise<DecidedAttribution> {
  return inTransaction(deps.db, async (trx) => {
    const row = await lockedAttribution(trx, id, actor);
    if (row.status === 'active')
      throw new AttributionDecisionError(`attribution ${id} is confirmed and cannot be rejected; end it with end_date instead`, 'active_not_rejectable');
    if (row.status === 'rejected') return { attribution: await view(trx, deps.clock, row), changed: false };
    const now = deps.clock.now();
    const rejected = await updateAttribution(trx, row.company_id, row.id, { status: 'rejected', confirmed_at: null, decided_by: by, decided_at: now }, now);
    await audit(trx, actor, now, 'attribution.rejected', row, rejected);
    return { attribution: await view(trx, deps.clock, rejected), changed: true };
  });
}
