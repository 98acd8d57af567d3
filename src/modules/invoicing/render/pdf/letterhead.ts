// First-page letterhead: the seller's name with legal form on the left, its address and
// contact data right-aligned; the DIN 5008 sender line above the address field.

import { cityLine, legalName, streetLine } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';
import { FONT } from './fonts.ts';
import { ADDRESS, COLOR, MARGIN, MM, SIZE } from './layout.ts';

export function drawLetterhead(pdf: PDFKit.PDFDocument, doc: Pick<InvoiceDocument, 'seller'>): void {
  const { seller } = doc;
  pdf.font(FONT.bold).fontSize(SIZE.letterhead).fillColor(COLOR.accent);
  pdf.text(legalName(seller), MARGIN.left, MARGIN.top, { width: 95 * MM, lineBreak: true });

  const contact = [streetLine(seller), cityLine(seller), seller.phone ? `Tel. ${seller.phone}` : null, seller.email].filter((line): line is string =>
    Boolean(line),
  );
  const blockX = MARGIN.left + 100 * MM;
  pdf.font(FONT.regular).fontSize(SIZE.small).fillColor(COLOR.muted);
  pdf.text(contact.join('\n'), blockX, MARGIN.top + 2, { width: MARGIN.right - blockX, align: 'right', lineGap: 1 });

  pdf
    .moveTo(MARGIN.left, MARGIN.top + 22 * MM)
    .lineTo(MARGIN.right, MARGIN.top + 22 * MM)
    .lineWidth(0.8)
    .strokeColor(COLOR.accent)
    .stroke();

  // Sender line (Rücksendeangabe) so a window envelope shows where to return the letter.
  const sender = [legalName(seller), streetLine(seller), cityLine(seller)].filter(Boolean).join(' · ');
  pdf.font(FONT.regular).fontSize(6.5).fillColor(COLOR.muted);
  pdf.text(sender, ADDRESS.x, ADDRESS.senderY, { width: ADDRESS.width, lineBreak: false, underline: true });
}
