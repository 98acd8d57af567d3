import { inTransaction } from '../../db/transaction.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { lockAppDraft } from './create-app-draft.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';

// A person discards a draft they (or a colleague) wrote in the app. A draft is no
// bookkeeping document: it never had a number, a booking, a file or an event, so it goes
// without a trace in the number range — only the audit trail keeps that it existed.
// Drafts of the API stay: the caller's system holds them, and the API shows them.

export async function discardAppDraft(deps: Pick<InvoicingDeps, 'db' | 'clock'>, companyId: string, invoiceId: string, actor: Actor): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const before = await lockAppDraft(trx, companyId, invoiceId);
    await trx.deleteFrom('invoice_lines').where('company_id', '=', companyId).where('invoice_id', '=', invoiceId).execute();
    await trx.deleteFrom('invoices').where('company_id', '=', companyId).where('id', '=', invoiceId).execute();
    await recordAudit(trx, actor, deps.clock.now(), { action: 'invoice.draft_discarded', subjectType: 'invoice', subjectId: invoiceId, before, after: null });
  });
}
