import type { Database } from '../../db/connection.ts';
import type { EntryStatus } from '../../db/schema-commissions.ts';
import { AppError, validationFailed } from '../../shared/errors.ts';
import { findPartnerByRef } from './partners.repository.ts';

// GET /commission-entries: the company's ledger in writing order (seq), optionally of one
// partner and one status, paged by a cursor over seq.

export type PartnerListQuery = { partner_source?: string; partner_ref?: string; status?: string; limit?: number; cursor?: string };

export const encodeSeqCursor = (seq: number) => Buffer.from(`s${seq}`).toString('base64url');

export function decodeSeqCursor(cursor: string): number {
  const seq = /^s(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))?.[1];
  if (!seq) throw validationFailed([{ loc: ['query', 'cursor'], type: 'format', msg: 'Input is not a cursor of this list' }]);
  return Number(seq);
}

/** The partner a list is limited to: undefined for all; 404 for an unknown one. */
export async function listedPartner(db: Database, companyId: string, query: PartnerListQuery): Promise<string | undefined> {
  if ((query.partner_source === undefined) !== (query.partner_ref === undefined)) {
    const missing = query.partner_source === undefined ? 'partner_source' : 'partner_ref';
    throw validationFailed([{ loc: ['query', missing], type: 'missing', msg: 'partner_source and partner_ref go together' }]);
  }
  if (query.partner_source === undefined) return undefined;
  const partner = await findPartnerByRef(db, companyId, query.partner_source, query.partner_ref as string);
  if (!partner) throw new AppError('commission.partner_not_found');
  return partner.id;
}

export async function listCommissionEntries(db: Database, companyId: string, query: PartnerListQuery) {
  const limit = query.limit ?? 50;
  const partnerId = await listedPartner(db, companyId, query);
  let q = db
    .selectFrom('commission_entries as e')
    .innerJoin('commission_partners as p', (join) => join.onRef('p.company_id', '=', 'e.company_id').onRef('p.id', '=', 'e.partner_id'))
    .leftJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'e.company_id').onRef('c.id', '=', 'e.customer_id'))
    .select([
      'e.seq',
      'e.id',
      'e.partner_id',
      'p.name as partner_name',
      'e.agreement_id',
      'e.customer_id',
      'c.name as customer_name',
      'e.revenue_event_id',
      'e.source_type',
      'e.source_id',
      'e.service_period_start',
      'e.paid_at',
      'e.contract_month',
      'e.percent',
      'e.basis_cents',
      'e.amount_cents',
      'e.status',
      'e.statement_id',
    ])
    .where('e.company_id', '=', companyId)
    .orderBy('e.seq')
    .limit(limit + 1);
  if (partnerId) q = q.where('e.partner_id', '=', partnerId);
  if (query.status) q = q.where('e.status', '=', query.status as EntryStatus);
  if (query.cursor) q = q.where('e.seq', '>', decodeSeqCursor(query.cursor));
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(({ seq: _seq, ...row }) => ({
      ...row,
      paid_at: new Date(row.paid_at).toISOString(),
      percent: Number(row.percent),
      basis_cents: Number(row.basis_cents),
      amount_cents: Number(row.amount_cents),
    })),
    next_cursor: rows.length > limit && last ? encodeSeqCursor(Number(last.seq)) : null,
  };
}
