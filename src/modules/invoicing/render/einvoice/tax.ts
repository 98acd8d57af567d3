// BG-23 VAT breakdown with the category per verdict and BG-22 document totals
// (german-rules §3.5, §3.8). Amounts come from the snapshot as they were issued.
import type { Invoice } from '@e-invoice-eu/core';
import type { InvoiceDocument, VatBreakdownEntry, VatCategory } from '../../document.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type TaxTotal = UblInvoice['cac:TaxTotal'][number];
type VatSubtotal = NonNullable<TaxTotal['cac:TaxSubtotal']>[number];

/** BT-120 / BT-121 where the snapshot has none: the cookbook's texts and VATEX codes. */
const DEFAULT_EXEMPTION: Partial<Record<VatCategory, { reason: string; code: string | null }>> = {
  E: { reason: 'Kleinunternehmer gemäß § 19 UStG', code: null },
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  O: { reason: 'Nicht im Inland steuerbar', code: 'VATEX-EU-O' },
};

function vatSubtotal(entry: VatBreakdownEntry, currency: string): VatSubtotal {
  const category: VatSubtotal['cac:TaxCategory'] = {
    'cbc:ID': entry.category as never,
    // BT-119 in every breakdown, 0 for E/AE/O (XRechnung BR-DE-14).
    'cbc:Percent': String(entry.rate),
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
  if (entry.category !== 'S') {
    const fallback = DEFAULT_EXEMPTION[entry.category];
    const reason = entry.exemptionReason ?? fallback?.reason;
    const code = entry.exemptionCode ?? fallback?.code;
    if (reason) category['cbc:TaxExemptionReason'] = reason;
    if (code) category['cbc:TaxExemptionReasonCode'] = code as never;
  }
  return {
    'cbc:TaxableAmount': entry.taxableAmount,
    'cbc:TaxableAmount@currencyID': currency as never,
    'cbc:TaxAmount': entry.taxAmount,
    'cbc:TaxAmount@currencyID': currency as never,
    'cac:TaxCategory': category,
  };
}

export function taxTotal(doc: InvoiceDocument): UblInvoice['cac:TaxTotal'] {
  return [
    {
      // BT-110 = sum of the breakdown's tax amounts, as issued.
      'cbc:TaxAmount': doc.totals.tax,
      'cbc:TaxAmount@currencyID': doc.currency,
      'cac:TaxSubtotal': doc.vatBreakdown.map((entry) => vatSubtotal(entry, doc.currency)),
    },
  ];
}

/** BG-22: BT-106 line sum, BT-109 without VAT, BT-112 with VAT, BT-115 amount due. */
export function monetaryTotal(doc: { currency: 'EUR'; totals: { net: string; gross: string } }): UblInvoice['cac:LegalMonetaryTotal'] {
  const currency = doc.currency;
  return {
    'cbc:LineExtensionAmount': doc.totals.net,
    'cbc:LineExtensionAmount@currencyID': currency,
    'cbc:TaxExclusiveAmount': doc.totals.net,
    'cbc:TaxExclusiveAmount@currencyID': currency,
    'cbc:TaxInclusiveAmount': doc.totals.gross,
    'cbc:TaxInclusiveAmount@currencyID': currency,
    'cbc:PayableAmount': doc.totals.gross,
    'cbc:PayableAmount@currencyID': currency,
  };
}
