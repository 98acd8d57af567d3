// renderNoticePdf: a dunning notice as an A4 letter, a pure function of the snapshot (same
// snapshot, same bytes). Letterhead, address window, information block, amount rows,
// paragraphs and footer are the invoice PDF's own pieces, so a notice looks like the
// invoice it is about.
import { formatDate } from '../../../shared/german-format.ts';
import { drawParagraphs } from '../../invoicing/render/pdf/closing.ts';
import { FONT, registerFonts } from '../../invoicing/render/pdf/fonts.ts';
import { drawFooters } from '../../invoicing/render/pdf/footer.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE, TITLE_Y } from '../../invoicing/render/pdf/layout.ts';
import { drawLetterhead } from '../../invoicing/render/pdf/letterhead.ts';
import { drawBuyerAddress, drawInfoRows } from '../../invoicing/render/pdf/parties.ts';
import { collect, createA4Pdf } from '../../invoicing/render/pdf/render-pdf.ts';
import { drawAmountRows } from '../../invoicing/render/pdf/totals.ts';
import { type NoticeDocument, noticeTitle } from '../notice-document.ts';
import { claimRows, closingParagraphs, introParagraphs, legalNotes, paymentInstruction, salutation } from '../notice-text.ts';

function infoRows(doc: NoticeDocument): [string, string][] {
  return [
    ['Datum', formatDate(doc.noticeDate)],
    ['Kundennummer', doc.buyer.customerNumber],
    ['Rechnungsnummer', doc.invoice.number],
    ['Rechnungsdatum', formatDate(doc.invoice.issueDate)],
    ['Fällig seit', formatDate(doc.invoice.dueDate)],
    ['Zahlbar bis', formatDate(doc.deadline)],
  ];
}

/** Title and opening text; returns the y below them. */
function drawOpening(pdf: PDFKit.PDFDocument, doc: NoticeDocument): number {
  pdf.font(FONT.bold).fontSize(SIZE.title).fillColor(COLOR.accent);
  pdf.text(noticeTitle(doc.level), MARGIN.left, TITLE_Y, { width: CONTENT_WIDTH });
  let y = TITLE_Y + SIZE.title + 6;
  pdf
    .font(FONT.bold)
    .fontSize(SIZE.body + 1)
    .fillColor(COLOR.text);
  pdf.text(`Rechnung ${doc.invoice.number} vom ${formatDate(doc.invoice.issueDate)}`, MARGIN.left, y, { width: CONTENT_WIDTH });
  y += 18;
  const text = [salutation(doc), ...introParagraphs(doc)].join('\n');
  pdf.font(FONT.regular).fontSize(SIZE.body).fillColor(COLOR.text);
  pdf.text(text, MARGIN.left, y, { width: CONTENT_WIDTH, lineGap: 2, paragraphGap: 4 });
  return y + pdf.heightOfString(text, { width: CONTENT_WIDTH, lineGap: 2, paragraphGap: 4 }) + 8;
}

export async function renderNoticePdf(doc: NoticeDocument): Promise<Buffer> {
  const pdf = createA4Pdf({ title: `${noticeTitle(doc.level)} zu Rechnung ${doc.invoice.number}`, date: doc.noticeDate });
  const done = collect(pdf);
  registerFonts(pdf);
  drawLetterhead(pdf, doc);
  drawBuyerAddress(pdf, doc);
  drawInfoRows(pdf, infoRows(doc));
  let y = drawOpening(pdf, doc);
  y = drawAmountRows(pdf, claimRows(doc), y, MARGIN.left);
  const paragraphs = [
    { text: paymentInstruction(doc), bold: true },
    ...legalNotes(doc).map((text) => ({ text, bold: false })),
    ...closingParagraphs(doc).map((text) => ({ text, bold: false })),
  ];
  drawParagraphs(pdf, paragraphs, y);
  drawFooters(pdf, doc);
  pdf.end();
  return done;
}
