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
 * Draws the next customer number and inserts the customer in one statement, so the
 * counter row is locked only for that statement and its commit, and a number is never
 * drawn without its customer. Returns undefined when nothing was inserted: the
 * reference exists (possibly created concurrently), the range row is not set up yet,
 * or the range is used up.
 */
export async function insertCustomerWithNextNumber(
  db: Database,
  range: NumberRange,
  row: { company_id: string; id: string; external_source: string; external_ref: string; created_at: Date } & CustomerFields,
): Promise<CustomerRow | undefined> {
  const result = await sql<CustomerRow>`
    with drawn as (
      update number_ranges set next_value = next_value + 1
      where company_id = ${row.company_id} and range_key = ${range.key} and next_value <= last_value
        and not exists (select 1 from customers c where c.company_id = ${row.company_id}
                        and c.external_source = ${row.external_source} and c.external_ref = ${row.external_ref})
      returning next_value - 1 as kundennummer
    )
    insert into customers (company_id, id, kundennummer, external_source, external_ref, name, email, street, house_number,
                           zip, city, country_code, vat_id, customer_type, leitweg_id, contact_name, created_at, updated_at)
    select ${row.company_id}, ${row.id}, kundennummer, ${row.external_source}, ${row.external_ref}, ${row.name}, ${row.email}::text,
           ${row.street}::text, ${row.house_number}::text, ${row.zip}::text, ${row.city}::text, ${row.country_code}::text,
           ${row.vat_id}::text, ${row.customer_type}, ${row.leitweg_id}::text, ${row.contact_name}::text,
           ${row.created_at}::timestamptz, ${row.created_at}::timestamptz
    from drawn
    on conflict (company_id, external_source, external_ref) do nothing
    returning *`.execute(db);
  return result.rows[0];
}
