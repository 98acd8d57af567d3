// The Gutschrift's CII through invoicing's single caller of @e-invoice-eu/core (same
// validator, format services and CII patches), and the Factur-X hybrid around it.
import { renderCiiData } from '../../../invoicing/render/einvoice/generate.ts';
import type { StatementDocument } from '../../statement-document.ts';
import { renderStatementPdf } from '../pdf/render-statement-pdf.ts';
import { toSelfBilledInvoiceData } from './statement-data.ts';

/** XRechnung 3.0 CII of a Gutschrift (type 389). */
export async function renderStatementXRechnung(doc: StatementDocument): Promise<Buffer> {
  return renderCiiData(toSelfBilledInvoiceData(doc, 'xrechnung'), 'xrechnung');
}

/** EN 16931 CII of a Gutschrift, as embedded in its Factur-X PDF. */
export async function renderStatementFacturXml(doc: StatementDocument): Promise<Buffer> {
  return renderCiiData(toSelfBilledInvoiceData(doc, 'en16931'), 'en16931');
}

/** PDF/A-3b with the EN 16931 CII as factur-x.xml, and that XML. */
export async function renderStatementFacturX(doc: StatementDocument): Promise<{ pdf: Buffer; xml: Buffer }> {
  const xml = await renderStatementFacturXml(doc);
  return { pdf: await renderStatementPdf(doc, { facturXml: xml }), xml };
}
