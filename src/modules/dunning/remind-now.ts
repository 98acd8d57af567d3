import type { Database } from '../../db/connection.ts';
import type { DunningLevel } from '../../db/schema-dunning.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type Clock, calendarDate } from '../../shared/clock.ts';
import { addDays } from '../../shared/dates.ts';
import { formatDate } from '../../shared/german-format.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { sellerOf } from '../invoicing/build-document.ts';
import { activeBaseRates } from './base-rates.ts';
import { createNotice } from './create-notices.ts';
import { noticeCandidateQuery, OPEN_STATUSES, sentNotices } from './dunning.repository.ts';
import { DunningActionError } from './dunning-stop-error.ts';
import { noticeTitle } from './notice-document.ts';
import { policyOf } from './policy.ts';

// "Erinnerung jetzt senden" (issue 25): a person makes the next notice of one overdue
// invoice today instead of waiting for the daily run — the payment reminder as soon as the
// invoice is overdue (without the policy's reminder_days), a further level once the
// policy's interval after the last notice has passed. The notice is made by the daily
// task's own code (createNotice: fees, interest, level, frozen document, send job) in one
// transaction with its audit row. Idempotent: while a notice of the invoice waits to be
// mailed, a second request (double click, reload, second tab) returns that one and makes
// nothing; the daily run of the same day finds the level taken.

export type RemindedNow = { noticeId: string; created: boolean; level: DunningLevel; invoiceNumber: string };

export async function remindNow(deps: { db: Database; clock: Clock }, companyId: string, invoiceId: string, actor: Actor): Promise<RemindedNow> {
  return inTransaction(deps.db, async (trx) => {
    // The invoice row first (the order of the send job), then its notices.
    const row = await trx
      .selectFrom('invoices')
      .select(['id', 'number', 'status', 'type', 'customer_id'])
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (row?.type !== 'invoice' || !row.number) throw new DunningActionError('invoice_not_found', 'Diese Rechnung gibt es nicht.');
    const number = row.number;
    const pending = await trx
      .selectFrom('dunning_notices')
      .select(['id', 'level'])
      .where('company_id', '=', companyId)
      .where('invoice_id', '=', invoiceId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (pending) return { noticeId: pending.id, created: false, level: pending.level, invoiceNumber: number };
    if (!OPEN_STATUSES.includes(row.status))
      throw new DunningActionError('invoice_closed', `Die Rechnung ${number} ist nicht offen; sie wird nicht gemahnt.`, { number, status: row.status });

    const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const policy = policyOf(company.dunning);
    if (!policy.enabled)
      throw new DunningActionError('dunning_disabled', 'Das Mahnwesen ist für diese Firma ausgeschaltet (Einstellung „dunning“ der Firma).', { number });
    const now = deps.clock.now();
    const today = calendarDate(now, company.timezone);
    const invoice = await noticeCandidateQuery(trx, companyId, invoiceId).executeTakeFirst();
    if (!invoice) throw new DunningActionError('stopped', `Für die Rechnung ${number} gilt eine Mahnsperre.`, { number });
    if (!invoice.due_date || invoice.due_date >= today || invoice.amount_paid_cents >= invoice.total_gross_cents)
      throw new DunningActionError('not_overdue', `Die Rechnung ${number} ist noch nicht überfällig.`, { number, due: invoice.due_date ?? '' });
    if (invoice.dunning_level !== null) {
      if (invoice.dunning_level >= policy.levels)
        throw new DunningActionError('last_level', `Zu Rechnung ${number} ist die letzte Mahnstufe bereits versendet.`, { number });
      const next = addDays(invoice.last_dunning_on!, policy.interval_days);
      if (next > today)
        throw new DunningActionError(
          'too_early',
          `Die nächste Mahnstufe zu Rechnung ${number} ist erst ab dem ${formatDate(next)} fällig (${policy.interval_days} Tage nach dem letzten Schreiben).`,
          { number, date: next },
        );
    }
    const history = await sentNotices(trx, companyId, [invoiceId]);
    const made = await createNotice(
      trx,
      companyId,
      { policy, seller: sellerOf(company), date: today, now, baseRates: activeBaseRates().table },
      invoice,
      history.get(invoiceId) ?? [],
    );
    if (!made) throw new DunningActionError('not_overdue', `Zu Rechnung ${number} ist nichts mehr offen.`, { number, due: invoice.due_date });
    await recordAudit(trx, actor, now, {
      action: 'dunning.notice_now',
      subjectType: 'invoice',
      subjectId: invoiceId,
      after: { notice_id: made.noticeId, invoice_number: number, level: made.level, title: noticeTitle(made.level) },
    });
    return { noticeId: made.noticeId, created: true, level: made.level, invoiceNumber: number };
  });
}
