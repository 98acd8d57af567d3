// Public face of the statement renderers: the PDF and, for a Gutschrift per e-invoice
// format, its self-billed invoice (389) as CII. Pure functions of the StatementDocument.
import type { StatementDocument } from '../statement-document.ts';
import { renderStatementFacturX, renderStatementXRechnung } from './einvoice/generate.ts';
import { renderStatementPdf } from './pdf/render-statement-pdf.ts';

export { renderStatementFacturXml, renderStatementXRechnung } from './einvoice/generate.ts';
export { renderStatementPdf } from './pdf/render-statement-pdf.ts';
export { type StatementNotesInput, statementNotes, statementTitle } from './statement-notes.ts';

export type RenderedStatement = { pdf: Buffer; xml: Buffer | null };

/**
 * - zugferd: the PDF is the Factur-X hybrid (PDF/A-3b), xml is the CII embedded in it;
 * - xrechnung: a plain visual PDF plus the standalone XRechnung 3.0 CII;
 * - none: the plain PDF only.
 * Only a Gutschrift (self_billing) is an invoice: any other kind with an e-invoice throws.
 */
export async function renderStatementDocuments(doc: StatementDocument): Promise<RenderedStatement> {
  if (doc.eInvoice !== 'none' && (doc.kind !== 'self_billing' || doc.taxNote === 'private_person')) {
    throw new Error(`statement ${doc.number}: only a Gutschrift gets an e-invoice, not ${doc.kind}/${doc.taxNote} with ${doc.eInvoice}`);
  }
  switch (doc.eInvoice) {
    case 'zugferd':
      return renderStatementFacturX(doc);
    case 'xrechnung': {
      const [pdf, xml] = await Promise.all([renderStatementPdf(doc), renderStatementXRechnung(doc)]);
      return { pdf, xml };
    }
    case 'none':
      return { pdf: await renderStatementPdf(doc), xml: null };
  }
}
