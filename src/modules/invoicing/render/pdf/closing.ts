// Below the totals: the document's notes (reverse charge, § 19, not taxable, storno
// reference) and the payment instruction with IBAN and Verwendungszweck.

import { formatIban } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';
import { paymentTermsText } from '../einvoice/payment.ts';
import { FONT } from './fonts.ts';
import { BODY_BOTTOM, COLOR, CONTENT_WIDTH, MARGIN, SIZE } from './layout.ts';

export function paymentInstruction(doc: InvoiceDocument): string {
  const { seller } = doc;
  if (doc.type === 'storno') return paymentTermsText(doc);
  const sentence = paymentTermsText(doc).replace(/\.$/, '');
  if (!seller.iban) return `${sentence}. Bitte geben Sie als Verwendungszweck ${doc.number} an.`;
  const bank = [seller.bic ? `BIC ${seller.bic}` : null, seller.bankName].filter(Boolean).join(', ');
  const account = `IBAN ${formatIban(seller.iban)}${bank ? ` (${bank})` : ''}`;
  return `${sentence} auf das Konto ${account}, Verwendungszweck: ${doc.number}.`;
}

function paragraphs(doc: InvoiceDocument): { text: string; bold: boolean }[] {
  return [...doc.notes.map((text) => ({ text, bold: false })), { text: paymentInstruction(doc), bold: true }];
}

export function drawClosing(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, startY: number): number {
  return drawParagraphs(pdf, paragraphs(doc), startY);
}

/** Full-width paragraphs, regular or bold, breaking to a new page when one does not fit. Also used by dunning notices. */
export function drawParagraphs(pdf: PDFKit.PDFDocument, list: { text: string; bold: boolean }[], startY: number): number {
  let y = startY;
  for (const paragraph of list) {
    pdf
      .font(paragraph.bold ? FONT.bold : FONT.regular)
      .fontSize(SIZE.body)
      .fillColor(COLOR.text);
    const height = pdf.heightOfString(paragraph.text, { width: CONTENT_WIDTH, lineGap: 1.5 });
    if (y + height > BODY_BOTTOM) {
      pdf.addPage();
      y = MARGIN.top;
    }
    pdf.text(paragraph.text, MARGIN.left, y, { width: CONTENT_WIDTH, lineGap: 1.5 });
    y += height + 6;
  }
  return y;
}
