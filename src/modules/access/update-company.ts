import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { AdminError } from './admin-error.ts';
import { assertCompanyLaw, companyLawAfter, parseCompanyFile } from './company-file.ts';

/**
 * Changes the company's issuing details to the keys present in the file; others stay. The
 * company-law rules are checked on the company as it would be afterwards, so a file that
 * changes only the phone number of a GmbH without register data is refused with the reason.
 */
export async function updateCompany(db: Database, clock: Clock, sealer: Sealer, companyId: string, companyFile: string) {
  const columns = parseCompanyFile(companyFile, sealer, { requireName: false });
  const row = await inTransaction(db, async (trx) => {
    const current = await trx
      .selectFrom('companies')
      .select(['legal_form', 'register_court', 'register_number', 'managing_directors'])
      .where('id', '=', companyId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new AdminError(`no company ${companyId}`);
    assertCompanyLaw(companyLawAfter(columns, current));
    return trx
      .updateTable('companies')
      .set({ ...columns, updated_at: clock.now() })
      .where('id', '=', companyId)
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow();
  });
  return { company_id: row.id, name: row.name, updated: Object.keys(columns).sort() };
}
