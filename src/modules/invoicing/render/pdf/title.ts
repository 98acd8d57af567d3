// Title "Rechnung" or "Stornorechnung" with the reference to the cancelled invoice, and a
// one-line running head on continuation pages.

import { formatDate } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE, TITLE_Y } from './layout.ts';

export function documentTitle(doc: InvoiceDocument): string {
  return doc.type === 'storno' ? 'Stornorechnung' : 'Rechnung';
}

/** Draws the title block and returns the y where the body starts. */
export function drawTitle(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): number {
  pdf.font(FONT.bold).fontSize(SIZE.title).fillColor(COLOR.accent);
  pdf.text(`${documentTitle(doc)} ${doc.number}`, MARGIN.left, TITLE_Y, { width: CONTENT_WIDTH });
  let y = TITLE_Y + SIZE.title + 8;
  if (doc.type === 'storno' && doc.precedingInvoice) {
    const { number, issueDate } = doc.precedingInvoice;
    pdf
      .font(FONT.bold)
      .fontSize(SIZE.body + 1)
      .fillColor(COLOR.text);
    pdf.text(`Storno zu Rechnung ${number} vom ${formatDate(issueDate)}`, MARGIN.left, y, { width: CONTENT_WIDTH });
    y += 16;
  }
  pdf.font(FONT.regular).fontSize(SIZE.body).fillColor(COLOR.text);
  const intro =
    doc.type === 'storno'
      ? 'hiermit stornieren wir die oben genannte Rechnung vollständig. Die Positionen werden mit umgekehrtem Vorzeichen aufgeführt.'
      : 'vielen Dank für Ihren Auftrag. Wir berechnen Ihnen die folgenden Leistungen:';
  pdf.text(`Sehr geehrte Damen und Herren,\n${intro}`, MARGIN.left, y + 4, { width: CONTENT_WIDTH, lineGap: 2 });
  return y + 4 + pdf.heightOfString(`x\n${intro}`, { width: CONTENT_WIDTH, lineGap: 2 }) + 12;
}

/** Running head on pages 2…n, so a loose page still says which document it belongs to. */
export function drawContinuationHead(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): number {
  pdf.font(FONT.bold).fontSize(SIZE.body).fillColor(COLOR.accent);
  pdf.text(`${documentTitle(doc)} ${doc.number} vom ${formatDate(doc.issueDate)} – Fortsetzung`, MARGIN.left, MARGIN.top, {
    width: CONTENT_WIDTH,
    lineBreak: false,
  });
  return MARGIN.top + 22;
}
