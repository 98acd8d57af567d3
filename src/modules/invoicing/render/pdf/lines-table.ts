// The line table: Pos., Beschreibung, Menge, Einheit, Einzelpreis, USt %, Betrag. The
// number columns are as wide as their widest value (a unit price with six decimals fits),
// the description takes the rest and wraps; a 0 % line names its exemption under the
// description, a line with a service period of its own names it there too. A Kleinunternehmer (§ 19 UStG) shows no VAT column. A row that does not fit
// goes to the next page (which repeats the running head and the column header); a row
// taller than a page continues its description there.

import { formatDecimal, formatMoney, formatPeriod, formatQuantity } from '../../../../shared/german-format.ts';
import type { DocumentLine, InvoiceDocument } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE } from './layout.ts';
import { type Flow, room } from './page-flow.ts';
import { type Align, drawLines, lineStep, wrapLines } from './text.ts';

type ColumnSpec = { header: string; align: Align; cell: (line: DocumentLine) => string; maxWidth?: number };
type Column = ColumnSpec & { x: number; width: number };

const PAD = 4;
const ROW_GAP = 5;
/** Below this the description would be too narrow to read: the number columns shrink their type instead. */
const MIN_DESCRIPTION = 150;

/** Which columns the document shows, in order; the description is the one with `null` width. */
function columnSpecs(doc: InvoiceDocument): ColumnSpec[] {
  const small = doc.verdict === 'small_business';
  const specs: ColumnSpec[] = [
    { header: 'Pos.', align: 'left', cell: (line) => String(line.position) },
    { header: 'Beschreibung', align: 'left', cell: (line) => line.description },
    { header: 'Menge', align: 'right', cell: (line) => formatQuantity(line.quantity) },
    // The unit as sent; nothing when none was sent (the UN/ECE code is for the e-invoice only).
    { header: 'Einheit', align: 'left', cell: (line) => line.unit ?? '', maxWidth: 64 },
    { header: small ? 'Einzelpreis' : 'Einzelpreis netto', align: 'right', cell: (line) => formatMoney(line.unitPriceNet) },
  ];
  if (!small) specs.push({ header: 'USt %', align: 'right', cell: (line) => formatDecimal(String(line.vatRate), 0) });
  specs.push({ header: small ? 'Betrag' : 'Betrag netto', align: 'right', cell: (line) => formatMoney(line.netAmount) });
  return specs;
}

/** A header on one line, or (`wrap`) its widest word: headers may wrap between words. */
function headerWidth(pdf: PDFKit.PDFDocument, header: string, wrap: boolean): number {
  pdf.font(FONT.bold).fontSize(SIZE.small);
  return Math.max(...(wrap ? header.split(' ') : [header]).map((word) => pdf.widthOfString(word)));
}

/** Column positions for this document at table type size `size`; `wrapHeaders` lets headers take two lines. */
function layoutColumns(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, size: number, wrapHeaders: boolean): Column[] {
  const specs = columnSpecs(doc);
  const widths = specs.map((spec, index) => {
    if (index === 1) return 0;
    pdf.font(FONT.regular).fontSize(size);
    const widest = Math.max(headerWidth(pdf, spec.header, wrapHeaders), ...doc.lines.map((line) => pdf.widthOfString(spec.cell(line))));
    return Math.min(widest, spec.maxWidth ?? Number.POSITIVE_INFINITY) + PAD + 2;
  });
  widths[1] = CONTENT_WIDTH - widths.reduce((sum, width) => sum + width, 0);
  let x = MARGIN.left;
  return specs.map((spec, index) => {
    const column = { ...spec, x, width: widths[index]! };
    x += column.width;
    return column;
  });
}

/**
 * The columns and type size of the table body: headers on one line and 8.5 pt; headers in
 * two lines, then smaller type, only when huge numbers leave the description too little room.
 */
function tableLayout(pdf: PDFKit.PDFDocument, doc: InvoiceDocument): { columns: Column[]; size: number } {
  for (let size: number = SIZE.table; size > 6; size -= 0.5) {
    for (const wrapHeaders of [false, true]) {
      const columns = layoutColumns(pdf, doc, size, wrapHeaders);
      if (columns[1]!.width >= MIN_DESCRIPTION) return { columns, size };
    }
  }
  return { columns: layoutColumns(pdf, doc, 6, true), size: 6 };
}

/** Each column's text right of the last one keeps PAD free on its right; the last one ends flush with the margin. */
function textBox(column: Column, last: boolean): { x: number; width: number } {
  return last ? { x: column.x + PAD, width: column.width - PAD } : { x: column.x, width: column.width - PAD };
}

function drawHeader(pdf: PDFKit.PDFDocument, columns: Column[], y: number): number {
  pdf.font(FONT.bold).fontSize(SIZE.small).fillColor(COLOR.text);
  const cells = columns.map((column, index) => wrapLines(pdf, column.header, textBox(column, index === columns.length - 1).width));
  const height = Math.max(...cells.map((lines) => lines.length)) * lineStep(pdf);
  pdf.rect(MARGIN.left, y - 3, CONTENT_WIDTH, height + 6).fill(COLOR.band);
  pdf.fillColor(COLOR.text);
  columns.forEach((column, index) => {
    const box = textBox(column, index === columns.length - 1);
    drawLines(pdf, cells[index]!, box.x, y, { width: box.width, align: column.align });
  });
  return y + height + 7;
}

