// BT-1…BT-26, BT-10, BG-14 of a self-billed invoice (german-rules §3.9, §7.2).
import type { Invoice } from '@e-invoice-eu/core';
import { BUSINESS_PROCESS_ID, type EInvoiceProfile, SPECIFICATION_ID } from '../../../invoicing/render/einvoice/header.ts';
import type { StatementDocument } from '../../statement-document.ts';
import { isNegative } from '../payout.ts';
import { STATEMENT_STORNO_PREFIX, statementStornoNote } from '../statement-notes.ts';

type UblInvoice = Invoice['ubl:Invoice'];

/**
 * Always 389 (self-billed invoice), the cancellation too: it is a 389 with negative
 * quantities, positive prices and BG-3 naming the cancelled Gutschrift, as KoSIT's test
 * case 01.20a carries negative lines in a 389. 261 (self-billed credit note) draws the
 * XRechnung warning BR-DE-17, and 381 (credit note) would drop the self-billing mark the
 * word "Gutschrift" stands for (§ 14 Abs. 4 Nr. 10 UStG) and read as issued by the partner.
 */
export const SELF_BILLED_INVOICE = '389';

export function headerTerms(doc: StatementDocument, profile: EInvoiceProfile): Partial<UblInvoice> {
  const header: Partial<UblInvoice> = {
    'cbc:CustomizationID': SPECIFICATION_ID[profile],
    'cbc:ProfileID': BUSINESS_PROCESS_ID,
    'cbc:ID': doc.number,
    'cbc:IssueDate': doc.issueDate,
    'cbc:InvoiceTypeCode': SELF_BILLED_INVOICE,
    'cbc:DocumentCurrencyCode': doc.currency,
    // BT-10 (BR-DE-15): the company, as buyer, knows the partner by its creditor number.
    'cbc:BuyerReference': doc.partner.creditorNumber,
    // The commission period is the time of the partner's service (§ 14 Abs. 4 Nr. 6 UStG).
    'cac:InvoicePeriod': { 'cbc:StartDate': doc.period.start, 'cbc:EndDate': doc.period.end },
  };
  // BT-9: the payout date; a negative total is offset, not paid.
  if (!isNegative(doc)) header['cbc:DueDate'] = doc.payoutDueDate;
  const notes =
    doc.precedingStatement && !doc.notes.some((note) => note.startsWith(STATEMENT_STORNO_PREFIX))
      ? [`${statementStornoNote(doc.kind, doc.precedingStatement)}.`, ...doc.notes]
      : doc.notes;
  if (notes.length > 0) header['cbc:Note'] = [...notes];
  if (doc.precedingStatement) {
    header['cac:BillingReference'] = [
      { 'cac:InvoiceDocumentReference': { 'cbc:ID': doc.precedingStatement.number, 'cbc:IssueDate': doc.precedingStatement.issueDate } },
    ];
  }
  return header;
}
