// The line table: Pos., Beschreibung, Menge, Einheit, Einzelpreis netto, USt %, Betrag
// netto. Rows wrap their description; a row that does not fit starts a new page, which
// repeats the running head and the column header.

import { formatDecimal, formatMoney, formatQuantity } from '../../../../shared/german-format.ts';
import type { DocumentLine, InvoiceDocument } from '../../document.ts';
import { FONT } from './fonts.ts';
import { BODY_BOTTOM, COLOR, CONTENT_WIDTH, MARGIN, SIZE } from './layout.ts';
import { drawContinuationHead } from './title.ts';

type Column = { header: string; width: number; align: 'left' | 'right'; cell: (line: DocumentLine) => string };

const FIXED: Column[] = [
  { header: 'Menge', width: 50, align: 'right', cell: (line) => formatQuantity(line.quantity) },
  { header: 'Einheit', width: 48, align: 'left', cell: (line) => line.unit ?? line.unitCode },
  { header: 'Einzelpreis netto', width: 66, align: 'right', cell: (line) => formatMoney(line.unitPriceNet) },
  { header: 'USt %', width: 34, align: 'right', cell: (line) => formatDecimal(String(line.vatRate), 0) },
  { header: 'Betrag netto', width: 70, align: 'right', cell: (line) => formatMoney(line.netAmount) },
];
const POSITION: Column = { header: 'Pos.', width: 26, align: 'left', cell: (line) => String(line.position) };
const DESCRIPTION_WIDTH = CONTENT_WIDTH - POSITION.width - FIXED.reduce((sum, column) => sum + column.width, 0);
const DESCRIPTION: Column = { header: 'Beschreibung', width: DESCRIPTION_WIDTH, align: 'left', cell: (line) => line.description };
const COLUMNS = [POSITION, DESCRIPTION, ...FIXED];
const PAD = 4;
const ROW_GAP = 5;

function drawRow(pdf: PDFKit.PDFDocument, cells: string[], y: number): void {
  let x = MARGIN.left;
  COLUMNS.forEach((column, index) => {
    // Every cell keeps PAD free on its right; the last one ends flush with the margin.
    const last = index === COLUMNS.length - 1;
    pdf.text(cells[index] ?? '', last ? x + PAD : x, y, { width: column.width - PAD, align: column.align });
    x += column.width;
  });
}

function rowHeight(pdf: PDFKit.PDFDocument, cells: string[]): number {
  return Math.max(...COLUMNS.map((column, index) => pdf.heightOfString(cells[index] ?? '', { width: column.width - PAD })));
}

function drawHeader(pdf: PDFKit.PDFDocument, y: number): number {
  pdf.font(FONT.bold).fontSize(SIZE.small).fillColor(COLOR.text);
  const cells = COLUMNS.map((column) => column.header);
  const height = rowHeight(pdf, cells);
  pdf.rect(MARGIN.left, y - 3, CONTENT_WIDTH, height + 7).fill(COLOR.band);
  pdf.fillColor(COLOR.text);
  drawRow(pdf, cells, y);
  return y + height + 8;
}

/** Draws every line, adding pages as needed; returns the y below the table on the last page. */
export function drawLinesTable(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, startY: number): number {
  let y = drawHeader(pdf, startY);
  for (const line of doc.lines) {
    pdf.font(FONT.regular).fontSize(SIZE.table);
    const cells = COLUMNS.map((column) => column.cell(line));
    const height = rowHeight(pdf, cells);
    if (y + height > BODY_BOTTOM) {
      pdf.addPage();
      y = drawHeader(pdf, drawContinuationHead(pdf, doc));
      pdf.font(FONT.regular).fontSize(SIZE.table);
    }
    pdf.fillColor(COLOR.text);
    drawRow(pdf, cells, y);
    y += height + ROW_GAP;
    pdf
      .moveTo(MARGIN.left, y - ROW_GAP / 2)
      .lineTo(MARGIN.right, y - ROW_GAP / 2)
      .lineWidth(0.3)
      .strokeColor(COLOR.rule)
      .stroke();
  }
  return y + 4;
}
