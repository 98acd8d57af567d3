// The buyer's address in the DIN 5008 window with the contact as attention line, and the
// information block beside it (numbers, dates, service period, identifiers).

import { cityLine, formatDate, formatPeriod, streetLine } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';
import { countryName } from './countries.ts';
import { FONT } from './fonts.ts';
import { ADDRESS, COLOR, INFO, MARGIN, SIZE } from './layout.ts';

export function buyerAddressLines(doc: Pick<InvoiceDocument, 'buyer'>): string[] {
  const { buyer } = doc;
  const lines = [buyer.name];
  if (buyer.contactName) lines.push(`z. Hd. ${buyer.contactName}`);
  const street = streetLine(buyer);
  if (street) lines.push(street);
  const city = cityLine(buyer);
  if (city) lines.push(city);
  if (buyer.countryCode.toUpperCase() !== 'DE') lines.push(countryName(buyer.countryCode).toUpperCase());
  return lines;
}

export function drawBuyerAddress(pdf: PDFKit.PDFDocument, doc: Pick<InvoiceDocument, 'buyer'>): void {
  pdf
    .font(FONT.regular)
    .fontSize(SIZE.body + 1)
    .fillColor(COLOR.text);
  let y = ADDRESS.y;
  for (const line of buyerAddressLines(doc)) {
    pdf.text(line, ADDRESS.x, y, { width: ADDRESS.width, lineBreak: false, ellipsis: true });
    y += 13;
  }
}

function infoRows(doc: InvoiceDocument): [string, string][] {
  const rows: [string, string][] = [
    ['Rechnungsnummer', doc.number],
    ['Rechnungsdatum', formatDate(doc.issueDate)],
    ['Kundennummer', doc.buyer.customerNumber],
    ['Leistungszeitraum', formatPeriod(doc.servicePeriod)],
  ];
  if (doc.type === 'invoice') rows.push(['Fällig am', formatDate(doc.dueDate)]);
  // § 14a UStG: the recipient's VAT ID on reverse-charge (and other EU B2B) invoices.
  if (doc.buyer.vatId && doc.verdict !== 'domestic') rows.push(['Ihre USt-IdNr.', doc.buyer.vatId]);
  if (doc.buyer.leitwegId) rows.push(['Leitweg-ID', doc.buyer.leitwegId]);
  return rows;
}

export function drawInfoBlock(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): void {
  drawInfoRows(pdf, infoRows(doc));
}

/** Label/value rows in the information block beside the address (also used by dunning notices). */
export function drawInfoRows(pdf: PDFKit.PDFDocument, rows: [string, string][]): void {
  const valueX = INFO.x + INFO.labelWidth;
  const valueWidth = MARGIN.right - valueX;
  let y = INFO.y;
  for (const [label, value] of rows) {
    pdf
      .font(FONT.regular)
      .fontSize(SIZE.small - 0.5)
      .fillColor(COLOR.muted);
    pdf.text(label, INFO.x, y + 0.5, { width: INFO.labelWidth, lineBreak: false });
    // Identifiers such as a Leitweg-ID must stay on one line: shrink them to fit instead.
    pdf.font(FONT.bold).fontSize(SIZE.small).fillColor(COLOR.text);
    const natural = pdf.widthOfString(value);
    if (natural > valueWidth) pdf.fontSize(Math.max(5.5, (SIZE.small * valueWidth) / natural));
    pdf.text(value, valueX, y, { width: valueWidth, lineBreak: false });
    y += 11;
  }
}
