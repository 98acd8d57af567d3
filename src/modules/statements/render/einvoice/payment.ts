// BG-16: the company (buyer) pays the partner (seller): SEPA credit transfer 58 to the
// partner's IBAN (BT-84, payee BT-85 the partner, BIC BT-86), BT-83 the statement number,
// BT-20 the payout sentence of the PDF.
import type { Invoice } from '@e-invoice-eu/core';
import type { StatementDocument } from '../../statement-document.ts';
import { isNegative, payoutSentence } from '../payout.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type PaymentMeans = NonNullable<UblInvoice['cac:PaymentMeans']>[number];

export function paymentMeans(doc: StatementDocument): PaymentMeans[] {
  const { partner } = doc;
  // BR-DE-1 wants BG-16 always. A negative total (a cancellation) is offset against the
  // cancelled Gutschrift or later payouts: 97 (clearing between partners), no account.
  if (isNegative(doc)) return [{ 'cbc:PaymentMeansCode': '97', 'cbc:PaymentMeansCode@name': 'Verrechnung', 'cbc:PaymentID': doc.number }];
  // Without the partner's IBAN the transfer cannot be instructed yet: code 58/30 would need
  // BG-17 (BR-DE-23-a), so the means is 1 (not defined), as for invoices without an IBAN.
  if (!partner.iban) return [{ 'cbc:PaymentMeansCode': '1', 'cbc:PaymentID': doc.number }];
  const account: NonNullable<PaymentMeans['cac:PayeeFinancialAccount']> = {
    'cbc:ID': partner.iban.replace(/\s+/g, '').toUpperCase(),
    'cbc:Name': partner.name,
  };
  if (partner.bic) account['cac:FinancialInstitutionBranch'] = { 'cbc:ID': partner.bic };
  return [
    {
      'cbc:PaymentMeansCode': '58',
      'cbc:PaymentMeansCode@name': 'SEPA credit transfer',
      'cbc:PaymentID': doc.number,
      'cac:PayeeFinancialAccount': account,
    },
  ];
}

export function paymentTerms(doc: StatementDocument): NonNullable<UblInvoice['cac:PaymentTerms']> {
  return { 'cbc:Note': payoutSentence(doc) };
}
