import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction } from '../../db/transaction.ts';
import { defineJob, PermanentJobError } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import type { InvoiceDocument } from './document.ts';
import { filesWrite, type InvoiceFiles, readFiles, storeFiles } from './invoice-files.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { sendInvoice } from './send-invoice.ts';

// Documents rendered after the issuing commit. An invoice a Kontor process issues itself
// (the contract billing run) commits with a job `invoices.render` instead of its files:
// the issuing transaction stays short (the number range is held for milliseconds, not for
// a rendering), and the renderings of many invoices run side by side on the render
// threads. The files are a pure function of the stored snapshot, so rendering them later,
// or twice after a crash, gives the same documents; the first stored wins. Until the job
// ran, GET …/pdf renders on demand (renderStoredDocuments).

declare module '../../jobs/registry.ts' {
  interface JobServices {
    /** The invoice renderers, booking and mailboxes (serve, worker, jobs run). */
    invoicing?: Omit<InvoicingDeps, 'db' | 'clock'>;
  }
}

export const RENDER_INVOICE_JOB = 'invoices.render';

export type RenderInvoicePayload = { invoice_id: string; send: boolean };

/** The stored files of an issued invoice, rendered from its snapshot and stored first when missing. */
export async function renderStoredDocuments(deps: Pick<InvoicingDeps, 'db' | 'render'>, companyId: string, invoiceId: string): Promise<InvoiceFiles | null> {
  const stored = await readFiles(deps.db, companyId, invoiceId);
  if (stored.pdf) return { pdf: stored.pdf, xml: stored.xml };
  const invoice = await deps.db.selectFrom('invoices').select(['document']).where('company_id', '=', companyId).where('id', '=', invoiceId).executeTakeFirst();
  const doc = invoice?.document as InvoiceDocument | null | undefined;
  if (!doc) return null;
  const files = await deps.render(doc);
  await pauseAt('invoice-render.before-store');
  await storeMissingFiles(deps.db, companyId, invoiceId, files);
  return files;
}

/** Stores the files unless another process stored them first (theirs are the same bytes). */
async function storeMissingFiles(db: Database, companyId: string, invoiceId: string, files: InvoiceFiles) {
  await inTransaction(db, (trx) => storeFiles(trx, companyId, invoiceId, files, { ifMissing: true }));
}

defineJob<RenderInvoicePayload>({
  name: RENDER_INVOICE_JOB,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['invoice_id', 'send'],
    properties: { invoice_id: { type: 'string', pattern: '^inv_[0-9a-z]{26}$' }, send: { type: 'boolean' } },
  },
  async handler({ db, clock, job, services, log, doneWrite }) {
    const invoicing = services.invoicing;
    // Without renderers this process cannot do it; the job is retried (by one that has them).
    if (!invoicing) throw new Error('this process has no invoice renderers');
    const companyId = job.company_id;
    if (!companyId) throw new PermanentJobError('the job names no company');
    const invoiceId = job.payload.invoice_id;
    // One read: the snapshot, and whether its files are stored already (a job run twice, a GET …/pdf first).
    const invoice = await db
      .selectFrom('invoices')
      .select([
        'document',
        sql<boolean>`exists (select 1 from invoice_files f where f.company_id = invoices.company_id and f.invoice_id = invoices.id and f.kind = 'pdf')`.as(
          'pdf_stored',
        ),
      ])
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .executeTakeFirst();
    const doc = invoice?.document as InvoiceDocument | null | undefined;
    if (!invoice || !doc) throw new PermanentJobError(`invoice ${invoiceId} has no issued document`);
    if (!invoice.pdf_stored) {
      const files = await invoicing.render(doc);
      await pauseAt('invoice-render.before-store');
      // Nothing follows when it is not mailed: the files and the job's end are one statement (issue 26).
      if (!job.payload.send) {
        const marked = await db
          .with('stored', (q) => filesWrite(q, companyId, invoiceId, files, { ifMissing: true }))
          .with('job_done', (q) => doneWrite.write(q))
          .selectFrom('job_done')
          .select('id')
          .executeTakeFirst();
        return doneWrite.given(marked !== undefined);
      }
      await storeMissingFiles(db, companyId, invoiceId, files);
    }
    if (!job.payload.send) return;
    try {
      await sendInvoice({ db, clock, ...invoicing }, companyId, invoiceId);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invoice_send_failed') throw error;
      const sendError = (error.fields as { send_error?: { code: string } }).send_error;
      // A mail server out of reach is tried again; a refusal, a customer without address or
      // a mail whose fate is unknown (resent only when a person asks) is not.
      if (sendError?.code === 'mail_unreachable') throw new Error('the mail server could not be reached');
      log(`invoice ${invoiceId}: not mailed (${sendError?.code ?? 'unknown'})`);
      throw new PermanentJobError(`not mailed: ${sendError?.code ?? 'unknown'}`);
    }
  },
});
