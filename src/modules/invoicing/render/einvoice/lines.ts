// BG-25 invoice lines. A storno keeps positive unit prices and negative quantities
// (BR-27: BT-146 never negative).
import type { Invoice } from '@e-invoice-eu/core';
import type { DocumentLine, InvoiceDocument } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type InvoiceLine = UblInvoice['cac:InvoiceLine'][number];

function lineTaxCategory(line: DocumentLine): InvoiceLine['cac:Item']['cac:ClassifiedTaxCategory'] {
  const category: InvoiceLine['cac:Item']['cac:ClassifiedTaxCategory'] = {
    'cbc:ID': line.category as never,
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
  // Category O carries no line rate (BR-O-05); every other category does.
  if (line.category !== 'O') category['cbc:Percent'] = String(line.vatRate);
  return category;
}

function invoiceLine(line: DocumentLine, currency: string): InvoiceLine {
  const item: InvoiceLine['cac:Item'] = {
    'cbc:Name': line.description,
    'cac:ClassifiedTaxCategory': lineTaxCategory(line),
  };
  if (line.productNumber) item['cac:SellersItemIdentification'] = { 'cbc:ID': line.productNumber };
  return {
    'cbc:ID': String(line.position),
    'cbc:InvoicedQuantity': line.quantity,
    'cbc:InvoicedQuantity@unitCode': line.unitCode as never,
    'cbc:LineExtensionAmount': line.netAmount,
    'cbc:LineExtensionAmount@currencyID': currency as never,
    // BG-26 (BT-134/BT-135): a line billed for a period of its own, e.g. a contract's cycle.
    ...(line.servicePeriod ? { 'cac:InvoicePeriod': { 'cbc:StartDate': line.servicePeriod.start, 'cbc:EndDate': line.servicePeriod.end } } : {}),
    'cac:Item': item,
    'cac:Price': {
      'cbc:PriceAmount': line.unitPriceNet.replace(/^-/, ''),
      'cbc:PriceAmount@currencyID': currency as never,
    },
  };
}

export function invoiceLines(doc: InvoiceDocument): UblInvoice['cac:InvoiceLine'] {
  const lines = doc.lines.map((line) => invoiceLine(line, doc.currency));
  const [first, ...rest] = lines;
  if (!first) throw new Error(`invoice ${doc.number} has no lines (BR-16)`);
  return [first, ...rest];
}