/** A description line in the row's own style: the text, or the muted exemption note under it. */
type DescriptionLine = { text: string; note: boolean };

type Row = { cells: string[][]; description: DescriptionLine[] };

function noteSize(size: number): number {
  return Math.min(SIZE.small, size - 0.5);
}

function rowOf(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, line: DocumentLine, columns: Column[], size: number): Row {
  pdf.font(FONT.regular).fontSize(size);
  const cells = columns.map((column, index) => (index === 1 ? [] : wrapLines(pdf, column.cell(line), textBox(column, index === columns.length - 1).width)));
  const width = textBox(columns[1]!, false).width;
  const description: DescriptionLine[] = wrapLines(pdf, line.description, width).map((text) => ({ text, note: false }));
  // A line billed for a period of its own (a contract's cycle) says which, under its text.
  if (line.servicePeriod) {
    const label = line.servicePeriod.start === line.servicePeriod.end ? 'Leistungsdatum' : 'Leistungszeitraum';
    pdf.fontSize(noteSize(size));
    description.push(...wrapLines(pdf, `${label} ${formatPeriod(line.servicePeriod)}`, width).map((text) => ({ text, note: true })));
  }
  // § 14 Abs. 4 Nr. 8 UStG: a tax-exempt line says why, next to the amount it exempts.
  if (line.category === 'E' && doc.verdict === 'domestic' && line.taxExemptionReason) {
    pdf.fontSize(noteSize(size));
    description.push(...wrapLines(pdf, `Steuerfrei: ${line.taxExemptionReason}`, width).map((text) => ({ text, note: true })));
  }
  return { cells, description };
}

/** The height of each description line, in its own style. */
function descriptionSteps(pdf: PDFKit.PDFDocument, lines: DescriptionLine[], size: number): number[] {
  pdf.font(FONT.regular);
  return lines.map((line) => lineStep(pdf.fontSize(line.note ? noteSize(size) : size)));
}

/** The height of the number cells (the tallest of them). */
function cellsHeight(pdf: PDFKit.PDFDocument, cells: string[][], size: number): number {
  pdf.font(FONT.regular).fontSize(size);
  return Math.max(0, ...cells.map((lines) => lines.length)) * lineStep(pdf);
}

const sum = (heights: number[]) => heights.reduce((total, height) => total + height, 0);

/** Draws the number cells (when given) and description lines of one row part at y. */
function drawRowPart(pdf: PDFKit.PDFDocument, columns: Column[], cells: string[][] | null, description: DescriptionLine[], y: number, size: number): void {
  pdf.font(FONT.regular).fontSize(size).fillColor(COLOR.text);
  if (cells) {
    columns.forEach((column, index) => {
      if (index === 1) return;
      const box = textBox(column, index === columns.length - 1);
      drawLines(pdf, cells[index]!, box.x, y, { width: box.width, align: column.align });
    });
  }
  let top = y;
  for (const line of description) {
    pdf
      .font(FONT.regular)
      .fontSize(line.note ? noteSize(size) : size)
      .fillColor(line.note ? COLOR.muted : COLOR.text);
    top = drawLines(pdf, [line.text], columns[1]!.x, top);
  }
}

function rule(pdf: PDFKit.PDFDocument, y: number): void {
  pdf.moveTo(MARGIN.left, y).lineTo(MARGIN.right, y).lineWidth(0.3).strokeColor(COLOR.rule).stroke();
}

/** Draws every line, adding pages as needed; returns the y below the table on the last page. */
export function drawLinesTable(flow: Flow, doc: InvoiceDocument, startY: number): number {
  const { pdf } = flow;
  const { columns, size } = tableLayout(pdf, doc);
  pdf.font(FONT.bold).fontSize(SIZE.small);
  const headerHeight = lineStep(pdf) * 2 + 7;
  const newPage = () => drawHeader(pdf, columns, flow.newPage());
  let y = drawHeader(pdf, columns, room(flow, startY, headerHeight + 20));
  for (const line of doc.lines) {
    const row = rowOf(pdf, doc, line, columns, size);
    const steps = descriptionSteps(pdf, row.description, size);
    const numbers = cellsHeight(pdf, row.cells, size);
    if (y + Math.max(numbers, sum(steps)) > flow.bottom) y = newPage();
    let cells: string[][] | null = row.cells;
    let start = 0;
    // A row taller than a whole page: its description goes on on the next pages.
    while (y + Math.max(sum(steps.slice(start)), cells ? numbers : 0) > flow.bottom) {
      let end = start;
      let height = 0;
      while (end < steps.length && y + height + steps[end]! <= flow.bottom) height += steps[end++]!;
      end = Math.max(end, start + 1);
      drawRowPart(pdf, columns, cells, row.description.slice(start, end), y, size);
      start = end;
      cells = null;
      y = newPage();
    }
    const partHeight = Math.max(sum(steps.slice(start)), cells ? numbers : 0);
    drawRowPart(pdf, columns, cells, row.description.slice(start), y, size);
    y += partHeight + ROW_GAP;
    rule(pdf, y - ROW_GAP / 2);
  }
  return y + 4;
}
