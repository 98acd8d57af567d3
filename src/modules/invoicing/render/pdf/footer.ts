// Footer on every page: the seller's address, tax numbers, bank and contact (§ 14 Abs. 4
// Nr. 1/2 UStG; business-letter data), and "Seite x von n". Drawn at the end over the
// buffered pages, when n is known.

import { cityLine, formatIban, legalName, streetLine } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, FOOTER, MARGIN, SIZE } from './layout.ts';

function present(lines: (string | null)[]): string {
  return lines.filter((line): line is string => Boolean(line)).join('\n');
}

export function footerColumns(doc: Pick<InvoiceDocument, 'seller'>): string[] {
  const { seller } = doc;
  return [
    present([legalName(seller), streetLine(seller), cityLine(seller)]),
    present([seller.taxNumber ? `Steuernummer: ${seller.taxNumber}` : null, seller.vatId ? `USt-IdNr.: ${seller.vatId}` : null]),
    present([seller.bankName, seller.iban ? `IBAN: ${formatIban(seller.iban)}` : null, seller.bic ? `BIC: ${seller.bic}` : null]),
    present([seller.phone ? `Tel. ${seller.phone}` : null, seller.email]),
  ];
}

export function drawFooters(pdf: PDFKit.PDFDocument, doc: Pick<InvoiceDocument, 'seller'>): void {
  const range = pdf.bufferedPageRange();
  const columns = footerColumns(doc);
  const widths = [0.24, 0.22, 0.32, 0.22].map((share) => share * CONTENT_WIDTH);
  for (let index = range.start; index < range.start + range.count; index++) {
    pdf.switchToPage(index);
    pdf.font(FONT.regular).fontSize(SIZE.small).fillColor(COLOR.muted);
    pdf.text(`Seite ${index + 1} von ${range.count}`, MARGIN.left, FOOTER.pageNumberY, { width: CONTENT_WIDTH, align: 'right', lineBreak: false });
    pdf.moveTo(MARGIN.left, FOOTER.ruleY).lineTo(MARGIN.right, FOOTER.ruleY).lineWidth(0.4).strokeColor(COLOR.rule).stroke();
    let x = MARGIN.left;
    columns.forEach((text, column) => {
      const width = widths[column] ?? 0;
      pdf
        .font(FONT.regular)
        .fontSize(SIZE.small - 0.5)
        .fillColor(COLOR.muted);
      pdf.text(text, x, FOOTER.ruleY + 5, { width: width - 6, lineGap: 0.5 });
      x += width;
    });
  }
}
