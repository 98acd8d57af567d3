import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { type PartnerInvoiceView, type StatementRow, statementView } from './statement-view.ts';

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
  const invoices = await partnerInvoiceViews(
    db,
    companyId,
    rows.filter((r) => r.kind === 'partner_invoice' && r.type === 'statement').map((r) => r.id),
  );
  return rows.map((row) =>
    statementView(row, {
      partnerName: names.get(row.partner_id) ?? null,
      hasPdf: files.get(row.id)?.has('pdf') ?? false,
      hasXml: files.get(row.id)?.has('xml') ?? false,
      partnerInvoice: row.kind === 'partner_invoice' && row.type === 'statement' ? (invoices.get(row.id) ?? MISSING) : null,
    }),
  );
}

const MISSING: PartnerInvoiceView = {
  status: 'missing',
  number: null,
  invoice_date: null,
  net_cents: null,
  vat_cents: null,
  gross_cents: null,
  via: null,
  received_at: null,
  reasons: [],
};

/**
 * The partner's invoice of each request to invoice: accepted (recorded by a person or
 * uploaded by the partner), refused (the latest upload was refused and none is recorded,
 * with its reasons), or missing.
 */
async function partnerInvoiceViews(db: Database | Trx, companyId: string, ids: readonly string[]): Promise<Map<string, PartnerInvoiceView>> {
  const views = new Map<string, PartnerInvoiceView>();
  if (ids.length === 0) return views;
  const recorded = await db
    .selectFrom('commission_partner_invoices')
    .select(['statement_id', 'number', 'invoice_date', 'net_cents', 'vat_cents', 'gross_cents', 'recorded_by', 'recorded_at'])
    .where('company_id', '=', companyId)
    .where('statement_id', 'in', ids)
    .execute();
  for (const row of recorded)
    views.set(row.statement_id, {
      status: 'accepted',
      number: row.number,
      invoice_date: row.invoice_date,
      net_cents: Number(row.net_cents),
      vat_cents: Number(row.vat_cents),
      gross_cents: Number(row.gross_cents),
      via: row.recorded_by === null ? 'portal' : 'app',
      received_at: new Date(row.recorded_at).toISOString(),
      reasons: [],
    });
  const open = ids.filter((id) => !views.has(id));
  if (open.length === 0) return views;
  const refused = await db
    .selectFrom('partner_invoice_uploads')
    .select(['statement_id', 'received_at', 'reasons'])
    .distinctOn('statement_id')
    .where('company_id', '=', companyId)
    .where('statement_id', 'in', open)
    .orderBy('statement_id')
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const row of refused)
    views.set(row.statement_id, { ...MISSING, status: 'refused', via: 'portal', received_at: new Date(row.received_at).toISOString(), reasons: row.reasons });
  return views;
}
