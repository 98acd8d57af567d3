// StatementDocument (a Gutschrift) → @e-invoice-eu/core's UBL-shaped invoice data of a
// self-billed invoice, one block per file.
import type { Invoice } from '@e-invoice-eu/core';
import type { EInvoiceProfile } from '../../../invoicing/render/einvoice/header.ts';
import type { StatementDocument } from '../../statement-document.ts';
import { headerTerms, SELF_BILLED_INVOICE } from './header.ts';
import { invoiceLines } from './lines.ts';
import { companyAsBuyer, partnerAsSeller } from './parties.ts';
import { paymentMeans, paymentTerms } from './payment.ts';
import { monetaryTotal, statementVat, taxTotal } from './tax.ts';

export function toSelfBilledInvoiceData(doc: StatementDocument, profile: EInvoiceProfile): Invoice {
  if (doc.kind !== 'self_billing') throw new Error(`statement ${doc.number} (${doc.kind}) is no Gutschrift: no e-invoice`);
  return {
    'ubl:Invoice': {
      ...headerTerms(doc, profile),
      'cbc:ID': doc.number,
      'cbc:IssueDate': doc.issueDate,
      'cbc:InvoiceTypeCode': SELF_BILLED_INVOICE,
      'cbc:DocumentCurrencyCode': doc.currency,
      'cac:AccountingSupplierParty': { 'cac:Party': partnerAsSeller(doc, profile) },
      'cac:AccountingCustomerParty': { 'cac:Party': companyAsBuyer(doc) },
      'cac:PaymentMeans': paymentMeans(doc),
      'cac:PaymentTerms': paymentTerms(doc),
      'cac:TaxTotal': taxTotal(doc),
      'cac:LegalMonetaryTotal': monetaryTotal(doc),
      'cac:InvoiceLine': invoiceLines(doc, statementVat(doc)),
    },
  };
}
