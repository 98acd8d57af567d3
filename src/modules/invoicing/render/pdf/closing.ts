// Below the totals: the document's notes (reverse charge, § 19, not taxable) and the
// payment instruction with IBAN and Verwendungszweck — or, for a negative amount due (a
// storno), that it is offset or refunded.

import { formatIban, legalName } from '../../../../shared/german-format.ts';
import { type InvoiceDocument, isRefund, STORNO_NOTE_PREFIX } from '../../document.ts';
import { paymentTermsText } from '../einvoice/payment.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, CONTINUATION_TOP, MARGIN, SIZE } from './layout.ts';
import { type Flow, room } from './page-flow.ts';
import { drawLines, lineStep, wrapLines } from './text.ts';

export function paymentInstruction(doc: InvoiceDocument): string {
  const { seller } = doc;
  if (isRefund(doc) || doc.type === 'storno') return paymentTermsText(doc);
  const sentence = paymentTermsText(doc).replace(/\.$/, '');
  if (!seller.iban) return `${sentence}. Bitte geben Sie als Verwendungszweck ${doc.number} an.`;
  const bank = [seller.bic ? `BIC ${seller.bic}` : null, seller.bankName].filter(Boolean).join(', ');
  // The payee is named when it is not the company itself (account_holder setting).
  const holder = seller.accountHolder && seller.accountHolder !== legalName(seller) ? ` von ${seller.accountHolder}` : '';
  const account = `IBAN ${formatIban(seller.iban)}${bank ? ` (${bank})` : ''}`;
  return `${sentence} auf das Konto${holder} ${account}, Verwendungszweck: ${doc.number}.`;
}

function paragraphs(doc: InvoiceDocument): { text: string; bold: boolean }[] {
  // The storno reference is printed under the title (snapshots stored before also held it as a note).
  const notes = doc.notes.filter((note) => !(doc.precedingInvoice && note.startsWith(STORNO_NOTE_PREFIX)));
  return [...notes.map((text) => ({ text, bold: false })), { text: paymentInstruction(doc), bold: true }];
}

export function drawClosing(flow: Flow, doc: InvoiceDocument, startY: number): number {
  return drawParagraphs(flow, paragraphs(doc), startY);
}

/**
 * Full-width paragraphs, regular or bold: a paragraph that does not fit goes to the next
 * page whole (one taller than a page is split by lines). Also used by dunning notices.
 */
export function drawParagraphs(flow: Flow, list: { text: string; bold: boolean }[], startY: number): number {
  const { pdf } = flow;
  let y = startY;
  for (const paragraph of list) {
    pdf
      .font(paragraph.bold ? FONT.bold : FONT.regular)
      .fontSize(SIZE.body)
      .fillColor(COLOR.text);
    let lines = wrapLines(pdf, paragraph.text, CONTENT_WIDTH);
    const step = lineStep(pdf, 1.5);
    y = room(flow, y, Math.min(lines.length * step, flow.bottom - CONTINUATION_TOP));
    while (lines.length > 0) {
      const fit = Math.max(1, Math.floor((flow.bottom - y) / step));
      y = drawLines(pdf, lines.slice(0, fit), MARGIN.left, y, { gap: 1.5 });
      lines = lines.slice(fit);
      if (lines.length > 0) {
        y = flow.newPage();
        pdf
          .font(paragraph.bold ? FONT.bold : FONT.regular)
          .fontSize(SIZE.body)
          .fillColor(COLOR.text);
      }
    }
    y += 6;
  }
  return y;
}
