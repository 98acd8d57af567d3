// First-page letterhead: the seller's name with legal form on the left, its address and
// contact data right-aligned; the DIN 5008 sender line above the address field. Each is
// fitted to its room (the full name stands in the footer too).

import { cityLine, legalName, streetLine } from '../../../../shared/german-format.ts';
import type { Seller } from '../../document.ts';
import { FONT } from './fonts.ts';
import { ADDRESS, COLOR, MARGIN, MM, SIZE } from './layout.ts';
import { drawLines, ellipsize, fittingSize, lineStep, printable, wrapLines } from './text.ts';

const NAME_WIDTH = 95 * MM;
/** The letterhead band ends with its rule, 22 mm below the top margin. */
const RULE_Y = MARGIN.top + 22 * MM;
const BLOCK_X = MARGIN.left + 100 * MM;

/** The name in at most three lines above the rule, from 15 pt down to 9 pt (then as many lines as fit). */
function nameLayout(pdf: PDFKit.PDFDocument, name: string): { size: number; lines: string[] } {
  pdf.font(FONT.bold);
  const room = RULE_Y - 4 - MARGIN.top;
  for (let size: number = SIZE.letterhead; size >= 9; size -= 1) {
    pdf.fontSize(size);
    const lines = wrapLines(pdf, name, NAME_WIDTH);
    if (lines.length * lineStep(pdf) <= room && (lines.length <= 3 || size === 9)) return { size, lines };
  }
  pdf.fontSize(9);
  const capacity = Math.floor(room / lineStep(pdf));
  const lines = wrapLines(pdf, name, NAME_WIDTH);
  const kept = lines.slice(0, capacity);
  kept[capacity - 1] = ellipsize(pdf, `${kept[capacity - 1]}…`, NAME_WIDTH);
  return { size: 9, lines: kept };
}

export function drawLetterhead(pdf: PDFKit.PDFDocument, doc: { seller: Seller }): void {
  const { seller } = doc;
  const name = nameLayout(pdf, legalName(seller));
  pdf.font(FONT.bold).fontSize(name.size).fillColor(COLOR.accent);
  drawLines(pdf, name.lines, MARGIN.left, MARGIN.top);

  // Contact lines, right-aligned, each on one line: one that is too long shrinks, and one
  // that would not fit even at 5 pt is left to the footer, which repeats all of them.
  const contact = [streetLine(seller), cityLine(seller), seller.phone ? `Tel. ${seller.phone}` : null, seller.email].filter((line): line is string =>
    Boolean(line),
  );
  const width = MARGIN.right - BLOCK_X;
  let y = MARGIN.top + 2;
  for (const line of contact.map(printable)) {
    pdf.font(FONT.regular).fillColor(COLOR.muted);
    fittingSize(pdf, line, width, SIZE.small, 5);
    if (pdf.widthOfString(line) > width) continue;
    y = drawLines(pdf, [line], BLOCK_X, y, { width, align: 'right', gap: 1 });
  }

  pdf.moveTo(MARGIN.left, RULE_Y).lineTo(MARGIN.right, RULE_Y).lineWidth(0.8).strokeColor(COLOR.accent).stroke();
  drawSenderLine(pdf, seller);
}

/**
 * Sender line (Rücksendeangabe) so a window envelope shows where to return the letter: one
 * line in the window's width, from 6.5 pt down to 5 pt; beyond that the name is shortened,
 * never the address.
 */
function drawSenderLine(pdf: PDFKit.PDFDocument, seller: Seller): void {
  const address = [streetLine(seller), cityLine(seller)].filter(Boolean).map((part) => printable(part!));
  const full = [printable(legalName(seller)), ...address].join(' · ');
  pdf.font(FONT.regular).fillColor(COLOR.muted);
  const size = fittingSize(pdf, full, ADDRESS.width, 6.5, 5);
  let line = full;
  if (pdf.widthOfString(full) > ADDRESS.width) {
    const tail = ` · ${address.join(' · ')}`;
    line = `${ellipsize(pdf, printable(legalName(seller)), Math.max(20, ADDRESS.width - pdf.widthOfString(tail)))}${tail}`;
    line = ellipsize(pdf, line, ADDRESS.width);
  }
  pdf.fontSize(size);
  pdf.text(line, ADDRESS.x, ADDRESS.senderY, { lineBreak: false, underline: true });
}
