// BG-16 payment instructions (means code 58 = SEPA credit transfer, BT-84 IBAN, BT-86
// BIC), BT-83 remittance information and BT-20 payment terms.
import type { Invoice } from '@e-invoice-eu/core';
import { absolute, formatDate, formatMoney, legalName } from '../../../../shared/german-format.ts';
import { type InvoiceDocument, isRefund } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type PaymentMeans = NonNullable<UblInvoice['cac:PaymentMeans']>[number];

/** The payment terms sentence, shared by the PDF and BT-20 so both say the same. */
export function paymentTermsText(doc: InvoiceDocument): string {
  if (isRefund(doc)) {
    const original = doc.precedingInvoice ? ` mit Rechnung ${doc.precedingInvoice.number}` : '';
    return `Der Betrag von ${formatMoney(absolute(doc.totals.gross))} wird${original} verrechnet; einen bereits gezahlten Betrag erstatten wir Ihnen.`;
  }
  if (doc.type === 'storno') return 'Es ist nichts zu zahlen.';
  const due = formatDate(doc.dueDate);
  return `Zahlbar ohne Abzug bis ${due}.`;
}

export function paymentMeans(doc: InvoiceDocument): PaymentMeans[] {
  const { seller } = doc;
  // BR-DE-1 wants BG-16 always. A negative amount due is not transferred by the buyer to
  // the seller's account: code 97 (clearing between partners, Verrechnung) without the
  // seller's IBAN, so no receiving system reads it as a transfer order.
  if (isRefund(doc)) return [{ 'cbc:PaymentMeansCode': '97', 'cbc:PaymentMeansCode@name': 'Verrechnung oder Erstattung', 'cbc:PaymentID': doc.number }];
  // Code 58 needs the IBAN (BR-DE-23-a), so without one the instruction falls back to 1
  // (not defined) instead of claiming a transfer.
  if (!seller.iban) return [{ 'cbc:PaymentMeansCode': '1', 'cbc:PaymentID': doc.number }];
  // BT-85 is the payee: the account holder (the company, or its account_holder setting),
  // not the bank. Snapshots stored before the setting existed fall back to the legal name.
  const account: NonNullable<PaymentMeans['cac:PayeeFinancialAccount']> = {
    'cbc:ID': seller.iban.replace(/\s+/g, ''),
    'cbc:Name': seller.accountHolder ?? legalName(seller),
  };
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
