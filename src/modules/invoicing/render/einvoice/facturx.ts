// Factur-X/ZUGFeRD EN 16931 hybrid: the visual invoice as PDF/A-3b with the EN 16931 CII
// embedded as factur-x.xml. pdfkit writes the container itself (instead of handing the
// PDF to @e-invoice-eu/core) because the library stamps `new Date()` into the file dates,
// the Info dictionary and the XMP, which would break byte-identical output.
import type { InvoiceDocument } from '../../document.ts';
import { renderInvoicePdf } from '../pdf/render-pdf.ts';
import { renderFacturXml } from './generate.ts';

export type FacturX = { pdf: Buffer; xml: Buffer };

export async function renderFacturX(doc: InvoiceDocument): Promise<FacturX> {
  const xml = await renderFacturXml(doc);
  const pdf = await renderInvoicePdf(doc, { facturXml: xml });
  return { pdf, xml };
}
