import { availableParallelism } from 'node:os';
import type { SmtpSettings } from '../../db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import type { Sealer } from '../../shared/secrets.ts';
import { BookkeepingError, bookInvoice, newInvoiceBookingWrites } from '../bookkeeping/index.ts';
import { createMailer, invoiceMail, invoiceMessageId, type Mailer, type MailingCompany } from '../mail/index.ts';
import type { CompanyRow } from './build-document.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { createRenderPool, type RenderPool } from './render/render-pool.ts';

function mailingCompany(company: CompanyRow): MailingCompany {
  return { id: company.id, name: company.name, email: company.email, smtp: company.smtp as SmtpSettings | null };
}

/**
 * Render threads: with HTTP (`serve`) one per spare core, the main thread serving requests;
 * without (`worker`, `jobs run`: the billing run renders thousands) one per core. At least
 * one, at most four.
 */
export function defaultRenderThreads(withHttp = true): number {
  return Math.max(1, Math.min(4, availableParallelism() - (withHttp ? 1 : 0)));
}

export type InvoicingOutside = Pick<InvoicingDeps, 'render' | 'book' | 'bookingWrites' | 'mail' | 'mailed'> & {
  renderStatement: NonNullable<InvoicingDeps['renderStatement']>;
  close(): Promise<void>;
};

/**
 * The real renderers, booking and mailbox for invoice operations; the render threads
 * render revenue-share statements too (renderStatement). `mailer`: the process's mailer
 * (one pooled connection per mailbox for all of a process's mail); without it one is made
 * here, and closed by close(). `renderer`: a render pool the caller keeps (and closes);
 * without it one of `renderThreads` threads is made here, and closed by close().
 */
export function invoicingOutside(options: {
  dataDir: string;
  sealer: Sealer;
  renderThreads?: number;
  mailer?: Mailer;
  renderer?: RenderPool;
  /** Told the seconds each invoice's rendering took (the operator's metrics). */
  onRendered?: (seconds: number) => void;
}): InvoicingOutside {
  const mailer = options.mailer ?? createMailer({ dataDir: options.dataDir, sealer: options.sealer });
  const ownsMailer = options.mailer === undefined;
  const renderer = options.renderer ?? createRenderPool(options.renderThreads ?? defaultRenderThreads());
  const ownsRenderer = options.renderer === undefined;
  return {
    render: options.onRendered
      ? async (doc) => {
          const started = performance.now();
          const files = await renderer.render(doc);
          options.onRendered?.((performance.now() - started) / 1000);
          return files;
        }
      : (doc) => renderer.render(doc),
    renderStatement: (doc) => renderer.renderStatement(doc),
    async book(trx, company, doc, documentId, known) {
      await bookInvoice(trx, company.id, company.chart, doc, documentId, known).catch(periodLockedAsAppError);
    },
    bookingWrites(trx, company, doc, documentId, lockedUntil) {
      try {
        return newInvoiceBookingWrites(trx, company.id, company.chart, doc, documentId, lockedUntil);
      } catch (error) {
        return periodLockedAsAppError(error);
      }
    },
    async mail(company, doc, files, messageId) {
      const outcome = await mailer.send(mailingCompany(company), {
        ...invoiceMail(doc, files),
        messageId: messageId ?? invoiceMessageId(company.id, doc.number),
      });
      return outcome.ok ? { ok: true } : { ok: false, error: outcome.error };
    },
    mailed: (company, messageId) => mailer.holds(mailingCompany(company), messageId),
    async close() {
      if (ownsMailer) mailer.close();
      if (ownsRenderer) await renderer.close();
    },
  };
}

/** A booking refused for a locked period as the invoice operations' period_locked; any other error as it is. */
function periodLockedAsAppError(error: unknown): never {
  if (error instanceof BookkeepingError && error.code === 'period_locked') throw new AppError('period_locked', {}, error.message);
  throw error;
}
