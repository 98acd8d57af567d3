// Totals: net and VAT per rate (§ 14 Abs. 4 Nr. 7/8 UStG), Gesamt netto, USt, Gesamtbetrag
// brutto; an exempt amount with the reason it is exempt. A Kleinunternehmer shows no VAT at
// all (§ 19 UStG), only the total.

import { formatMoney } from '../../../../shared/german-format.ts';
import type { InvoiceDocument, VatBreakdownEntry, VatVerdict } from '../../document.ts';
import { FONT } from './fonts.ts';
import { COLOR, MARGIN, SIZE } from './layout.ts';
import { type Flow, room } from './page-flow.ts';
import { drawLines, lineStep, wrapLines } from './text.ts';

export type AmountRow = { label: string; amount: string; bold?: boolean; ruleAbove?: boolean };

const CATEGORY_LABEL: Record<string, string> = {
  E: 'steuerfrei',
  AE: 'Steuerschuldnerschaft des Leistungsempfängers',
  O: 'nicht im Inland steuerbar',
  Z: 'steuerfrei 0 %',
};

function breakdownRows(entry: VatBreakdownEntry, verdict: VatVerdict): AmountRow[] {
  if (entry.category === 'S') {
    return [
      { label: `Nettobetrag ${entry.rate} % USt`, amount: entry.taxableAmount },
      { label: `zzgl. ${entry.rate} % USt`, amount: entry.taxAmount },
    ];
  }
  // A domestic exempt amount names its own reason (the line's tax_exemption_reason).
  if (entry.category === 'E' && verdict === 'domestic' && entry.exemptionReason)
    return [{ label: `Nettobetrag steuerfrei: ${entry.exemptionReason}`, amount: entry.taxableAmount }];
  return [{ label: `Nettobetrag (${CATEGORY_LABEL[entry.category] ?? entry.category})`, amount: entry.taxableAmount }];
}

export function totalRows(doc: InvoiceDocument): AmountRow[] {
  if (doc.verdict === 'small_business') {
    return [{ label: 'Gesamtbetrag', amount: doc.totals.gross, bold: true, ruleAbove: true }];
  }
  return [
    ...doc.vatBreakdown.flatMap((entry) => breakdownRows(entry, doc.verdict)),
    { label: 'Gesamt netto', amount: doc.totals.net, ruleAbove: true },
    { label: 'Umsatzsteuer', amount: doc.totals.tax },
    { label: 'Gesamtbetrag brutto', amount: doc.totals.gross, bold: true, ruleAbove: true },
  ];
}

const LABEL_X = MARGIN.left + 190;
const AMOUNT_WIDTH = 80;
const ROW_GAP = 3;

/** Draws the totals block (on a new page if it does not fit) and returns the y below it. */
export function drawTotals(flow: Flow, doc: InvoiceDocument, startY: number): number {
  return drawAmountRows(flow, totalRows(doc), startY);
}

function styled(pdf: PDFKit.PDFDocument, row: AmountRow): PDFKit.PDFDocument {
  return pdf
    .font(row.bold ? FONT.bold : FONT.regular)
    .fontSize(row.bold ? SIZE.body + 1 : SIZE.body)
    .fillColor(COLOR.text);
}

/**
 * Label and right-aligned amount per row, kept together (on a new page if they do not fit);
 * returns the y below. Also used by dunning notices.
 */
export function drawAmountRows(flow: Flow, rows: AmountRow[], startY: number, labelX: number = LABEL_X): number {
  const { pdf } = flow;
  const labelWidth = MARGIN.right - AMOUNT_WIDTH - labelX - 6;
  const laidOut = rows.map((row) => {
    const lines = wrapLines(styled(pdf, row), row.label, labelWidth);
    return { row, lines, height: lines.length * lineStep(pdf) };
  });
  const total = laidOut.reduce((sum, entry) => sum + entry.height + ROW_GAP, 0);
  let y = room(flow, startY + 4, total + 6);
  for (const { row, lines, height } of laidOut) {
    if (row.ruleAbove) {
      pdf
        .moveTo(labelX, y - 2)
        .lineTo(MARGIN.right, y - 2)
        .lineWidth(row.bold ? 0.8 : 0.4)
        .strokeColor(row.bold ? COLOR.accent : COLOR.rule)
        .stroke();
    }
    styled(pdf, row);
    drawLines(pdf, lines, labelX, y);
    drawLines(pdf, [formatMoney(row.amount)], MARGIN.right - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += height + ROW_GAP;
  }
  return y + 10;
}
