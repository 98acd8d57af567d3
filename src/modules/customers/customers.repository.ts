import { type Selectable, sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { NumberRange } from '../../db/number-ranges.ts';
import { reusableQuery } from '../../db/reusable-query.ts';
import type { CustomersTable } from '../../db/schema.ts';
import type { Trx } from '../../db/transaction.ts';

export type CustomerRow = Selectable<CustomersTable>;
export type CustomerFields = Omit<CustomerRow, 'company_id' | 'id' | 'kundennummer' | 'external_source' | 'external_ref' | 'created_at' | 'updated_at'>;

const selectByRef = reusableQuery((db, companyId: string, source: string, externalRef: string) =>
  db.selectFrom('customers').selectAll().where('company_id', '=', companyId).where('external_source', '=', source).where('external_ref', '=', externalRef),
);

export async function findCustomerByRef(db: Database | Trx, companyId: string, source: string, externalRef: string): Promise<CustomerRow | undefined> {
  return (await selectByRef(db, companyId, source, externalRef))[0];
}

/**
 * Inserts the customer with the next customer number in one statement, and counts the
 * number as drawn only when the insert took place. The counter row is locked (FOR UPDATE)
 * for that statement and its commit; a racer for the same row waits, then reads the counter
 * as the winner left it. A racer whose insert loses to a concurrent create of the same
 * reference (on conflict do nothing) draws nothing: numbers have no gaps under any number
 * of parallel creates (issue 24). Returns undefined when nothing was inserted: the reference
 * exists (possibly created concurrently), the range row is not set up yet, or the range is
 * used up.
 */
export async function insertCustomerWithNextNumber(
  db: Database,
  range: NumberRange,
  row: { company_id: string; id: string; external_source: string; external_ref: string; created_at: Date } & CustomerFields,
): Promise<CustomerRow | undefined> {
  // Read Committed: FOR UPDATE returns the counter row as last committed (a waiting racer sees
  // the winner's count); the counting UPDATE finds the row locked by this statement itself.
  const result = await sql<CustomerRow>`
    with drawn as (
      select next_value as kundennummer from number_ranges
      where company_id = ${row.company_id} and range_key = ${range.key} and next_value <= last_value
      for update
    ), inserted as (
      insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number,
                             zip, city, country_code, vat_id, customer_type, leitweg_id, contact_name, created_at, updated_at)
      select ${row.company_id}, ${row.id}, kundennummer, ${row.external_source}, ${row.external_ref}, ${row.name}, ${row.email}::text,
             ${row.street}::text, ${row.house_number}::text, ${row.zip}::text, ${row.city}::text, ${row.country_code}::text,
             ${row.vat_id}::text, ${row.customer_type}, ${row.leitweg_id}::text, ${row.contact_name}::text,
             ${row.created_at}::timestamptz, ${row.created_at}::timestamptz
      from drawn
      on conflict (company_id, external_source, external_ref) do nothing
      returning *
    ), counted as (
      update number_ranges set next_value = next_value + 1
      where company_id = ${row.company_id} and range_key = ${range.key} and exists (select 1 from inserted)
    )
    select * from inserted`.execute(db);
  return result.rows[0];
}
