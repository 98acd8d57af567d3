import PDFDocument from 'pdfkit';
import { endPdf } from '../../invoicing/render/pdf/deflate.ts';
import { FONT, registerFonts } from '../../invoicing/render/pdf/fonts.ts';
import { COLOR, MM, PAGE } from '../../invoicing/render/pdf/layout.ts';
import { collect } from '../../invoicing/render/pdf/render-pdf.ts';
import { drawLines, ellipsize, lineStep, wrapLines } from '../../invoicing/render/pdf/text.ts';
import { type Block, type DocumentModel, isPlaceholder, numberedSections, placeholderText, type Text } from './document-model.ts';

// The document model as an A4 PDF: a title block, numbered headings (1, 1.1), paragraphs,
// bullet lists and tables whose cells wrap, every line measured and placed by the same text
// helpers as the invoices (invoicing/render/pdf/text.ts: nothing pdfkit wraps on its own,
// words wider than a column are broken), so no text runs past the margins. Each page's
// footer says "Seite x von y". The file's dates are `now`: same model, same bytes.
//
// The pieces come from invoicing's renderer directly (fonts, text, layout), as the dunning
// notices and statements take them: invoicing's index.ts does not export its PDF helpers.

const LEFT = 25 * MM;
const RIGHT = PAGE.width - 20 * MM;
const WIDTH = RIGHT - LEFT;
const TOP = 20 * MM;
const BOTTOM = PAGE.height - 22 * MM;
const FOOTER_Y = PAGE.height - 14 * MM;
const SIZE = { body: 9.5, table: 8.5, footer: 7.5, h1: 14, h2: 11, h3: 10, title: 24 } as const;
const CELL_PAD = 3;
const BULLET_INDENT = 12;

type Cursor = { pdf: PDFKit.PDFDocument; y: number };

function setFont(pdf: PDFKit.PDFDocument, bold: boolean, size: number, color: string = COLOR.text): void {
  pdf
    .font(bold ? FONT.bold : FONT.regular)
    .fontSize(size)
    .fillColor(color);
}

const words = (text: Text) => (isPlaceholder(text) ? placeholderText(text) : text);

/** The font of a text: placeholders in bold accent colour, so they stand out on paper too. */
function useTextFont(pdf: PDFKit.PDFDocument, text: Text, size: number): void {
  setFont(pdf, isPlaceholder(text), size, isPlaceholder(text) ? COLOR.accent : COLOR.text);
}

function newPage(cursor: Cursor): void {
  cursor.pdf.addPage();
  cursor.y = TOP;
}

/** Moves to a new page unless `height` fits below the cursor. */
function room(cursor: Cursor, height: number): void {
  if (cursor.y + height > BOTTOM && cursor.y > TOP) newPage(cursor);
}

/** Lines of one text at `x`, `width` wide, breaking across pages between lines (at least two lines stay together). */
function drawText(cursor: Cursor, text: Text, x: number, width: number, size: number, prefix?: string): void {
  const { pdf } = cursor;
  useTextFont(pdf, text, size);
  const lines = wrapLines(pdf, words(text), width);
  const step = lineStep(pdf, 1.5);
  room(cursor, step * Math.min(lines.length, 2));
  lines.forEach((line, index) => {
    if (cursor.y + step > BOTTOM) newPage(cursor);
    if (isPlaceholder(text)) {
      pdf
        .save()
        .rect(x - 2, cursor.y - 1, pdf.widthOfString(line) + 4, step)
        .fill(COLOR.band)
        .restore();
      useTextFont(pdf, text, size);
    }
    if (prefix && index === 0) {
      setFont(pdf, false, size);
      drawLines(pdf, [prefix], x - BULLET_INDENT, cursor.y);
      useTextFont(pdf, text, size);
    }
    cursor.y = drawLines(pdf, [line], x, cursor.y, { gap: 1.5 });
  });
}

/** The widest word of a column (header bold, cells in their own font): below that, a word would have to break. */
function widestWord(pdf: PDFKit.PDFDocument, block: Extract<Block, { kind: 'table' }>, column: number): number {
  setFont(pdf, true, SIZE.table);
  let widest = Math.max(0, ...(block.columns[column] ?? '').split(' ').map((word) => pdf.widthOfString(word)));
  for (const row of block.rows) {
    const cell = row[column] ?? '';
    useTextFont(pdf, cell, SIZE.table);
    widest = Math.max(
      widest,
      ...words(cell)
        .split(/\s+/)
        .map((word) => pdf.widthOfString(word)),
    );
  }
  return widest;
}

/**
 * Column widths: the relative widths of the model, but every column at least as wide as its
 * widest word (up to 45 % of the page), the others sharing the rest in their proportions.
 * When even the words do not fit side by side, the proportions stand and long words break.
 */
