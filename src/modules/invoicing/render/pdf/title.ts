// Title "Rechnung" or "Stornorechnung" with the reference to the cancelled invoice (named
// here once; the e-invoice carries it in BT-25/BT-26), the greeting, and the one-line
// running head of continuation pages.

import { formatDate } from '../../../../shared/german-format.ts';
import { type InvoiceDocument, stornoNote } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, CONTINUATION_TOP, MARGIN, SIZE, TITLE_Y } from './layout.ts';
import { drawLines, ellipsize, wrapLines } from './text.ts';

export function documentTitle(doc: Pick<InvoiceDocument, 'type'>): string {
  return doc.type === 'storno' ? 'Stornorechnung' : 'Rechnung';
}

/** Draws the title block and returns the y where the body starts. */
export function drawTitle(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): number {
  pdf.font(FONT.bold).fontSize(SIZE.title).fillColor(COLOR.accent);
  let y = drawLines(pdf, wrapLines(pdf, `${documentTitle(doc)} ${doc.number}`, CONTENT_WIDTH), MARGIN.left, TITLE_Y) + 2;
  if (doc.type === 'storno' && doc.precedingInvoice) {
    pdf
      .font(FONT.bold)
      .fontSize(SIZE.body + 1)
      .fillColor(COLOR.text);
    y = drawLines(pdf, wrapLines(pdf, stornoNote(doc.precedingInvoice), CONTENT_WIDTH), MARGIN.left, y) + 2;
  }
  pdf.font(FONT.regular).fontSize(SIZE.body).fillColor(COLOR.text);
  const intro =
    doc.type === 'storno'
      ? 'hiermit stornieren wir die oben genannte Rechnung vollständig. Die Positionen werden mit umgekehrtem Vorzeichen aufgeführt.'
      : 'vielen Dank für Ihren Auftrag. Wir berechnen Ihnen die folgenden Leistungen:';
  y = drawLines(pdf, ['Sehr geehrte Damen und Herren,', ...wrapLines(pdf, intro, CONTENT_WIDTH)], MARGIN.left, y + 4, { gap: 2 });
  return y + 10;
}

/** Running head on pages 2…n, so a loose page still says which document it belongs to; returns the y below it. */
export function drawContinuationHead(pdf: PDFKit.PDFDocument, doc: Pick<InvoiceDocument, 'type' | 'number' | 'issueDate'>): number {
  return drawRunningHead(pdf, `${documentTitle(doc)} ${doc.number} vom ${formatDate(doc.issueDate)} – Fortsetzung`);
}

/** One bold line at the top of a continuation page (also used by dunning notices). */
export function drawRunningHead(pdf: PDFKit.PDFDocument, text: string): number {
  pdf.font(FONT.bold).fontSize(SIZE.body).fillColor(COLOR.accent);
  drawLines(pdf, [ellipsize(pdf, text, CONTENT_WIDTH)], MARGIN.left, MARGIN.top);
  return CONTINUATION_TOP;
}
