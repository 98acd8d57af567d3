import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { AdminError } from './admin-error.ts';
import { parseCompanyFile } from './company-file.ts';

/** Changes the company's issuing details to the keys present in the file; others stay. */
export async function updateCompany(db: Database, clock: Clock, sealer: Sealer, companyId: string, companyFile: string) {
  const columns = parseCompanyFile(companyFile, sealer, { requireName: false });
  const row = await db
    .updateTable('companies')
    .set({ ...columns, updated_at: clock.now() })
    .where('id', '=', companyId)
    .returning(['id', 'name'])
    .executeTakeFirst();
  if (!row) throw new AdminError(`no company ${companyId}`);
  return { company_id: row.id, name: row.name, updated: Object.keys(columns).sort() };
}