function columnWidths(pdf: PDFKit.PDFDocument, block: Extract<Block, { kind: 'table' }>): number[] {
  const relative = block.widths ?? block.columns.map(() => 1);
  const least = relative.map((_, i) => Math.min(widestWord(pdf, block, i) + 2 * CELL_PAD + 0.5, WIDTH * 0.45));
  const fixed = new Set<number>();
  for (let round = 0; round < relative.length; round++) {
    const free = WIDTH - [...fixed].reduce((sum, i) => sum + least[i]!, 0);
    const share = relative.reduce((sum, w, i) => (fixed.has(i) ? sum : sum + w), 0);
    if (free <= 0) break;
    const widths = relative.map((w, i) => (fixed.has(i) ? least[i]! : (w / share) * free));
    const short = widths.findIndex((w, i) => !fixed.has(i) && w < least[i]!);
    if (short === -1) return widths;
    fixed.add(short);
    if (fixed.size === relative.length) break;
  }
  const total = relative.reduce((sum, w) => sum + w, 0);
  return relative.map((w) => (w / total) * WIDTH);
}

function drawTable(cursor: Cursor, block: Extract<Block, { kind: 'table' }>): void {
  const { pdf } = cursor;
  const widths = columnWidths(pdf, block);
  const lefts = widths.map((_, i) => LEFT + widths.slice(0, i).reduce((sum, w) => sum + w, 0));
  const cellLines = (cells: Text[], bold: boolean) =>
    cells.map((cell, i) => {
      if (bold) setFont(pdf, true, SIZE.table);
      else useTextFont(pdf, cell, SIZE.table);
      return wrapLines(pdf, words(cell), widths[i]! - 2 * CELL_PAD);
    });
  setFont(pdf, false, SIZE.table);
  const step = lineStep(pdf, 1);
  const header = cellLines(block.columns, true);
  const headerHeight = Math.max(...header.map((l) => l.length)) * step + 2 * CELL_PAD;

  const drawRow = (lines: string[][], cells: Text[] | null, from: number, count: number) => {
    const height = count * step + 2 * CELL_PAD;
    if (cells === null) pdf.save().rect(LEFT, cursor.y, WIDTH, height).fill(COLOR.band).restore();
    lines.forEach((cellText, i) => {
      const cell = cells?.[i];
      if (cells === null) setFont(pdf, true, SIZE.table);
      else useTextFont(pdf, cell as Text, SIZE.table);
      drawLines(pdf, cellText.slice(from, from + count), lefts[i]! + CELL_PAD, cursor.y + CELL_PAD, { gap: 1 });
    });
    cursor.y += height;
    pdf
      .save()
      .moveTo(LEFT, cursor.y)
      .lineTo(RIGHT, cursor.y)
      .lineWidth(0.5)
      .strokeColor(cells === null ? COLOR.accent : COLOR.rule)
      .stroke()
      .restore();
  };
  const drawHeader = () => drawRow(header, null, 0, Math.max(...header.map((l) => l.length)));

  room(cursor, headerHeight + step + 2 * CELL_PAD);
  drawHeader();
  for (const cells of block.rows) {
    const lines = cellLines(cells, false);
    const rowLines = Math.max(1, ...lines.map((l) => l.length));
    // A row moves whole to the next page when it fits there; only a row taller than a page is split.
    const height = rowLines * step + 2 * CELL_PAD;
    if (cursor.y + height > BOTTOM && height + headerHeight <= BOTTOM - TOP) {
      newPage(cursor);
      drawHeader();
    }
    let done = 0;
    while (done < rowLines) {
      const count = Math.min(Math.floor((BOTTOM - cursor.y - 2 * CELL_PAD) / step), rowLines - done);
      if (count >= 1) {
        drawRow(lines, cells, done, count);
        done += count;
      }
      if (done < rowLines) {
        newPage(cursor);
        drawHeader();
      }
    }
  }
  cursor.y += 6;
}

function drawBlock(cursor: Cursor, block: Block): void {
  switch (block.kind) {
    case 'paragraph':
      drawText(cursor, block.text, LEFT, WIDTH, SIZE.body);
      cursor.y += 5;
      return;
    case 'bullets':
      for (const item of block.items) {
        drawText(cursor, item, LEFT + BULLET_INDENT, WIDTH - BULLET_INDENT, SIZE.body, '•');
        cursor.y += 2;
      }
      cursor.y += 4;
      return;
    case 'table':
      drawTable(cursor, block);
      return;
  }
}

function drawHeading(cursor: Cursor, number: string, title: string, depth: number): void {
  const { pdf } = cursor;
  const size = depth === 1 ? SIZE.h1 : depth === 2 ? SIZE.h2 : SIZE.h3;
  setFont(pdf, true, size, COLOR.accent);
  const numberWidth = pdf.widthOfString(`${number}  `);
  const lines = wrapLines(pdf, title, WIDTH - numberWidth);
  const step = lineStep(pdf, 1);
  cursor.y += depth === 1 ? 0 : 6;
  // A heading stays with at least three lines of what follows.
  room(cursor, lines.length * step + 40);
  drawLines(pdf, [number], LEFT, cursor.y);
  cursor.y = drawLines(pdf, lines, LEFT + numberWidth, cursor.y, { gap: 1 }) + (depth === 1 ? 8 : 4);
}

