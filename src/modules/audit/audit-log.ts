import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';

// The audit trail (GoBD traceability): one row per change a person makes, written in the
// transaction of the change itself, so a change and its record commit together or not at
// all. The table refuses updates and deletes (migration 0022).

export type Actor = { userId: string; organizationId: string; companyId: string | null };

export type AuditRecord = {
  action: string;
  subjectType: string;
  subjectId: string | null;
  /** The values before and after; secrets never (an IBAN masked, a password not at all). */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
};

export async function recordAudit(trx: Trx | Database, actor: Actor, at: Date, record: AuditRecord): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      organization_id: actor.organizationId,
      id: newId('aud'),
      company_id: actor.companyId,
      user_id: actor.userId,
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
  email: string;
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
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.seq', 'a.at', 'u.email', 'a.action', 'a.subject_type', 'a.subject_id', 'a.before', 'a.after'])
    .where('a.organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('a.company_id', '=', companyId), eb('a.company_id', 'is', null)]));
  if (options.beforeSeq !== undefined) query = query.where('a.seq', '<', options.beforeSeq);
  const rows = await query
    .orderBy('a.seq', 'desc')
    .limit(options.limit ?? 50)
    .execute();
  return rows.map((row) => ({
    ...row,
    before: parseJson(row.before),
    after: parseJson(row.after),
  }));
}

function parseJson(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
}
