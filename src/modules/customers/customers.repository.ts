import type { Selectable } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { CustomersTable } from '../../db/schema.ts';
import type { Trx } from '../../db/transaction.ts';

export type CustomerRow = Selectable<CustomersTable>;

export function findCustomerByRef(db: Database | Trx, companyId: string, source: string, externalRef: string, forUpdate = false) {
  let query = db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_source', '=', source)
    .where('external_ref', '=', externalRef);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}
