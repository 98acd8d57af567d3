import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { type StatementRow, statementView } from './statement-view.ts';

// Plain queries of statements.

export function findStatement(db: Database | Trx, companyId: string | null, id: string, forUpdate = false): Promise<StatementRow | undefined> {
  let query = db.selectFrom('commission_statements').selectAll().where('id', '=', id);
  if (companyId !== null) query = query.where('company_id', '=', companyId);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst() as Promise<StatementRow | undefined>;
}

/** Which files each statement has. */
export async function fileKinds(db: Database | Trx, companyId: string, ids: readonly string[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('commission_statement_files')
    .select(['statement_id', 'kind'])
    .where('company_id', '=', companyId)
    .where('statement_id', 'in', ids)
    .execute();
  for (const row of rows) out.set(row.statement_id, (out.get(row.statement_id) ?? new Set()).add(row.kind));
  return out;
}

export async function partnerNames(db: Database | Trx, companyId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('commission_partners').select(['id', 'name']).where('company_id', '=', companyId).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The API views of statement rows. */
export async function viewsOf(db: Database | Trx, companyId: string, rows: readonly StatementRow[]) {
  const files = await fileKinds(
    db,
    companyId,
    rows.map((r) => r.id),
  );
  const names = await partnerNames(db, companyId, [...new Set(rows.map((r) => r.partner_id))]);
  return rows.map((row) =>
    statementView(row, {
      partnerName: names.get(row.partner_id) ?? null,
      hasPdf: files.get(row.id)?.has('pdf') ?? false,
      hasXml: files.get(row.id)?.has('xml') ?? false,
    }),
  );
}
