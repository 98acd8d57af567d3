// BG-25: one line per statement line, quantity ±1 (C62) at a price of the commission, so
// the line net is the commission exactly; a negative commission (refunds, a cancellation)
// is a quantity of -1 at a positive price (BR-27: BT-146 never negative). The revenue
// basis and percent go into the item description (BT-154), the line's period into BG-26.
import type { Invoice } from '@e-invoice-eu/core';
import { formatDecimal, formatMoney } from '../../../../shared/german-format.ts';
import type { StatementDocument, StatementDocumentLine } from '../../statement-document.ts';
import type { StatementVat } from './tax.ts';

type UblInvoice = Invoice['ubl:Invoice'];
type InvoiceLine = UblInvoice['cac:InvoiceLine'][number];

function invoiceLine(line: StatementDocumentLine, vat: StatementVat, currency: string): InvoiceLine {
  const negative = line.amount.startsWith('-');
  return {
    'cbc:ID': String(line.position),
    'cbc:InvoicedQuantity': negative ? '-1' : '1',
    'cbc:InvoicedQuantity@unitCode': 'C62',
    'cbc:LineExtensionAmount': line.amount,
    'cbc:LineExtensionAmount@currencyID': currency as never,
    'cac:InvoicePeriod': { 'cbc:StartDate': line.period.start, 'cbc:EndDate': line.period.end },
    'cac:Item': {
      'cbc:Description': `${formatDecimal(line.percent, 0)} % auf Umsatzbasis ${formatMoney(line.basis)} netto`,
      'cbc:Name': line.description,
      'cac:ClassifiedTaxCategory': { 'cbc:ID': vat.category, 'cbc:Percent': vat.rate, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } },
    },
    'cac:Price': {
      'cbc:PriceAmount': line.amount.replace(/^-/, ''),
      'cbc:PriceAmount@currencyID': currency as never,
    },
  };
}

export function invoiceLines(doc: StatementDocument, vat: StatementVat): UblInvoice['cac:InvoiceLine'] {
  const [first, ...rest] = doc.lines.map((line) => invoiceLine(line, vat, doc.currency));
  if (!first) throw new Error(`statement ${doc.number} has no lines (BR-16)`);
  return [first, ...rest];
}
