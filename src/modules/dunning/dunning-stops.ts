import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';

// What the app and `kontor admin dunning stops` show of the Mahnsperren (issue 25): those in
// force, with what they are for, the reason, who set them and when.

export type StopRow = {
  id: string;
  invoice_id: string | null;
  invoice_number: string | null;
  customer_id: string | null;
  customer_name: string;
  reason: string;
  set_at: Date;
  set_by_email: string;
};

function stopRows(db: Database, companyId: string) {
  return (
    db
      .selectFrom('dunning_stops as s')
      .innerJoin('users as u', 'u.id', 's.set_by')
      .leftJoin('invoices as i', (join) => join.onRef('i.company_id', '=', 's.company_id').onRef('i.id', '=', 's.invoice_id'))
      // The stop's customer, or its invoice's: one primary-key look-up each.
      .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 's.company_id').on(sql<boolean>`c.id = coalesce(s.customer_id, i.customer_id)`))
      .select([
        's.id',
        's.invoice_id',
        'i.number as invoice_number',
        's.customer_id',
        'c.name as customer_name',
        's.reason',
        's.set_at',
        'u.email as set_by_email',
      ])
      .where('s.company_id', '=', companyId)
      .where('s.lifted_at', 'is', null)
  );
}

/** The stops in force, newest first (at most `limit`). */
export async function listDunningStops(db: Database, companyId: string, limit = 200): Promise<StopRow[]> {
  return (await stopRows(db, companyId).orderBy('s.set_at', 'desc').orderBy('s.id', 'desc').limit(limit).execute()) as StopRow[];
}

/** The stops that hold for an invoice: its own and its customer's. */
export async function stopsForInvoice(db: Database, companyId: string, invoiceId: string): Promise<StopRow[]> {
  return (await stopRows(db, companyId)
    .where((eb) =>
      eb.or([
        eb('s.invoice_id', '=', invoiceId),
        eb('s.customer_id', '=', eb.selectFrom('invoices as x').select('x.customer_id').where('x.company_id', '=', companyId).where('x.id', '=', invoiceId)),
      ]),
    )
    .orderBy('s.set_at')
    .execute()) as StopRow[];
}

/** The stop in force for a customer (all of its invoices), if any. */
export async function stopForCustomer(db: Database, companyId: string, customerId: string): Promise<StopRow | null> {
  return ((await stopRows(db, companyId).where('s.customer_id', '=', customerId).executeTakeFirst()) as StopRow | undefined) ?? null;
}
