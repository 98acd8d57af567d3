import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';

// The audit trail (GoBD traceability): one row per change a person makes, written in the
// transaction of the change itself, so a change and its record commit together or not at
// all. The table refuses updates and deletes (migration 0022).

export type Actor = { userId: string; organizationId: string; companyId: string | null };
/** A partner acting through the portal (its own partner account, of one company). */
export type PartnerActor = { partnerAccountId: string; organizationId: string; companyId: string };

export type AuditRecord = {
  action: string;
  subjectType: string;
  subjectId: string | null;
  /** The values before and after; secrets never (an IBAN masked, a password not at all). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
};

export async function recordAudit(trx: Trx | Database, actor: Actor | PartnerActor, at: Date, record: AuditRecord): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      organization_id: actor.organizationId,
      id: newId('aud'),
      company_id: actor.companyId,
      user_id: 'userId' in actor ? actor.userId : null,
      partner_account_id: 'partnerAccountId' in actor ? actor.partnerAccountId : null,
      at,
      action: record.action,
      subject_type: record.subjectType,
      subject_id: record.subjectId,
      before: record.before ? JSON.stringify(record.before) : null,
      after: record.after ? JSON.stringify(record.after) : null,
    })
    .execute();
}

export type AuditEntry = {
  seq: number;
  at: Date;
  /** The person's e-mail, or the partner account's when a partner acted (`actor`). */
  email: string;
  actor: 'person' | 'partner';
  action: string;
  subject_type: string;
  subject_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
};

/** The company's trail (and the organisation-wide rows), newest first, by key. */
export async function listAudit(
  db: Database,
  organizationId: string,
  companyId: string,
  options: { beforeSeq?: number; limit?: number } = {},
): Promise<AuditEntry[]> {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', 'u.id', 'a.user_id')
    .leftJoin('partner_accounts as pa', (join) => join.onRef('pa.company_id', '=', 'a.company_id').onRef('pa.id', '=', 'a.partner_account_id'))
    .select(['a.seq', 'a.at', 'a.action', 'a.subject_type', 'a.subject_id', 'a.before', 'a.after'])
    .select((eb) => [eb.fn.coalesce('u.email', 'pa.email').as('email'), eb('a.user_id', 'is', null).as('by_partner')])
    .where('a.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('a.company_id', '=', companyId), eb('a.company_id', 'is', null)]));
  if (options.beforeSeq !== undefined) query = query.where('a.seq', '<', options.beforeSeq);
  const rows = await query
    .orderBy('a.seq', 'desc')
    .limit(options.limit ?? 50)
    .execute();
  return rows.map(({ by_partner, email, ...row }) => ({
    ...row,
    email: email ?? '',
    actor: by_partner ? ('partner' as const) : ('person' as const),
    before: parseJson(row.before),
    after: parseJson(row.after),
  }));
}

function parseJson(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
}
