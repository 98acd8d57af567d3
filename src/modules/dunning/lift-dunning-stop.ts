import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { DunningActionError } from './dunning-stop-error.ts';

// A person lifts a Mahnsperre (issue 25): from the next daily run on, the invoice (or the
// customer's invoices) is dunned again by the usual rules; a notice cancelled by the stop is
// not revived (the next run makes a new one with the amounts of its day). Idempotent: a stop
// lifted already is answered with `lifted: false` and nothing written. Audit row, no event.

export type LiftedStop = { stopId: string; lifted: boolean; label: string; invoiceId: string | null; customerId: string | null };

export async function liftDunningStop(deps: { db: Database; clock: Clock }, companyId: string, stopId: string, actor: Actor): Promise<LiftedStop> {
  return inTransaction(deps.db, async (trx) => {
    const stop = await trx
      .selectFrom('dunning_stops as s')
      .leftJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.id', '=', 's.invoice_id'))
      .leftJoin('customers as c', (join) => join.onRef('c.company_id', '=', 's.company_id').onRef('c.id', '=', 's.customer_id'))
      .select(['s.id', 's.invoice_id', 's.customer_id', 's.reason', 's.lifted_at', 'i.number', 'c.name'])
      .where('s.company_id', '=', companyId)
      .where('s.id', '=', stopId)
      .forUpdate('s')
      .executeTakeFirst();
    if (!stop) throw new DunningActionError('stop_not_found', 'Diese Mahnsperre gibt es nicht.');
    const label = stop.number ?? stop.name ?? '';
    const result = { stopId: stop.id, label, invoiceId: stop.invoice_id, customerId: stop.customer_id };
    if (stop.lifted_at) return { ...result, lifted: false };
    const now = deps.clock.now();
    await trx
      .updateTable('dunning_stops')
      .set({ lifted_at: now, lifted_by: actor.userId })
      .where('company_id', '=', companyId)
      .where('id', '=', stop.id)
      .where('lifted_at', 'is', null)
      .execute();
    await recordAudit(trx, actor, now, {
      action: 'dunning.stop_lifted',
      subjectType: stop.invoice_id ? 'invoice' : 'customer',
      subjectId: stop.invoice_id ?? stop.customer_id,
      before: { stop_id: stop.id, reason: stop.reason },
      after: stop.invoice_id ? { invoice_number: label } : { customer: label },
    });
    return { ...result, lifted: true };
  });
}
