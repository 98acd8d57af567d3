import type { Database } from '../../db/connection.ts';
import type { SmtpSettings } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { AdminError } from './admin-error.ts';
import { assertCompanyLaw, type CompanyColumns, companyLawAfter, parseCompanyFile } from './company-file.ts';

export type UpdateCompanyOptions = {
  /** The person making the change (the app, `--by`): the change is recorded in the audit trail, in the same transaction. */
  actor?: Actor;
  /**
   * An `smtp` object without `password` keeps the stored password (the app's mailbox form:
   * an empty password field). Without this option it removes it, as the company file says.
   */
  keepSmtpPassword?: boolean;
};

/**
 * Changes the company's issuing details to the keys present in the file; others stay. The
 * company-law rules are checked on the company as it would be afterwards, so a file that
 * changes only the phone number of a GmbH without register data is refused with the reason.
 * With an actor, one audit row holds the keys whose value changed (before and after; of the
 * mailbox only whether the password changed, never the password).
 */
export async function updateCompany(db: Database, clock: Clock, sealer: Sealer, companyId: string, companyFile: string, options: UpdateCompanyOptions = {}) {
  const columns = parseCompanyFile(companyFile, sealer, { requireName: false });
  const keepPassword = options.keepSmtpPassword === true && smtpWithoutPassword(companyFile);
  const row = await inTransaction(db, async (trx) => {
    const current = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).forUpdate().executeTakeFirst();
    if (!current) throw new AdminError(`no company ${companyId}`);
    assertCompanyLaw(companyLawAfter(columns, current));
    if (keepPassword && typeof columns.smtp === 'string') {
      const stored = parseJson<SmtpSettings>(current.smtp);
      columns.smtp = JSON.stringify({ ...(JSON.parse(columns.smtp) as SmtpSettings), password_sealed: stored?.password_sealed ?? null });
    }
    const now = clock.now();
    const updated = await trx
      .updateTable('companies')
      .set({ ...columns, updated_at: now })
      .where('id', '=', companyId)
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow();
    if (options.actor) {
      const change = changedValues(current as unknown as Record<string, unknown>, columns, sealer);
      const keys = Object.keys(change.after);
      if (keys.length > 0) {
        await recordAudit(trx, options.actor, now, {
          action: keys.every((key) => key === 'smtp' || key === 'password_changed') ? 'company.mailbox_changed' : 'company.settings_changed',
          subjectType: 'company',
          subjectId: companyId,
          before: change.before,
          after: change.after,
        });
      }
    }
    return updated;
  });
  return { company_id: row.id, name: row.name, updated: Object.keys(columns).sort() };
}

/** Whether the file's `smtp` is a mailbox without a `password` key. */
function smtpWithoutPassword(companyFile: string): boolean {
  const smtp = (JSON.parse(companyFile) as { smtp?: unknown }).smtp;
  return typeof smtp === 'object' && smtp !== null && !('password' in smtp);
}

function parseJson<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The company-file key of a column (the one column named differently). */
const fileKey = (column: string) => (column === 'eu_distance_threshold_exceeded' ? 'eu_distance_sales_threshold_exceeded' : column);

/** JSON with sorted keys: jsonb hands keys back in its own order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/** The mailbox as the audit trail may show it: everything but the password. */
function visibleSmtp(smtp: SmtpSettings | null): Omit<SmtpSettings, 'password_sealed'> | null {
  if (!smtp) return null;
  const { password_sealed: _secret, ...visible } = smtp;
  return visible;
}

function openPassword(sealer: Sealer, smtp: SmtpSettings | null): string | null | undefined {
  if (!smtp?.password_sealed) return null;
  try {
    return sealer.open(smtp.password_sealed);
  } catch {
    return undefined; // sealed with another instance secret: unknown, so any new one counts as a change
  }
}

/** The values of the changed keys before and after (company-file key names). */
function changedValues(current: Record<string, unknown>, columns: CompanyColumns, sealer: Sealer) {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(columns)) {
    if (column === 'smtp') {
      const old = parseJson<SmtpSettings>(current.smtp);
      const next = parseJson<SmtpSettings>(value);
      if (canonical(visibleSmtp(old)) !== canonical(visibleSmtp(next))) {
        before.smtp = visibleSmtp(old);
        after.smtp = visibleSmtp(next);
      }
      if ((old?.password_sealed ?? null) !== (next?.password_sealed ?? null)) {
        const oldPassword = openPassword(sealer, old);
        if (oldPassword === undefined || oldPassword !== openPassword(sealer, next)) after.password_changed = true;
      }
      continue;
    }
    const old = column === 'dunning' ? parseJson(current[column]) : current[column];
    const next = column === 'dunning' ? parseJson(value) : value;
    if (canonical(old) === canonical(next)) continue;
    before[fileKey(column)] = old ?? null;
    after[fileKey(column)] = next ?? null;
  }
  return { before, after };
}
