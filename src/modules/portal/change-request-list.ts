import type { Database } from '../../db/connection.ts';
import type { PartnerChangeKind, PartnerChangeStatus, PartnerChangeValues } from '../../db/schema-portal.ts';
import { shownValues } from './change-request-values.ts';

// A partner's change requests as the portal and the app show them: the values as shown
// (the IBAN masked; the sealed one never leaves the module), who asked and who decided.

/** A request as the pages show it: values as shown (the IBAN masked). */
export type PartnerChangeRequest = {
  id: string;
  partnerId: string;
  kind: PartnerChangeKind;
  requested: PartnerChangeValues;
  current: PartnerChangeValues;
  status: PartnerChangeStatus;
  requestedAt: Date;
  /** The partner account that asked. */
  requestedBy: string;
  decidedAt: Date | null;
  /** The admin's e-mail address (confirmed, rejected). */
  decidedBy: string | null;
  decisionNote: string | null;
};

function listQuery(db: Database, companyId: string) {
  return db
    .selectFrom('partner_change_requests as r')
    .innerJoin('partner_accounts as a', (join) => join.onRef('a.company_id', '=', 'r.company_id').onRef('a.id', '=', 'r.account_id'))
    .leftJoin('users as u', 'u.id', 'r.decided_by')
    .select(['r.id', 'r.partner_id', 'r.kind', 'r.requested', 'r.current', 'r.status', 'r.requested_at', 'r.decided_at', 'r.decision_note'])
    .select(['a.email as requested_by', 'u.email as decided_by'])
    .where('r.company_id', '=', companyId);
}

type Row = Awaited<ReturnType<ReturnType<typeof listQuery>['executeTakeFirstOrThrow']>>;

const requestView = (row: Row): PartnerChangeRequest => ({
  id: row.id,
  partnerId: row.partner_id,
  kind: row.kind,
  requested: shownValues(row.kind, row.requested),
  current: shownValues(row.kind, row.current),
  status: row.status,
  requestedAt: row.requested_at,
  requestedBy: row.requested_by,
  decidedAt: row.decided_at,
  decidedBy: row.decided_by,
  decisionNote: row.decision_note,
});

/** One request of the company, or null. */
export async function partnerChangeRequest(db: Database, companyId: string, requestId: string): Promise<PartnerChangeRequest | null> {
  const row = await listQuery(db, companyId).where('r.id', '=', requestId).executeTakeFirst();
  return row ? requestView(row) : null;
}

/** The partner's requests, newest first (the pending ones only, or the latest `limit`, default 20). */
export async function partnerChangeRequests(
  db: Database,
  companyId: string,
  partnerId: string,
  options: { pendingOnly?: boolean; limit?: number } = {},
): Promise<PartnerChangeRequest[]> {
  let query = listQuery(db, companyId).where('r.partner_id', '=', partnerId);
  if (options.pendingOnly) query = query.where('r.status', '=', 'pending');
  const rows = await query
    .orderBy('r.requested_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(options.limit ?? 20)
    .execute();
  return rows.map(requestView);
}
