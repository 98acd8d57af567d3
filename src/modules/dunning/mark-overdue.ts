import { type DailyTaskContext, recordEvents } from '../../jobs/index.ts';
import { nextChangeSeqs } from '../invoicing/invoice-changes.ts';
import { invoiceView } from '../invoicing/invoice-view.ts';
import { findInvoiceViewRows } from '../invoicing/invoices.repository.ts';
import { overdueCandidates, setOverdue } from './dunning.repository.ts';

/**
 * Daily task `invoices.overdue` (interface §3, design §5): every open invoice with an amount
 * left to pay whose due date lies before the run's date becomes `overdue` — the day after the due date, not on
 * it — with a change-feed position and the event `invoice.overdue`. The flag is set once,
 * so the event comes once per invoice, also when the task runs again or on later days.
 * Runs in the scheduler's transaction (ctx.db): the invoices are locked first, then the
 * feed positions drawn as one block (the order a payment takes too), then all are changed
 * and their events written in a few multi-row statements.
 */
export async function markOverdue(ctx: DailyTaskContext): Promise<{ marked: number }> {
  const { db: trx, companyId, clock } = ctx;
  const ids = (await overdueCandidates(trx, companyId, ctx.date)).map((row) => row.id);
  if (ids.length === 0) return { marked: 0 };
  const now = clock.now();
  const first = await nextChangeSeqs(trx, companyId, ids.length);
  await setOverdue(
    trx,
    companyId,
    ids.map((id, i) => ({ id, changeSeq: first + i })),
    now,
  );
  const views = new Map((await findInvoiceViewRows(trx, companyId, ids)).map((row) => [row.id, invoiceView(row)]));
  await recordEvents(
    trx,
    companyId,
    ids.map((id) => ({ type: 'invoice.overdue', subjectId: id, data: views.get(id) })),
    now,
  );
  return { marked: ids.length };
}
