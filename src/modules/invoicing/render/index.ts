// Public face of the renderers: the issued document's PDF and, per e-invoice format, its
// XML. Everything here is a pure function of the InvoiceDocument snapshot.
import PDFDocument from 'pdfkit';
import type { InvoiceDocument } from '../document.ts';
import { renderFacturX } from './einvoice/facturx.ts';
import { renderXRechnungCii, warmUpEInvoice } from './einvoice/generate.ts';
import { FONT, registerFonts } from './pdf/fonts.ts';
import { renderInvoicePdf } from './pdf/render-pdf.ts';

export { renderFacturX } from './einvoice/facturx.ts';
export { renderFacturXml, renderXRechnungCii } from './einvoice/generate.ts';
export { type RenderPdfOptions, renderInvoicePdf } from './pdf/render-pdf.ts';

export type RenderedInvoice = { pdf: Buffer; xml: Buffer | null };

/**
 * - zugferd: the PDF is the Factur-X hybrid (PDF/A-3b), xml is the CII embedded in it;
 * - xrechnung: a plain visual PDF plus the standalone XRechnung 3.0 CII;
 * - none: the plain PDF only.
 */
export async function renderInvoiceDocuments(doc: InvoiceDocument): Promise<RenderedInvoice> {
  switch (doc.eInvoice) {
    case 'zugferd':
      return renderFacturX(doc);
    case 'xrechnung': {
      const [pdf, xml] = await Promise.all([renderInvoicePdf(doc), renderXRechnungCii(doc)]);
      return { pdf, xml };
    }
    case 'none':
      return { pdf: await renderInvoicePdf(doc), xml: null };
  }
}

/**
 * Parses the fonts, compiles the e-invoice schema validator and lays out some text once,
 * so the first issued invoice does not pay 0.1–0.5 s of start-up work. Call at server start.
 */
export async function warmUpRenderers(): Promise<void> {
  warmUpEInvoice();
  const pdf = new PDFDocument({ size: 'A4', margins: { top: 0, bottom: 0, left: 0, right: 0 } });
  const done = new Promise<void>((resolve) => pdf.on('end', () => resolve()));
  pdf.on('data', () => {});
  registerFonts(pdf);
  for (const font of [FONT.regular, FONT.bold]) {
    pdf.font(font).fontSize(9);
    pdf.heightOfString('Rechnung Größe 1.234,56 € – „Übernahme“ Straße', { width: 200 });
    pdf.text('Warm-up 0123456789 ÄÖÜäöüß €', 10, 10, { width: 300 });
  }
  pdf.end();
  await done;
}
