// The statement's lines: Pos., Beschreibung (with the line's period under it), Umsatzbasis
// netto, Satz %, Provision. The number columns are as wide as their widest value, the
// description takes the rest and wraps. A row that does not fit goes to the next page,
// which repeats the running head and the column header.
import { formatDecimal, formatMoney } from '../../../../shared/german-format.ts';
import { FONT } from '../../../invoicing/render/pdf/fonts.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE } from '../../../invoicing/render/pdf/layout.ts';
import { type Flow, room } from '../../../invoicing/render/pdf/page-flow.ts';
import { type Align, drawLines, lineStep, wrapLines } from '../../../invoicing/render/pdf/text.ts';
import type { StatementDocument, StatementDocumentLine } from '../../statement-document.ts';
import { formatStatementPeriod } from './heading.ts';

type Column = { header: string; align: Align; cell: (line: StatementDocumentLine) => string; x: number; width: number };

const PAD = 4;
const ROW_GAP = 5;
const DESCRIPTION = 1;

const SPECS: Omit<Column, 'x' | 'width'>[] = [
  { header: 'Pos.', align: 'left', cell: (line) => String(line.position) },
  { header: 'Beschreibung', align: 'left', cell: (line) => line.description },
  { header: 'Umsatzbasis netto', align: 'right', cell: (line) => formatMoney(line.basis) },
  { header: 'Satz %', align: 'right', cell: (line) => formatDecimal(line.percent, 0) },
  { header: 'Provision', align: 'right', cell: (line) => formatMoney(line.amount) },
];

function layoutColumns(pdf: PDFKit.PDFDocument, doc: StatementDocument): Column[] {
  const widths = SPECS.map((spec, index) => {
    if (index === DESCRIPTION) return 0;
    pdf.font(FONT.bold).fontSize(SIZE.small);
    const header = pdf.widthOfString(spec.header);
    pdf.font(FONT.regular).fontSize(SIZE.table);
    return Math.max(header, ...doc.lines.map((line) => pdf.widthOfString(spec.cell(line)))) + PAD + 6;
  });
  widths[DESCRIPTION] = CONTENT_WIDTH - widths.reduce((sum, width) => sum + width, 0);
  let x = MARGIN.left;
  return SPECS.map((spec, index) => {
    const column = { ...spec, x, width: widths[index]! };
    x += column.width;
    return column;
  });
}

/** The text box of a column: PAD free on its right, the last one flush with the margin. */
function textBox(column: Column, last: boolean): { x: number; width: number } {
  return last ? { x: column.x + PAD, width: column.width - PAD } : { x: column.x, width: column.width - PAD };
}

function drawHeader(pdf: PDFKit.PDFDocument, columns: Column[], y: number): number {
  pdf.font(FONT.bold).fontSize(SIZE.small);
  const height = lineStep(pdf);
  pdf.rect(MARGIN.left, y - 3, CONTENT_WIDTH, height + 6).fill(COLOR.band);
  pdf.fillColor(COLOR.text);
  columns.forEach((column, index) => {
    const box = textBox(column, index === columns.length - 1);
    drawLines(pdf, [column.header], box.x, y, { width: box.width, align: column.align });
  });
  return y + height + 7;
}

const NOTE_SIZE = SIZE.small;

type Row = { description: string[]; period: string[]; height: number };

function rowOf(pdf: PDFKit.PDFDocument, line: StatementDocumentLine, columns: Column[]): Row {
  const width = textBox(columns[DESCRIPTION]!, false).width;
  pdf.font(FONT.regular).fontSize(SIZE.table);
  const description = wrapLines(pdf, line.description, width);
  const height = description.length * lineStep(pdf);
  pdf.fontSize(NOTE_SIZE);
  const period = wrapLines(pdf, `Zeitraum ${formatStatementPeriod(line.period)}`, width);
  return { description, period, height: height + period.length * lineStep(pdf) };
}

function drawRow(pdf: PDFKit.PDFDocument, line: StatementDocumentLine, row: Row, columns: Column[], y: number): void {
  pdf.font(FONT.regular).fontSize(SIZE.table).fillColor(COLOR.text);
  columns.forEach((column, index) => {
    if (index === DESCRIPTION) return;
    const box = textBox(column, index === columns.length - 1);
    drawLines(pdf, [column.cell(line)], box.x, y, { width: box.width, align: column.align });
  });
  const below = drawLines(pdf, row.description, columns[DESCRIPTION]!.x, y);
  pdf.fontSize(NOTE_SIZE).fillColor(COLOR.muted);
  drawLines(pdf, row.period, columns[DESCRIPTION]!.x, below);
}

/** Draws every line, adding pages as needed; returns the y below the table on the last page. */
export function drawStatementLines(flow: Flow, doc: StatementDocument, startY: number): number {
  const { pdf } = flow;
  const columns = layoutColumns(pdf, doc);
  pdf.font(FONT.bold).fontSize(SIZE.small);
  let y = drawHeader(pdf, columns, room(flow, startY, lineStep(pdf) + 40));
  for (const line of doc.lines) {
    const row = rowOf(pdf, line, columns);
    if (y + row.height > flow.bottom) y = drawHeader(pdf, columns, flow.newPage());
    drawRow(pdf, line, row, columns, y);
    y += row.height + ROW_GAP;
    pdf
      .moveTo(MARGIN.left, y - ROW_GAP / 2)
      .lineTo(MARGIN.right, y - ROW_GAP / 2)
      .lineWidth(0.3)
      .strokeColor(COLOR.rule)
      .stroke();
  }
  return y + 4;
}
