// The statement's heading: its name per kind and type ("Gutschrift", …), number and
// Abrechnungszeitraum, on a cancellation the statement it cancels, the greeting and one
// sentence saying what follows; and the running head of continuation pages.
import { formatDate } from '../../../../shared/german-format.ts';
import { FONT } from '../../../invoicing/render/pdf/fonts.ts';
import { COLOR, CONTENT_WIDTH, MARGIN, SIZE, TITLE_Y } from '../../../invoicing/render/pdf/layout.ts';
import { drawLines, wrapLines } from '../../../invoicing/render/pdf/text.ts';
import { drawRunningHead } from '../../../invoicing/render/pdf/title.ts';
import type { StatementDocument } from '../../statement-document.ts';
import { statementStornoNote, statementTitle } from '../statement-notes.ts';

/** "01.10.2026–31.10.2026", or the one day. */
export function formatStatementPeriod(period: { start: string; end: string }): string {
  return period.start === period.end ? formatDate(period.start) : `${formatDate(period.start)}–${formatDate(period.end)}`;
}

function intro(doc: StatementDocument): string {
  if (doc.type === 'cancellation') {
    const what = doc.kind === 'self_billing' ? 'Gutschrift' : 'Provisionsabrechnung';
    return `hiermit stornieren wir die oben genannte ${what} vollständig. Die Positionen werden mit umgekehrtem Vorzeichen aufgeführt.`;
  }
  switch (doc.kind) {
    case 'self_billing':
      return 'im Gutschriftsverfahren rechnen wir Ihre Provisionen für den Abrechnungszeitraum wie folgt ab:';
    case 'settlement':
      return 'für den Abrechnungszeitraum rechnen wir Ihre Provisionen wie folgt ab:';
    case 'partner_invoice':
      return 'für den Abrechnungszeitraum haben wir Ihre Provisionen wie folgt ermittelt:';
  }
}

/** Draws the heading and returns the y where the lines table starts. */
export function drawHeading(pdf: PDFKit.PDFDocument, doc: StatementDocument): number {
  // "Provisionsabrechnung – Bitte um Rechnungsstellung": the name large, the request under it.
  const [name = '', ...request] = statementTitle(doc).split(' – ');
  pdf.font(FONT.bold).fontSize(SIZE.title).fillColor(COLOR.accent);
  let y = drawLines(pdf, wrapLines(pdf, name, CONTENT_WIDTH), MARGIN.left, TITLE_Y);
  if (request.length > 0) {
    pdf.fontSize(SIZE.body + 3);
    y = drawLines(pdf, wrapLines(pdf, request.join(' – '), CONTENT_WIDTH), MARGIN.left, y);
  }
  y += 2;
  pdf
    .font(FONT.bold)
    .fontSize(SIZE.body + 1)
    .fillColor(COLOR.text);
  const subtitle = [`Nr. ${doc.number} · Abrechnungszeitraum ${formatStatementPeriod(doc.period)}`];
  if (doc.type === 'cancellation' && doc.precedingStatement) subtitle.push(statementStornoNote(doc.kind, doc.precedingStatement));
  y =
    drawLines(
      pdf,
      subtitle.flatMap((line) => wrapLines(pdf, line, CONTENT_WIDTH)),
      MARGIN.left,
      y,
    ) + 2;
  pdf.font(FONT.regular).fontSize(SIZE.body).fillColor(COLOR.text);
  const greeting = doc.partner.taxStatus === 'private_person' ? 'Guten Tag,' : 'Sehr geehrte Damen und Herren,';
  y = drawLines(pdf, [greeting, ...wrapLines(pdf, intro(doc), CONTENT_WIDTH)], MARGIN.left, y + 4, { gap: 2 });
  return y + 10;
}

/** Running head on pages 2…n, so a loose page still says which statement it belongs to. */
export function drawStatementRunningHead(pdf: PDFKit.PDFDocument, doc: StatementDocument): number {
  return drawRunningHead(pdf, `${statementTitle(doc)} ${doc.number} vom ${formatDate(doc.issueDate)} – Fortsetzung`);
}
