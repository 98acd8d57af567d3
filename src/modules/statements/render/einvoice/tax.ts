// BG-23 the one VAT breakdown of a Gutschrift by the partner's tax status, and BG-22 totals
// (german-rules §7.2): regular S 19 %, Kleinunternehmer E 0 % with its reason, reverse
// charge AE 0 % with VATEX-EU-AE. A private person is no Unternehmer and gets no e-invoice.
import type { Invoice } from '@e-invoice-eu/core';
import type { StatementDocument } from '../../statement-document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type TaxTotal = UblInvoice['cac:TaxTotal'][number];
type VatSubtotal = NonNullable<TaxTotal['cac:TaxSubtotal']>[number];

export type StatementVat = { category: 'S' | 'E' | 'AE'; rate: '19' | '0'; reason: string | null; code: string | null };

export function statementVat(doc: StatementDocument): StatementVat {
  switch (doc.taxNote) {
    case 'regular':
      return { category: 'S', rate: String(doc.vatRate) as '19', reason: null, code: null };
    case 'small_business':
      return { category: 'E', rate: '0', reason: 'Steuerbefreiung für Kleinunternehmer (§ 19 UStG)', code: null };
    case 'reverse_charge':
      return { category: 'AE', rate: '0', reason: 'Reverse charge', code: 'VATEX-EU-AE' };
    case 'private_person':
      throw new Error(`statement ${doc.number}: a private person's settlement has no e-invoice`);
  }
}

export function taxTotal(doc: StatementDocument): UblInvoice['cac:TaxTotal'] {
  const vat = statementVat(doc);
  const category: VatSubtotal['cac:TaxCategory'] = {
    'cbc:ID': vat.category,
    // BT-119 in every breakdown, 0 for E/AE (XRechnung BR-DE-14).
    'cbc:Percent': vat.rate,
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
  if (vat.reason) category['cbc:TaxExemptionReason'] = vat.reason;
  if (vat.code) category['cbc:TaxExemptionReasonCode'] = vat.code as never;
  return [
    {
      'cbc:TaxAmount': doc.totals.vat,
      'cbc:TaxAmount@currencyID': doc.currency,
      'cac:TaxSubtotal': [
        {
          'cbc:TaxableAmount': doc.totals.net,
          'cbc:TaxableAmount@currencyID': doc.currency,
          'cbc:TaxAmount': doc.totals.vat,
          'cbc:TaxAmount@currencyID': doc.currency,
          'cac:TaxCategory': category,
        },
      ],
    },
  ];
}

/** BT-106 line sum, BT-109 without VAT, BT-112 with VAT, BT-115 amount due (negative on a cancellation): as on invoices. */
export { monetaryTotal } from '../../../invoicing/render/einvoice/tax.ts';
