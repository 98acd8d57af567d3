// BT-1…BT-26, BT-10, BG-14: the document-level terms of the e-invoice (german-rules §3.6).
import type { Invoice } from '@e-invoice-eu/core';
import { type InvoiceDocument, isRefund, STORNO_NOTE_PREFIX, stornoNote } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];

/** Which guideline (BT-24) the XML claims: it must match the container (einvoice-notes.md). */
export type EInvoiceProfile = 'xrechnung' | 'en16931';

export const SPECIFICATION_ID: Record<EInvoiceProfile, string> = {
  xrechnung: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
  en16931: 'urn:cen.eu:en16931:2017',
};

/** BT-23 as in the KoSIT test files (Peppol billing process). */
export const BUSINESS_PROCESS_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/**
 * A storno (Stornorechnung) is a corrected invoice 384 with negative quantities and
 * positive unit prices that names the cancelled invoice in BT-25/BT-26 (german-rules §3.9;
 * without BT-25 XRechnung warns BR-DE-26).
 */
export function typeCode(doc: InvoiceDocument): '380' | '384' {
  return doc.type === 'storno' ? '384' : '380';
}

export function headerTerms(doc: InvoiceDocument, profile: EInvoiceProfile): Partial<UblInvoice> {
  const header: Partial<UblInvoice> = {
    'cbc:CustomizationID': SPECIFICATION_ID[profile],
    'cbc:ProfileID': BUSINESS_PROCESS_ID,
    'cbc:ID': doc.number,
    'cbc:IssueDate': doc.issueDate,
    'cbc:InvoiceTypeCode': typeCode(doc),
    'cbc:DocumentCurrencyCode': doc.currency,
    'cbc:BuyerReference': doc.buyerReference,
  };
  // BT-9 whenever something is to be paid (BR-CO-25 in CEN artefacts before 1.3.16 wants it
  // or BT-20 for a positive amount due). A storno's negative amount is not paid by the
  // buyer: no due date, the payment terms say it is offset or refunded.
  if (!isRefund(doc)) header['cbc:DueDate'] = doc.dueDate;
  // A service on one day is its date of supply (BT-72, "Leistungsdatum"); a longer one its
  // invoicing period (BG-14).
  if (doc.servicePeriod.start === doc.servicePeriod.end) header['cac:Delivery'] = { 'cbc:ActualDeliveryDate': doc.servicePeriod.start };
  else header['cac:InvoicePeriod'] = { 'cbc:StartDate': doc.servicePeriod.start, 'cbc:EndDate': doc.servicePeriod.end };
  // BT-22: a storno names the cancelled invoice first (snapshots stored before carry it in notes already).
  const notes =
    doc.precedingInvoice && !doc.notes.some((note) => note.startsWith(STORNO_NOTE_PREFIX)) ? [`${stornoNote(doc.precedingInvoice)}.`, ...doc.notes] : doc.notes;
  if (notes.length > 0) header['cbc:Note'] = [...notes];
  if (doc.precedingInvoice) {
    header['cac:BillingReference'] = [
      { 'cac:InvoiceDocumentReference': { 'cbc:ID': doc.precedingInvoice.number, 'cbc:IssueDate': doc.precedingInvoice.issueDate } },
    ];
  }
  return header;
}
