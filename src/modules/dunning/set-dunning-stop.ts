import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { DunningActionError, stopReason } from './dunning-stop-error.ts';

// A person sets a Mahnsperre (issue 25) for one invoice or for all invoices of a customer,
// with a reason: from then on the daily dunning task and "Erinnerung jetzt senden" create
// no notice for them (overdue marking goes on), until the stop is lifted
// (lift-dunning-stop.ts). Notices made but not yet mailed are cancelled with the reason
// `dunning_stop` in the same transaction; one whose mail is under way (mail_started_at)
// is left to its job. Idempotent: a stop in force is returned as it is (the unique partial
// indexes of migrations/0041 allow one per invoice and per customer). Audit row, no event:
// a back-office fact.

export type StopTarget = { invoiceId: string } | { customerId: string };

export type SetStop = {
  stopId: string;
  /** False when a stop was in force already (nothing written). */
  created: boolean;
  /** The invoice number or the customer's name, for the message. */
  label: string;
  /** How many notices not yet mailed were cancelled. */
  cancelled: number;
};

export const STOP_CANCEL_REASON = 'dunning_stop: a Mahnsperre was set before the notice was mailed';

export async function setDunningStop(
  deps: { db: Database; clock: Clock },
  companyId: string,
  target: StopTarget,
  rawReason: string,
  actor: Actor,
): Promise<SetStop> {
  const reason = stopReason(rawReason);
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const subject = await lockSubject(trx, companyId, target);
    const existing = await trx
      .selectFrom('dunning_stops')
      .select('id')
      .where('company_id', '=', companyId)
      .where('lifted_at', 'is', null)
      .$if('invoiceId' in target, (q) => q.where('invoice_id', '=', subject.id))
      .$if('customerId' in target, (q) => q.where('customer_id', '=', subject.id))
      .executeTakeFirst();
    if (existing) return { stopId: existing.id, created: false, label: subject.label, cancelled: 0 };
    const id = newId('dst');
    const inserted = await trx
      .insertInto('dunning_stops')
      .values({
        company_id: companyId,
        id,
        invoice_id: 'invoiceId' in target ? subject.id : null,
        customer_id: 'customerId' in target ? subject.id : null,
        reason,
        set_by: actor.userId,
        set_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) {
      // A second tab set it at the same instant: that one holds.
      const other = await trx
        .selectFrom('dunning_stops')
        .select('id')
        .where('company_id', '=', companyId)
        .where('lifted_at', 'is', null)
        .where('invoiceId' in target ? 'invoice_id' : 'customer_id', '=', subject.id)
        .executeTakeFirstOrThrow();
      return { stopId: other.id, created: false, label: subject.label, cancelled: 0 };
    }
    const cancelled = await trx
      .updateTable('dunning_notices')
      .set({ status: 'cancelled', reason: STOP_CANCEL_REASON, updated_at: now })
      .where('company_id', '=', companyId)
      .where('status', '=', 'pending')
      .where('mail_started_at', 'is', null)
      .$if('invoiceId' in target, (q) => q.where('invoice_id', '=', subject.id))
      .$if('customerId' in target, (q) =>
        q.where('invoice_id', 'in', sql<string>`(select i.id from invoices i where i.company_id = ${companyId} and i.customer_id = ${subject.id})`),
      )
      .executeTakeFirst();
    const count = Number(cancelled.numUpdatedRows);
    await recordAudit(trx, actor, now, {
      action: 'dunning.stop_set',
      subjectType: 'invoiceId' in target ? 'invoice' : 'customer',
      subjectId: subject.id,
      after: { stop_id: id, reason, ...('invoiceId' in target ? { invoice_number: subject.label } : { customer: subject.label }), cancelled_notices: count },
    });
    return { stopId: id, created: true, label: subject.label, cancelled: count };
  });
}

/** The invoice (issued, of type invoice) or the customer, locked against a notice made meanwhile. */
async function lockSubject(trx: Trx, companyId: string, target: StopTarget): Promise<{ id: string; label: string }> {
  if ('invoiceId' in target) {
    const invoice = await trx
      .selectFrom('invoices')
      .select(['id', 'number'])
      .where('company_id', '=', companyId)
      .where('id', '=', target.invoiceId)
      .where('type', '=', 'invoice')
      .where('number', 'is not', null)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!invoice) throw new DunningActionError('invoice_not_found', 'Diese Rechnung gibt es nicht.');
    return { id: invoice.id, label: invoice.number ?? invoice.id };
  }
  const customer = await trx
    .selectFrom('customers')
    .select(['id', 'name'])
    .where('company_id', '=', companyId)
    .where('id', '=', target.customerId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!customer) throw new DunningActionError('customer_not_found', 'Diesen Kunden gibt es nicht.');
  return { id: customer.id, label: customer.name };
}
