import type { Database } from '../../db/connection.ts';
import type { Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import type { SendError } from './invoice-view.ts';

/** What invoice operations need from outside: storage, the clock, and the three outside pieces. */
export type InvoicingDeps = {
  db: Database;
  clock: Clock;
  render(doc: InvoiceDocument): Promise<{ pdf: Buffer; xml: Buffer | null }>;
  book(trx: Trx, company: CompanyRow, doc: InvoiceDocument, documentId: string): Promise<void>;
  mail(company: CompanyRow, doc: InvoiceDocument, files: { pdf: Buffer; xml: Buffer | null }): Promise<{ ok: true } | { ok: false; error: SendError }>;
};

/** Renders inside the issuing transaction; a failure is 500 invoice_render_failed and rolls everything back. */
export async function renderOrRefuse(deps: Pick<InvoicingDeps, 'render'>, doc: InvoiceDocument): Promise<{ pdf: Buffer; xml: Buffer | null }> {
  try {
    return await deps.render(doc);
  } catch {
    throw new AppError('invoice_render_failed');
  }
}
