// Footer on every page: the seller's address, contact, company-law details (register
// court and number, managing directors: § 35a GmbHG, § 37a HGB, § 80 AktG), tax numbers
// (§ 14 Abs. 4 Nr. 2 UStG) and bank, and the page line "RE-… · Seite x von n". Laid out
// once per document before the body (a long footer grows upwards and the body ends
// higher), drawn at the end over the buffered pages, when n is known.

import { directorsLabel } from '../../../../shared/company-law.ts';
import { cityLine, formatIban, legalName, streetLine } from '../../../../shared/german-format.ts';
import type { Seller } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, FOOTER, MARGIN, SIZE } from './layout.ts';
import { drawLines, fittingSize, lineStep, printable, wrapLines } from './text.ts';

/** One entry of a column: running text wraps at spaces; an identifier (e-mail, IBAN) stays on one line and shrinks to fit. */
type Item = { text: string; identifier?: boolean };

/** What each footer column says, top to bottom. */
export function footerColumns(seller: Seller): Item[][] {
  const name = legalName(seller);
  const registered = Boolean(seller.registerCourt && seller.registerNumber);
  const directors = seller.managingDirectors ?? [];
  const holder = seller.accountHolder;
  const items = (list: (Item | string | null | undefined | false)[]): Item[] =>
    list.filter((item): item is Item | string => Boolean(item)).map((item) => (typeof item === 'string' ? { text: item } : item));
  return [
    items([name, streetLine(seller), cityLine(seller), registered && seller.city ? `Sitz: ${seller.city}` : null]),
    items([
      seller.phone ? { text: `Tel. ${seller.phone}`, identifier: true } : null,
      seller.email ? { text: seller.email, identifier: true } : null,
      seller.taxNumber ? { text: `Steuernummer: ${seller.taxNumber}`, identifier: true } : null,
      seller.vatId ? { text: `USt-IdNr.: ${seller.vatId}`, identifier: true } : null,
    ]),
    items([
      // "Amtsgericht Köln" names itself; a bare place gets the label.
      registered ? (/gericht|^AG\b/i.test(seller.registerCourt ?? '') ? `${seller.registerCourt}` : `Registergericht: ${seller.registerCourt}`) : null,
      registered ? { text: `${seller.registerNumber}`, identifier: true } : null,
      // Lines break between the names, not inside one (no-break spaces within a name).
      directors.length > 0 ? `${directorsLabel(seller.legalForm)}: ${directors.map((director) => director.replace(/ /g, '\u00a0')).join(', ')}` : null,
    ]),
    items([
      seller.bankName,
      seller.iban ? { text: `IBAN: ${formatIban(seller.iban)}`, identifier: true } : null,
      seller.bic ? { text: `BIC: ${seller.bic}`, identifier: true } : null,
      seller.iban && holder && holder !== name ? `Kontoinhaber: ${holder}` : null,
    ]),
  ].filter((column) => column.length > 0);
}

const TEXT_SIZE = SIZE.small - 0.5;
/** Identifiers shrink down to this before they break (never mid-word above it). */
const MIN_SIZE = 5;
const GAP = 0.5;

type Line = { text: string; size: number };
type Column = { x: number; top: number; width: number; lines: Line[] };

export type FooterLayout = {
  columns: Column[];
  ruleY: number;
  pageLineY: number;
  /** The body of every page ends here. */
  bodyBottom: number;
};

function layoutItem(pdf: PDFKit.PDFDocument, item: Item, width: number): Line[] {
  pdf.font(FONT.regular).fontSize(TEXT_SIZE);
  const text = printable(item.text);
  if (!item.identifier) return wrapLines(pdf, text, width).map((line) => ({ text: line, size: TEXT_SIZE }));
  const size = fittingSize(pdf, text, width, TEXT_SIZE, MIN_SIZE, 0.25);
  // Wider than the column even at the smallest size (the two-row layout prevents this for
  // any identifier up to half the page): broken as a last resort.
  return wrapLines(pdf, text, width).map((line) => ({ text: line, size }));
}

function columnHeight(pdf: PDFKit.PDFDocument, lines: Line[]): number {
  return lines.reduce((sum, line) => sum + lineStep(pdf.font(FONT.regular).fontSize(line.size), GAP), 0);
}

/** Running text wraps rather than widen its column beyond MAX_TEXT_WIDTH, or narrow it below MIN_TEXT_WIDTH. */
const MAX_TEXT_WIDTH = 150;
const MIN_TEXT_WIDTH = 70;
const COLUMN_GAP = 8;
const ROW_GAP = 4;

type Wish = { want: number; floor: number };

