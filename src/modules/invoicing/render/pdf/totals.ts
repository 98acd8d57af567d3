// Totals: net and VAT per rate (§ 14 Abs. 4 Nr. 7/8 UStG), Gesamt netto, USt, Gesamtbetrag
// brutto. A Kleinunternehmer shows no VAT at all (§ 19 UStG), only the total.

import { formatMoney } from '../../../../shared/german-format.ts';
import type { InvoiceDocument, VatBreakdownEntry } from '../../document.ts';
import { FONT } from './fonts.ts';
import { BODY_BOTTOM, COLOR, MARGIN, SIZE } from './layout.ts';

export type AmountRow = { label: string; amount: string; bold?: boolean; ruleAbove?: boolean };

const CATEGORY_LABEL: Record<string, string> = {
  E: 'steuerfrei',
  AE: 'Steuerschuldnerschaft des Leistungsempfängers',
  O: 'nicht im Inland steuerbar',
  Z: 'steuerfrei 0 %',
};

function breakdownRows(entry: VatBreakdownEntry): AmountRow[] {
  if (entry.category === 'S') {
    return [
      { label: `Nettobetrag ${entry.rate} % USt`, amount: entry.taxableAmount },
      { label: `zzgl. ${entry.rate} % USt`, amount: entry.taxAmount },
    ];
  }
  return [{ label: `Nettobetrag (${CATEGORY_LABEL[entry.category] ?? entry.category})`, amount: entry.taxableAmount }];
}

export function totalRows(doc: InvoiceDocument): AmountRow[] {
  if (doc.verdict === 'small_business') {
    return [{ label: 'Gesamtbetrag', amount: doc.totals.gross, bold: true, ruleAbove: true }];
  }
  return [
    ...doc.vatBreakdown.flatMap(breakdownRows),
    { label: 'Gesamt netto', amount: doc.totals.net, ruleAbove: true },
    { label: 'Umsatzsteuer', amount: doc.totals.tax },
    { label: 'Gesamtbetrag brutto', amount: doc.totals.gross, bold: true, ruleAbove: true },
  ];
}

const LABEL_X = MARGIN.left + 190;
const AMOUNT_WIDTH = 80;
const LINE_HEIGHT = 14;

/** Draws the totals block (on a new page if it does not fit) and returns the y below it. */
export function drawTotals(pdf: PDFKit.PDFDocument, doc: InvoiceDocument, startY: number): number {
  return drawAmountRows(pdf, totalRows(doc), startY);
}

/** Label and right-aligned amount per row (on a new page if they do not fit); returns the y below. Also used by dunning notices. */
export function drawAmountRows(pdf: PDFKit.PDFDocument, rows: AmountRow[], startY: number, labelX: number = LABEL_X): number {
  let y = startY + 4;
  if (y + rows.length * LINE_HEIGHT + 10 > BODY_BOTTOM) {
    pdf.addPage();
    y = MARGIN.top;
  }
  const labelWidth = MARGIN.right - AMOUNT_WIDTH - labelX;
  for (const row of rows) {
    if (row.ruleAbove) {
      pdf
        .moveTo(labelX, y - 3)
        .lineTo(MARGIN.right, y - 3)
        .lineWidth(row.bold ? 0.8 : 0.4)
        .strokeColor(row.bold ? COLOR.accent : COLOR.rule)
        .stroke();
    }
    pdf
      .font(row.bold ? FONT.bold : FONT.regular)
      .fontSize(row.bold ? SIZE.body + 1 : SIZE.body)
      .fillColor(COLOR.text);
    const height = Math.max(pdf.heightOfString(row.label, { width: labelWidth }), LINE_HEIGHT - 3);
    pdf.text(row.label, labelX, y, { width: labelWidth });
    pdf.text(formatMoney(row.amount), MARGIN.right - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += height + 3;
  }
  return y + 10;
}
