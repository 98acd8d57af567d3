// The partner in the DIN 5008 window and the information block beside it: number, date,
// creditor number and, on a Gutschrift, the tax numbers § 14 Abs. 4 Nr. 2 UStG asks for —
// the partner's (the supplier's), and the company's USt-IdNr. as the recipient's.
import { formatDate } from '../../../../shared/german-format.ts';
import type { Buyer } from '../../../invoicing/document.ts';
import { drawBuyerAddress, drawInfoRows } from '../../../invoicing/render/pdf/parties.ts';
import type { StatementDocument } from '../../statement-document.ts';

/** The partner as the invoice window lays out an addressee (no attention line: partners have no contact person). */
function addressee(doc: StatementDocument): { buyer: Buyer } {
  const { partner } = doc;
  return {
    buyer: {
      ...partner,
      customerNumber: partner.creditorNumber,
      customerType: partner.taxStatus === 'private_person' ? 'private' : 'business',
      contactName: null,
      leitwegId: null,
    },
  };
}

export function drawPartnerAddress(pdf: PDFKit.PDFDocument, doc: StatementDocument): void {
  drawBuyerAddress(pdf, addressee(doc));
}

export function infoRows(doc: StatementDocument): [string, string][] {
  const selfBilling = doc.kind === 'self_billing';
  const rows: [string, string][] = [
    [selfBilling ? 'Gutschrift-Nr.' : 'Abrechnungs-Nr.', doc.number],
    ['Datum', formatDate(doc.issueDate)],
    ['Kreditor-Nr.', doc.partner.creditorNumber],
  ];
  if (selfBilling) {
    if (doc.partner.vatId) rows.push(['Ihre USt-IdNr.', doc.partner.vatId]);
    if (doc.partner.taxNumber) rows.push(['Ihre Steuernummer', doc.partner.taxNumber]);
    if (doc.company.vatId) rows.push(['Unsere USt-IdNr.', doc.company.vatId]);
  }
  return rows;
}

export function drawStatementInfoBlock(pdf: PDFKit.PDFDocument, doc: StatementDocument): void {
  drawInfoRows(pdf, infoRows(doc));
}