function wishes(pdf: PDFKit.PDFDocument, items: Item[][]): Wish[] {
  pdf.font(FONT.regular).fontSize(TEXT_SIZE);
  return items.map((column) => {
    let want = 0;
    let floor = 0;
    for (const item of column) {
      const text = printable(item.text);
      const width = pdf.widthOfString(text);
      // Running text may wrap between words, but no narrower than its longest word (a name
      // joined by no-break spaces counts as one).
      const longestWord = Math.max(...text.split(' ').map((word) => pdf.widthOfString(word)));
      want = Math.max(want, item.identifier ? width : Math.max(Math.min(width, MAX_TEXT_WIDTH), longestWord));
      floor = Math.max(floor, item.identifier ? (width * MIN_SIZE) / TEXT_SIZE : Math.max(Math.min(width, MIN_TEXT_WIDTH), longestWord));
    }
    return { want, floor };
  });
}

/**
 * Column widths from what they hold. Each column wants its widest identifier at full size
 * or its widest line of text (up to MAX_TEXT_WIDTH); when the wishes exceed the width, the
 * widest give way first (one ceiling for all, never below a column's floor: identifiers at
 * the smallest size that reads, text at MIN_TEXT_WIDTH). Null when even the floors do not fit.
 */
function columnWidths(list: Wish[], available: number): number[] | null {
  const sum = (widths: number[]) => widths.reduce((total, width) => total + width, 0);
  const wanted = sum(list.map((wish) => wish.want));
  if (wanted <= available) return list.map((wish) => (wish.want * available) / wanted);
  if (sum(list.map((wish) => wish.floor)) > available) return null;
  const widthsAt = (ceiling: number) => list.map((wish) => Math.min(wish.want, Math.max(wish.floor, ceiling)));
  let low = 0;
  let high = Math.max(...list.map((wish) => wish.want));
  for (let i = 0; i < 30; i++) {
    const mid = (low + high) / 2;
    if (sum(widthsAt(mid)) <= available) low = mid;
    else high = mid;
  }
  const widths = widthsAt(low);
  const spare = (available - sum(widths)) / widths.length;
  return widths.map((width) => width + spare);
}

/** The columns in rows: all side by side, or (when even their floors are too wide) two rows of two. */
function rowsOf(pdf: PDFKit.PDFDocument, items: Item[][]): { items: Item[][]; widths: number[] }[] {
  const all = wishes(pdf, items);
  const width = (count: number) => CONTENT_WIDTH - COLUMN_GAP * (count - 1);
  const one = columnWidths(all, width(items.length));
  if (one) return [{ items, widths: one }];
  const half = Math.ceil(items.length / 2);
  return [items.slice(0, half), items.slice(half)].map((row, index) => {
    const rowWishes = index === 0 ? all.slice(0, half) : all.slice(half);
    const widths = columnWidths(rowWishes, width(row.length)) ?? rowWishes.map(() => width(row.length) / row.length);
    return { items: row, widths };
  });
}

/** Lays out the footer of `seller` (the same on every page). */
export function layoutFooter(pdf: PDFKit.PDFDocument, seller: Seller): FooterLayout {
  const columns: Column[] = [];
  let top = 0;
  for (const row of rowsOf(pdf, footerColumns(seller))) {
    let x = MARGIN.left;
    const laidOut = row.items.map((column, index) => {
      const width = row.widths[index]!;
      const result = { x, top, width, lines: column.flatMap((item) => layoutItem(pdf, item, width)) };
      x += width + COLUMN_GAP;
      return result;
    });
    columns.push(...laidOut);
    top += Math.max(0, ...laidOut.map((column) => columnHeight(pdf, column.lines))) + ROW_GAP;
  }
  const height = top - ROW_GAP;
  const ruleY = Math.min(FOOTER.ruleY, FOOTER.textBottom - height - 5);
  const pageLineY = ruleY - 14;
  return { columns, ruleY, pageLineY, bodyBottom: pageLineY - 6 };
}

/** Draws the footer and "<label> · Seite x von n" on every buffered page. */
export function drawFooters(pdf: PDFKit.PDFDocument, layout: FooterLayout, label: string): void {
  const range = pdf.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index++) {
    pdf.switchToPage(index);
    pdf.font(FONT.regular).fontSize(SIZE.small).fillColor(COLOR.muted);
    drawLines(pdf, [`${label} · Seite ${index + 1} von ${range.count}`], MARGIN.left, layout.pageLineY, { width: CONTENT_WIDTH, align: 'right' });
    pdf.moveTo(MARGIN.left, layout.ruleY).lineTo(MARGIN.right, layout.ruleY).lineWidth(0.4).strokeColor(COLOR.rule).stroke();
    for (const column of layout.columns) {
      let y = layout.ruleY + 5 + column.top;
      for (const line of column.lines) {
        pdf.font(FONT.regular).fontSize(line.size).fillColor(COLOR.muted);
        y = drawLines(pdf, [line.text], column.x, y, { gap: GAP });
      }
    }
  }
}
