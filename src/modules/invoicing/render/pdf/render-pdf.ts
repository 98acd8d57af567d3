// renderInvoicePdf: the visual A4 invoice, a pure function of the snapshot. With
// `facturXml` it becomes a PDF/A-3b Factur-X hybrid carrying that XML.
import PDFDocument from 'pdfkit';
import type { InvoiceDocument } from '../../document.ts';
import { shortcuts } from '../shortcuts.ts';
import { drawClosing } from './closing.ts';
import { endPdf } from './deflate.ts';
import { attachFacturX } from './facturx-attachment.ts';
import { registerFonts } from './fonts.ts';
import { drawFooters, layoutFooter } from './footer.ts';
import { PAGE } from './layout.ts';
import { drawLetterhead } from './letterhead.ts';
import { drawLinesTable } from './lines-table.ts';
import { usePrecompressedOutputIntent } from './output-intent.ts';
import { createFlow } from './page-flow.ts';
import { drawBuyerAddress, drawInfoBlock } from './parties.ts';
import { collectPdf } from './stream-writes.ts';
import { documentTitle, drawContinuationHead, drawTitle } from './title.ts';
import { drawTotals } from './totals.ts';

export type RenderPdfOptions = {
  /** Produce PDF/A-3b (embedded fonts, sRGB output intent, XMP); implied by `facturXml`. */
  pdfA?: boolean;
  /** The EN 16931 CII to embed as `factur-x.xml`. */
  facturXml?: Buffer;
};

/** A fixed instant derived from the document, so the same snapshot gives the same bytes. */
export function documentInstant(doc: Pick<InvoiceDocument, 'issueDate'>): Date {
  return new Date(`${doc.issueDate}T00:00:00.000Z`);
}

/** Metadata values go into the XMP unescaped by pdfkit: keep only characters safe in XML. */
function metadataSafe(text: string): string {
  return text.replace(/[<>&"]/g, '');
}

/**
 * A4 as every Kontor document is set up (invoice, storno, dunning notice): no margins (the
 * layout places everything), fonts registered by the caller, and the file dates at the
 * document's date, so the same snapshot gives the same bytes.
 */
export function createA4Pdf(options: { title: string; date: string; pdfA?: boolean }): PDFKit.PDFDocument {
  const at = new Date(`${options.date}T00:00:00.000Z`);
  const pdf = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    bufferPages: true,
    autoFirstPage: true,
    pdfVersion: '1.7',
    lang: 'de-DE',
    displayTitle: true,
    // No default font: pdfkit would parse Helvetica's metrics (~1 ms) for a font never used.
    font: null as unknown as string,
    ...(options.pdfA ? { subset: 'PDF/A-3b' as const } : {}),
    info: {
      Title: metadataSafe(options.title),
      Creator: 'Kontor',
      Producer: 'Kontor',
      CreationDate: at,
      ModDate: at,
    },
  });
  if (options.pdfA && shortcuts.outputIntent) usePrecompressedOutputIntent(pdf);
  return pdf;
}

/** PDF/A wants every Info entry mirrored in the XMP; pdfkit writes only the creation date (also used by statements). */
export function appendXmpDates(pdf: PDFKit.PDFDocument, at: Date): void {
  const modified = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  pdf.appendXML(`
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
            <xmp:ModifyDate>${modified}</xmp:ModifyDate>
            <xmp:MetadataDate>${modified}</xmp:MetadataDate>
        </rdf:Description>`);
}

/** The bytes of a pdfkit document once it ends (also used by statements and dunning notices). */
export function collect(pdf: PDFKit.PDFDocument): Promise<Buffer> {
  return collectPdf(pdf);
}

export async function renderInvoicePdf(doc: InvoiceDocument, options: RenderPdfOptions = {}): Promise<Buffer> {
  const pdfA = options.pdfA === true || options.facturXml !== undefined;
  const pdf = createA4Pdf({ title: `${documentTitle(doc)} ${doc.number}`, date: doc.issueDate, pdfA });
  const done = collect(pdf);
  registerFonts(pdf);
  if (pdfA) appendXmpDates(pdf, documentInstant(doc));
  // The footer first: how much room it takes decides where the body of every page ends.
  const footer = layoutFooter(pdf, doc.seller);
  const flow = createFlow(pdf, footer.bodyBottom, (page) => drawContinuationHead(page, doc));
  drawLetterhead(pdf, doc);
  drawBuyerAddress(pdf, doc);
  drawInfoBlock(pdf, doc);
  let y = drawTitle(pdf, doc);
  y = drawLinesTable(flow, doc, y);
  y = drawTotals(flow, doc, y);
  drawClosing(flow, doc, y);
  drawFooters(pdf, footer, `${documentTitle(doc)} ${doc.number}`);
  if (options.facturXml) attachFacturX(pdf, options.facturXml, documentInstant(doc));
  endPdf(pdf);
  return done;
}
