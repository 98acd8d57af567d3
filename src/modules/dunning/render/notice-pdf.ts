// renderNoticePdf: a dunning notice as an A4 letter, a pure function of the snapshot (same
// snapshot, same bytes). Letterhead, address window, information block, amount rows,
// paragraphs and footer are the invoice PDF's own pieces, so a notice looks like the
// invoice it is about.
import { formatDate } from '../../../shared/german-format.ts';
import { drawParagraphs } from '../../invoicing/render/pdf/closing.ts';
import { endPdf } from '../../invoicing/render/pdf/deflate.ts';
import { FONT, registerFonts } from '../../invoicing/render/pdf/fonts.ts';
import { drawFooters, layoutFooter } from '../../invoicing/render/pdf/footer.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE, TITLE_Y } from '../../invoicing/render/pdf/layout.ts';
import { drawLetterhead } from '../../invoicing/render/pdf/letterhead.ts';
import { createFlow } from '../../invoicing/render/pdf/page-flow.ts';
import { drawBuyerAddress, drawInfoRows } from '../../invoicing/render/pdf/parties.ts';
import { collect, createA4Pdf } from '../../invoicing/render/pdf/render-pdf.ts';
import { drawLines, wrapLines } from '../../invoicing/render/pdf/text.ts';
import { drawRunningHead } from '../../invoicing/render/pdf/title.ts';
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
  let y = drawLines(pdf, wrapLines(pdf, noticeTitle(doc.level), CONTENT_WIDTH), MARGIN.left, TITLE_Y) + 2;
  pdf
    .font(FONT.bold)
    .fontSize(SIZE.body + 1)
    .fillColor(COLOR.text);
  y = drawLines(pdf, wrapLines(pdf, `Rechnung ${doc.invoice.number} vom ${formatDate(doc.invoice.issueDate)}`, CONTENT_WIDTH), MARGIN.left, y) + 6;
  pdf.font(FONT.regular).fontSize(SIZE.body).fillColor(COLOR.text);
  for (const paragraph of [salutation(doc), ...introParagraphs(doc)]) {
    y = drawLines(pdf, wrapLines(pdf, paragraph, CONTENT_WIDTH), MARGIN.left, y, { gap: 2 }) + 4;
  }
  return y + 4;
}

export async function renderNoticePdf(doc: NoticeDocument): Promise<Buffer> {
  const pdf = createA4Pdf({ title: `${noticeTitle(doc.level)} zu Rechnung ${doc.invoice.number}`, date: doc.noticeDate });
  const done = collect(pdf);
  registerFonts(pdf);
  const footer = layoutFooter(pdf, doc.seller);
  const title = `${noticeTitle(doc.level)} zu Rechnung ${doc.invoice.number}`;
  const flow = createFlow(pdf, footer.bodyBottom, (page) => drawRunningHead(page, `${title} vom ${formatDate(doc.noticeDate)} – Fortsetzung`));
  drawLetterhead(pdf, doc);
  drawBuyerAddress(pdf, doc);
  drawInfoRows(pdf, infoRows(doc));
  let y = drawOpening(pdf, doc);
  y = drawAmountRows(flow, claimRows(doc), y, MARGIN.left);
  const paragraphs = [
    { text: paymentInstruction(doc), bold: true },
    ...legalNotes(doc).map((text) => ({ text, bold: false })),
    ...closingParagraphs(doc).map((text) => ({ text, bold: false })),
  ];
  drawParagraphs(flow, paragraphs, y);
  drawFooters(pdf, footer, title);
  endPdf(pdf);
  return done;
}
