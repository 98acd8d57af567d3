// renderStatementPdf: the visual A4 statement, a pure function of the snapshot, set up and
// finished like the invoice (letterhead, footer with the company data, page flow) from
// invoicing's PDF building blocks. With `facturXml` it becomes a PDF/A-3b Factur-X hybrid.

import { drawParagraphs } from '../../../invoicing/render/pdf/closing.ts';
import { endPdf } from '../../../invoicing/render/pdf/deflate.ts';
import { attachFacturX } from '../../../invoicing/render/pdf/facturx-attachment.ts';
import { registerFonts } from '../../../invoicing/render/pdf/fonts.ts';
import { drawFooters, layoutFooter } from '../../../invoicing/render/pdf/footer.ts';
import { drawLetterhead } from '../../../invoicing/render/pdf/letterhead.ts';
import { createFlow } from '../../../invoicing/render/pdf/page-flow.ts';
import { appendXmpDates, collect, createA4Pdf, documentInstant } from '../../../invoicing/render/pdf/render-pdf.ts';
import { drawAmountRows } from '../../../invoicing/render/pdf/totals.ts';
import type { StatementDocument } from '../../statement-document.ts';
import { statementTitle } from '../statement-notes.ts';
import { drawPartnerAddress, drawStatementInfoBlock } from './addressee.ts';
import { closingParagraphs } from './closing.ts';
import { drawHeading, drawStatementRunningHead } from './heading.ts';
import { drawStatementLines } from './lines-table.ts';
import { statementTotalRows } from './totals.ts';

export type RenderStatementPdfOptions = {
  /** The EN 16931 CII to embed as `factur-x.xml` (makes the PDF a PDF/A-3b). */
  facturXml?: Buffer;
};

export async function renderStatementPdf(doc: StatementDocument, options: RenderStatementPdfOptions = {}): Promise<Buffer> {
  const label = `${statementTitle(doc)} ${doc.number}`;
  const pdfA = options.facturXml !== undefined;
  const pdf = createA4Pdf({ title: label, date: doc.issueDate, pdfA });
  const done = collect(pdf);
  registerFonts(pdf);
  if (pdfA) appendXmpDates(pdf, documentInstant(doc));
  // The company is the sender: its letterhead and footer, the partner in the window.
  const sender = { seller: doc.company };
  const footer = layoutFooter(pdf, doc.company);
  const flow = createFlow(pdf, footer.bodyBottom, (page) => drawStatementRunningHead(page, doc));
  drawLetterhead(pdf, sender);
  drawPartnerAddress(pdf, doc);
  drawStatementInfoBlock(pdf, doc);
  let y = drawHeading(pdf, doc);
  y = drawStatementLines(flow, doc, y);
  y = drawAmountRows(flow, statementTotalRows(doc), y);
  drawParagraphs(flow, closingParagraphs(doc), y);
  drawFooters(pdf, footer, label);
  if (options.facturXml) attachFacturX(pdf, options.facturXml, documentInstant(doc));
  endPdf(pdf);
  return done;
}
