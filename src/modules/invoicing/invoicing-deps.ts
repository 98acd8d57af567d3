import type { Database } from '../../db/connection.ts';
import type { Liveness } from '../../db/liveness.ts';
import type { Trx } from '../../db/transaction.ts';
import type { WriteInStatement } from '../../db/with-writes.ts';
import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import type { BookingKnowns } from '../bookkeeping/index.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import type { EarlyRenders } from './early-render.ts';
import type { SendError } from './invoice-view.ts';
import type { RenderPool } from './render/render-pool.ts';
import { renderFailureForLog } from './render-failure.ts';

/** What invoice operations need from outside: storage, the clock, and the three outside pieces. */
export type InvoicingDeps = {
  db: Database;
  clock: Clock;
  render(doc: InvoiceDocument): Promise<{ pdf: Buffer; xml: Buffer | null }>;
  /**
   * The same render threads for revenue-share statements (statements/deliver-statement.ts,
   * which renders on its own thread without them); no invoice operation uses it.
   */
  renderStatement?: RenderPool['renderStatement'];
  book(trx: Trx, company: CompanyRow, doc: InvoiceDocument, documentId: string, known?: BookingKnowns): Promise<void>;
  /**
   * The booking of an invoice issued in this transaction as inserts for its own statement
   * (writeInvoice); throws period_locked like `book`. `lockedUntil`: as read in `trx`.
   */
  bookingWrites(trx: Trx, company: CompanyRow, doc: InvoiceDocument, documentId: string, lockedUntil: string | null): readonly WriteInStatement[];
  /** `messageId`: the attempt's (mail-attempts.ts); absent: the invoice's stable one. */
  mail(
    company: CompanyRow,
    doc: InvoiceDocument,
    files: { pdf: Buffer; xml: Buffer | null },
    messageId?: string,
  ): Promise<{ ok: true } | { ok: false; error: SendError }>;
  /** Whether the mail with this Message-ID left: known from the outbox, unknowable over SMTP (null). */
  mailed(company: CompanyRow, messageId: string): Promise<boolean | null>;
  /** Which processes live: the owners of mails under way (db/liveness.ts). */
  liveness: Liveness;
  /** Renders predicted documents before the issuing transaction (early-render.ts); absent: render in the transaction only. */
  earlyRenders?: EarlyRenders;
};

/** Renders inside the issuing transaction; a failure is 500 invoice_render_failed and rolls everything back. */
export function renderOrRefuse(deps: Pick<InvoicingDeps, 'render'>, doc: InvoiceDocument): Promise<{ pdf: Buffer; xml: Buffer | null }> {
  return renderedOrRefuse(deps.render(doc), doc);
}

/**
 * The files of a rendering of `doc` under way; its failure is 500 invoice_render_failed.
 * The refusal's cause says why, for the log only (render-failure.ts, error-handler.ts).
 */
export async function renderedOrRefuse(
  rendering: Promise<{ pdf: Buffer; xml: Buffer | null }>,
  doc: InvoiceDocument,
): Promise<{ pdf: Buffer; xml: Buffer | null }> {
  try {
    return await rendering;
  } catch (error) {
    const refusal = new AppError('invoice_render_failed');
    refusal.cause = renderFailureForLog(error, doc);
    throw refusal;
  }
}
