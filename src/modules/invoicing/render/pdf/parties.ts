// The buyer's address in the DIN 5008 window with the contact as attention line, and the
// information block beside it (numbers, dates, service period or date, identifiers).

import { cityLine, formatDate, formatPeriod, streetLine } from '../../../../shared/german-format.ts';
import { isSwissVatId } from '../../../../shared/tax-ids.ts';
import type { Buyer, InvoiceDocument } from '../../document.ts';
import { countryName } from './countries.ts';
import { FONT } from './fonts.ts';
import { ADDRESS, COLOR, INFO, MARGIN, SIZE } from './layout.ts';
import { drawLines, ellipsize, lineStep, printable, wrapLines } from './text.ts';

/** The address as written on the envelope: name, attention line, street, city, country (abroad). */
export function buyerAddressLines(doc: { buyer: Buyer }): { name: string; rest: string[] } {
  const { buyer } = doc;
  const rest: string[] = [];
  if (buyer.contactName) rest.push(`z. Hd. ${buyer.contactName}`);
  const street = streetLine(buyer);
  if (street) rest.push(street);
  const city = cityLine(buyer);
  if (city) rest.push(city);
  if (buyer.countryCode.toUpperCase() !== 'DE') rest.push(countryName(buyer.countryCode).toUpperCase());
  return { name: buyer.name, rest: rest.map(printable) };
}

/** The address zone of the window is 27.3 mm high: six lines at 10 pt, seven below 9 pt. */
const ADDRESS_SIZES = [10, 9.5, 9, 8.5, 8];

type AddressLayout = { size: number; lines: string[] };

/**
 * Fits the address into the window zone: the biggest size (10 down to 8 pt, DIN 5008's
 * smallest) at which every part, wrapped, fits. If even 8 pt is too little, each part but
 * the name keeps one line (ending in "…" if it must) and the name keeps the lines left
 * over, its last one ending in "…" (the e-invoice carries the full name).
 */
export function layoutAddress(pdf: PDFKit.PDFDocument, doc: { buyer: Buyer }): AddressLayout {
  const { name, rest } = buyerAddressLines(doc);
  const height = ADDRESS.bottom - ADDRESS.y;
  pdf.font(FONT.regular);
  for (const size of ADDRESS_SIZES) {
    pdf.fontSize(size);
    const lines = [name, ...rest].flatMap((part) => wrapLines(pdf, part, ADDRESS.width));
    if (lines.length * lineStep(pdf) <= height) return { size, lines };
  }
  const capacity = Math.floor(height / lineStep(pdf));
  const restLines = rest.map((line) => ellipsize(pdf, line, ADDRESS.width));
  const nameLines = wrapLines(pdf, name, ADDRESS.width);
  const nameRoom = Math.max(1, capacity - restLines.length);
  const kept = nameLines.slice(0, nameRoom);
  if (nameLines.length > nameRoom) kept[nameRoom - 1] = ellipsize(pdf, `${kept[nameRoom - 1]}…`, ADDRESS.width);
  return { size: ADDRESS_SIZES.at(-1)!, lines: [...kept, ...restLines].slice(0, capacity) };
}

export function drawBuyerAddress(pdf: PDFKit.PDFDocument, doc: { buyer: Buyer }): void {
  const layout = layoutAddress(pdf, doc);
  pdf.font(FONT.regular).fontSize(layout.size).fillColor(COLOR.text);
  drawLines(pdf, layout.lines, ADDRESS.x, ADDRESS.y);
}

/** "Ihre USt-IdNr." — or, for a Swiss customer, the UID that stands in for it. */
function buyerTaxIdLabel(vatId: string): string {
  return isSwissVatId(vatId) ? 'Ihre UID' : 'Ihre USt-IdNr.';
}

function infoRows(doc: InvoiceDocument): [string, string][] {
  const { start, end } = doc.servicePeriod;
  const rows: [string, string][] = [
    ['Rechnungsnummer', doc.number],
    ['Rechnungsdatum', formatDate(doc.issueDate)],
    ['Kundennummer', doc.buyer.customerNumber],
    // § 14 Abs. 4 Nr. 6 UStG: a service on one day has a date, a longer one a period.
    start === end ? ['Leistungsdatum', formatDate(start)] : ['Leistungszeitraum', formatPeriod(doc.servicePeriod)],
  ];
  if (doc.type === 'invoice') rows.push(['Fällig am', formatDate(doc.dueDate)]);
  // § 14a UStG: the recipient's VAT ID on reverse-charge (and other EU B2B) invoices.
  if (doc.buyer.vatId && (doc.verdict === 'reverse_charge' || doc.verdict === 'not_taxable')) rows.push([buyerTaxIdLabel(doc.buyer.vatId), doc.buyer.vatId]);
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
    drawLines(pdf, [ellipsize(pdf, label, INFO.labelWidth - 2)], INFO.x, y + 0.5);
    // Identifiers such as a Leitweg-ID must stay on one line: shrink them to fit instead.
    pdf.font(FONT.bold).fontSize(SIZE.small).fillColor(COLOR.text);
    const text = printable(value);
    const natural = pdf.widthOfString(text);
    if (natural > valueWidth) pdf.fontSize(Math.max(4, (SIZE.small * valueWidth) / natural));
    drawLines(pdf, [ellipsize(pdf, text, valueWidth)], valueX, y);
    y += 11;
  }
}