function drawTitleBlock(cursor: Cursor, doc: DocumentModel): void {
  const { pdf } = cursor;
  cursor.y = TOP + 22 * MM;
  setFont(pdf, true, SIZE.title, COLOR.accent);
  cursor.y = drawLines(pdf, wrapLines(pdf, doc.title, WIDTH), LEFT, cursor.y, { gap: 2 }) + 4;
  setFont(pdf, false, SIZE.h2, COLOR.muted);
  cursor.y = drawLines(pdf, wrapLines(pdf, doc.subtitle, WIDTH), LEFT, cursor.y, { gap: 2 }) + 18;
  doc.titleLines.forEach((line, index) => {
    setFont(pdf, index === 0, index === 0 ? SIZE.h1 + 2 : SIZE.h2, COLOR.text);
    cursor.y = drawLines(pdf, wrapLines(pdf, line, WIDTH), LEFT, cursor.y, { gap: 2 }) + (index === 0 ? 8 : 2);
  });
  cursor.y += 14;
  pdf.save().moveTo(LEFT, cursor.y).lineTo(RIGHT, cursor.y).lineWidth(0.75).strokeColor(COLOR.accent).stroke().restore();
  cursor.y += 14;
}

function drawContents(cursor: Cursor, doc: DocumentModel): void {
  const { pdf } = cursor;
  setFont(pdf, true, SIZE.h2, COLOR.accent);
  room(cursor, 60);
  cursor.y = drawLines(pdf, ['Inhalt'], LEFT, cursor.y) + 4;
  for (const { number, depth, section } of numberedSections(doc.sections)) {
    if (depth > 2) continue;
    setFont(pdf, depth === 1, SIZE.body);
    const indent = depth === 1 ? 0 : 18;
    const numberWidth = depth === 1 ? 18 : 26;
    const lines = wrapLines(pdf, section.title, WIDTH - indent - numberWidth);
    room(cursor, lines.length * lineStep(pdf, 1.5));
    drawLines(pdf, [number], LEFT + indent, cursor.y);
    cursor.y = drawLines(pdf, lines, LEFT + indent + numberWidth, cursor.y, { gap: 1.5 }) + (depth === 1 ? 2 : 0);
  }
}

function drawFooters(pdf: PDFKit.PDFDocument, text: string): void {
  const { start, count } = pdf.bufferedPageRange();
  for (let i = start; i < start + count; i++) {
    pdf.switchToPage(i);
    pdf
      .save()
      .moveTo(LEFT, FOOTER_Y - 4)
      .lineTo(RIGHT, FOOTER_Y - 4)
      .lineWidth(0.5)
      .strokeColor(COLOR.rule)
      .stroke()
      .restore();
    setFont(pdf, false, SIZE.footer, COLOR.muted);
    const page = `Seite ${i - start + 1} von ${count}`;
    const pageWidth = pdf.widthOfString(page);
    drawLines(pdf, [page], RIGHT - pageWidth, FOOTER_Y);
    drawLines(pdf, [ellipsize(pdf, text, WIDTH - pageWidth - 12)], LEFT, FOOTER_Y);
  }
}

/** The model as an A4 PDF; the file's creation and modification dates are `now`. */
export async function renderDocumentPdf(doc: DocumentModel, now: Date): Promise<Buffer> {
  const pdf = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    bufferPages: true,
    autoFirstPage: true,
    pdfVersion: '1.7',
    lang: 'de-DE',
    displayTitle: true,
    font: null as unknown as string,
    info: {
      Title: `${doc.title} ${doc.titleLines[0] ?? ''}`.trim().replace(/[<>&"]/g, ''),
      Creator: 'Kontor',
      Producer: 'Kontor',
      CreationDate: now,
      ModDate: now,
    },
  });
  const done = collect(pdf);
  registerFonts(pdf);
  const cursor: Cursor = { pdf, y: TOP };
  drawTitleBlock(cursor, doc);
  for (const block of doc.preface) drawBlock(cursor, block);
  cursor.y += 8;
  drawContents(cursor, doc);
  let part: PDFKit.PDFOutline | null = null;
  for (const { number, depth, section } of numberedSections(doc.sections)) {
    if (depth === 1) newPage(cursor);
    drawHeading(cursor, number, section.title, depth);
    if (depth === 1) part = pdf.outline.addItem(`${number} ${section.title}`);
    else if (depth === 2 && part) part.addItem(`${number} ${section.title}`);
    for (const block of section.blocks) drawBlock(cursor, block);
  }
  drawFooters(pdf, doc.footer);
  endPdf(pdf);
  return done;
}
