// BG-16 payment instructions (means code 58 = SEPA credit transfer, BT-84 IBAN, BT-86
// BIC), BT-83 remittance information and BT-20 payment terms.
import type { Invoice } from '@e-invoice-eu/core';
import { absolute, formatDate, formatMoney } from '../../../../shared/german-format.ts';
import type { InvoiceDocument } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type PaymentMeans = NonNullable<UblInvoice['cac:PaymentMeans']>[number];

/** The payment terms sentence, shared by the PDF and BT-20 so both say the same. */
export function paymentTermsText(doc: InvoiceDocument): string {
  if (doc.type === 'storno') {
    const original = doc.precedingInvoice ? ` mit Rechnung ${doc.precedingInvoice.number}` : '';
    return `Der Betrag von ${formatMoney(absolute(doc.totals.gross))} wird${original} verrechnet oder Ihnen erstattet.`;
  }
  const due = formatDate(doc.dueDate);
  return `Zahlbar ohne Abzug bis ${due}.`;
}

export function paymentMeans(doc: InvoiceDocument): PaymentMeans[] {
  const { seller } = doc;
  // BR-DE-1 wants BG-16 always; code 58 needs the IBAN (BR-DE-23-a), so without one the
  // instruction falls back to 1 (not defined) instead of claiming a transfer.
  if (!seller.iban) return [{ 'cbc:PaymentMeansCode': '1', 'cbc:PaymentID': doc.number }];
  const account: NonNullable<PaymentMeans['cac:PayeeFinancialAccount']> = { 'cbc:ID': seller.iban.replace(/\s+/g, '') };
  if (seller.bankName) account['cbc:Name'] = seller.bankName;
  if (seller.bic) account['cac:FinancialInstitutionBranch'] = { 'cbc:ID': seller.bic };
  return [
    {
      'cbc:PaymentMeansCode': '58',
      'cbc:PaymentMeansCode@name': 'SEPA credit transfer',
      // BT-83 Verwendungszweck: the invoice number, as the PDF asks.
      'cbc:PaymentID': doc.number,
      'cac:PayeeFinancialAccount': account,
    },
  ];
}

export function paymentTerms(doc: InvoiceDocument): NonNullable<UblInvoice['cac:PaymentTerms']> {
  return { 'cbc:Note': paymentTermsText(doc) };
}
