// What @e-invoice-eu/core 2.3.4 drops from valid input, written into its CII text here
// (checked against the library's source; remove when it is fixed):
// - `ram:ApplicableHeaderTradeDelivery` is mandatory in the CII schema but only written
//   when the data has a delivery; the KoSIT test files carry it empty, as done here.
// - BT-29 seller identifier: its table walks `cac:PartyIdentification` as an array with an
//   empty source path and never emits `ram:ID` in `ram:SellerTradeParty`.
// - BG-3 preceding invoice (BT-25/BT-26): it reads `cac:BillingReference/cbc:ID` where its
//   own schema nests `cac:InvoiceDocumentReference/cbc:ID`, and would write BT-26 as `udt:`
//   with dashes where CII wants `qdt:DateTimeString format="102"` (cf. KoSIT test 01.18a).
// - BG-1 invoice notes: it writes every note as another `ram:Content` of one
//   `ram:IncludedNote`; each note (BT-22) is an `ram:IncludedNote` of its own, and the
//   Factur-X EN 16931 schema allows one `ram:Content` per note (a storno of a
//   reverse-charge invoice has two notes).
import type { Invoice } from '@e-invoice-eu/core';

const SELLER_OPEN = '<ram:SellerTradeParty>';
const TOTALS_CLOSE = '</ram:SpecifiedTradeSettlementHeaderMonetarySummation>';
const AGREEMENT_CLOSE = '</ram:ApplicableHeaderTradeAgreement>';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function insertAfter(xml: string, anchor: string, block: string): string {
  const at = xml.indexOf(anchor);
  if (at < 0) throw new Error(`CII patch: anchor ${anchor} not found`);
  const end = at + anchor.length;
  return xml.slice(0, end) + block + xml.slice(end);
}

/** BT-29 as the first child of the seller, where the CII schema orders `ram:ID`. */
function withSellerIdentifier(xml: string, data: Invoice): string {
  const id = data['ubl:Invoice']['cac:AccountingSupplierParty']['cac:Party']['cac:PartyIdentification']?.[0]?.['cbc:ID'];
  if (!id || /<ram:SellerTradeParty>\s*<ram:ID>/.test(xml)) return xml;
  return insertAfter(xml, SELLER_OPEN, `\n\t\t\t\t<ram:ID>${escapeXml(id)}</ram:ID>`);
}

/** BG-3 right after the document totals, where the CII schema orders it. */
function withPrecedingInvoice(xml: string, data: Invoice): string {
  const reference = data['ubl:Invoice']['cac:BillingReference']?.[0]?.['cac:InvoiceDocumentReference'];
  if (!reference || xml.includes('<ram:InvoiceReferencedDocument>')) return xml;
  const indent = '\n\t\t\t';
  let block = `${indent}<ram:InvoiceReferencedDocument>${indent}\t<ram:IssuerAssignedID>${escapeXml(reference['cbc:ID'])}</ram:IssuerAssignedID>`;
  if (reference['cbc:IssueDate']) {
    const date = reference['cbc:IssueDate'].replaceAll('-', '');
    block += `${indent}\t<ram:FormattedIssueDateTime>${indent}\t\t<qdt:DateTimeString format="102">${date}</qdt:DateTimeString>${indent}\t</ram:FormattedIssueDateTime>`;
  }
  block += `${indent}</ram:InvoiceReferencedDocument>`;
  return insertAfter(xml, TOTALS_CLOSE, block);
}

/** The header delivery between agreement and settlement, empty when there is nothing to say. */
function withHeaderDelivery(xml: string): string {
  if (xml.includes('<ram:ApplicableHeaderTradeDelivery')) return xml;
  return insertAfter(xml, AGREEMENT_CLOSE, '\n\t\t<ram:ApplicableHeaderTradeDelivery/>');
}

const NOTE = /^([ \t]*)<ram:IncludedNote>\s*((?:<ram:Content>[^<]*<\/ram:Content>\s*){2,})<\/ram:IncludedNote>/m;

/** One `ram:IncludedNote` per note where the library put several `ram:Content` into one. */
function withSeparateNotes(xml: string): string {
  return xml.replace(NOTE, (_, indent: string, contents: string) =>
    (contents.match(/<ram:Content>[^<]*<\/ram:Content>/g) ?? [])
      .map((content) => `${indent}<ram:IncludedNote>\n${indent}\t${content}\n${indent}</ram:IncludedNote>`)
      .join('\n'),
  );
}

export function patchCii(xml: string, data: Invoice): string {
  return withSeparateNotes(withHeaderDelivery(withPrecedingInvoice(withSellerIdentifier(xml, data), data)));
}
