// InvoiceDocument → @e-invoice-eu/core's UBL-shaped invoice data, one block per file.
import type { Invoice } from '@e-invoice-eu/core';
import type { InvoiceDocument } from '../../document.ts';
import { type EInvoiceProfile, headerTerms } from './header.ts';
import { invoiceLines } from './lines.ts';
import { buyerParty, sellerParty } from './parties.ts';
import { paymentMeans, paymentTerms } from './payment.ts';
import { monetaryTotal, taxTotal } from './tax.ts';

export function toInvoiceData(doc: InvoiceDocument, profile: EInvoiceProfile): Invoice {
  const header = headerTerms(doc, profile);
  // Key order follows the UBL schema: the library walks its own table, but the JSON
  // stays readable next to the samples.
  return {
    'ubl:Invoice': {
      ...header,
      'cbc:ID': doc.number,
      'cbc:IssueDate': doc.issueDate,
      'cbc:InvoiceTypeCode': header['cbc:InvoiceTypeCode']!,
      'cbc:DocumentCurrencyCode': doc.currency,
      'cac:AccountingSupplierParty': { 'cac:Party': sellerParty(doc) },
      'cac:AccountingCustomerParty': { 'cac:Party': buyerParty(doc) },
      'cac:PaymentMeans': paymentMeans(doc),
      'cac:PaymentTerms': paymentTerms(doc),
      'cac:TaxTotal': taxTotal(doc),
      'cac:LegalMonetaryTotal': monetaryTotal(doc),
      'cac:InvoiceLine': invoiceLines(doc),
    },
  };
}
