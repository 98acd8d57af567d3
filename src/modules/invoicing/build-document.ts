import type { Selectable } from 'kysely';
import type { CompaniesTable } from '../../db/schema.ts';
import { legalName } from '../../shared/german-format.ts';
import type { CustomerRow } from '../customers/customers.repository.ts';
import {
  type DocumentLine,
  type EInvoiceFormat,
  type InvoiceDocument,
  type Seller,
  STORNO_NOTE_PREFIX,
  type VatBreakdownEntry,
  type VatCategory,
  type VatVerdict,
} from './document.ts';
import { centsToDecimal, invoiceTotals } from './totals.ts';
import { unitCode } from './unit-codes.ts';

// Assembles the immutable InvoiceDocument at issue from the company, the customer, the
// lines (with their nets) and the VAT verdict.

export type CompanyRow = Selectable<CompaniesTable>;

export type IssuedLine = {
  description: string;
  quantity: string;
  unit: string | null;
  unitPriceNet: string;
  vatRate: 0 | 7 | 19;
  netCents: number;
  taxExemptionReason: string | null;
  productNumber: string | null;
  /** The line's own service period (contract billing); null or absent: the invoice's. */
  servicePeriod?: { start: string; end: string } | null;
};

export const VAT_NOTES: Record<Exclude<VatVerdict, 'domestic'>, string> = {
  small_business: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Steuerbefreiung für Kleinunternehmer).',
  reverse_charge: 'Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge): Die Umsatzsteuer schuldet der Leistungsempfänger.',
  not_taxable: 'Nicht im Inland steuerbare Leistung: Der Leistungsort liegt im Ausland (§ 3a Abs. 2 UStG).',
};

const EXEMPTION: Record<Exclude<VatCategory, 'S'>, { reason: string; code: string | null }> = {
  E: { reason: 'Steuerbefreiung für Kleinunternehmer gemäß § 19 UStG', code: null },
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  O: { reason: 'Nicht im Inland steuerbare Leistung', code: 'VATEX-EU-O' },
  Z: { reason: 'Nullsatz', code: null },
};

function lineCategory(verdict: VatVerdict, line: IssuedLine): VatCategory {
  if (verdict === 'small_business') return 'E';
  if (verdict === 'reverse_charge') return 'AE';
  if (verdict === 'not_taxable') return 'O';
  return line.vatRate === 0 ? 'E' : 'S';
}

/** Business customers get an e-invoice: XRechnung with a Leitweg-ID, else ZUGFeRD. */
export function eInvoiceFormat(customer: Pick<CustomerRow, 'customer_type' | 'leitweg_id'>): EInvoiceFormat {
  if (customer.leitweg_id) return 'xrechnung';
  return customer.customer_type === 'business' ? 'zugferd' : 'none';
}

function breakdown(verdict: VatVerdict, lines: (IssuedLine & { category: VatCategory })[]): VatBreakdownEntry[] {
  const groups = new Map<string, { category: VatCategory; rate: 0 | 7 | 19; lines: typeof lines }>();
  for (const line of lines) {
    const key = `${line.category}:${line.vatRate}:${line.category === 'E' && verdict === 'domestic' ? line.taxExemptionReason : ''}`;
    const group = groups.get(key) ?? { category: line.category, rate: line.vatRate, lines: [] };
    group.lines.push(line);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => {
    const [total] = invoiceTotals(group.lines.map((l) => ({ vatRate: l.vatRate, netCents: l.netCents }))).perRate;
    const exemption = group.category === 'S' ? null : EXEMPTION[group.category];
    const reason = group.category === 'E' && verdict === 'domestic' ? (group.lines[0]?.taxExemptionReason ?? null) : (exemption?.reason ?? null);
    return {
      category: group.category,
      rate: group.rate,
      taxableAmount: centsToDecimal(total?.netCents ?? 0),
      taxAmount: centsToDecimal(total?.taxCents ?? 0),
      exemptionReason: reason,
      exemptionCode: exemption?.code ?? null,
    };
  });
}

export function buildInvoiceDocument(input: {
  company: CompanyRow;
  customer: CustomerRow;
  verdict: VatVerdict;
  number: string;
  issueDate: string;
  dueDate: string;
  servicePeriod: { start: string; end: string };
  paymentTermsDays: number;
  lines: IssuedLine[];
}): InvoiceDocument {
  const { company, customer, verdict } = input;
  const lines = input.lines.map((line) => ({ ...line, category: lineCategory(verdict, line) }));
  const totals = invoiceTotals(lines.map((l) => ({ vatRate: l.vatRate, netCents: l.netCents })));
  const documentLines: DocumentLine[] = lines.map((line, i) => ({
    position: i + 1,
    description: line.description,
    quantity: line.quantity,
    unit: line.unit,
    unitCode: unitCode(line.unit),
    unitPriceNet: line.unitPriceNet,
    vatRate: line.vatRate,
    category: line.category,
    netAmount: centsToDecimal(line.netCents),
    taxExemptionReason: line.taxExemptionReason,
    productNumber: line.productNumber,
    ...(line.servicePeriod ? { servicePeriod: { ...line.servicePeriod } } : {}),
  }));
  return {
    type: 'invoice',
    number: input.number,
    issueDate: input.issueDate,
    dueDate: input.dueDate,
    servicePeriod: input.servicePeriod,
    currency: 'EUR',
    seller: sellerOf(company),
    buyer: {
      name: customer.name,
      street: customer.street,
      houseNumber: customer.house_number,
      zip: customer.zip,
      city: customer.city,
      countryCode: customer.country_code ?? 'DE',
      vatId: customer.vat_id,
      email: customer.email,
      customerNumber: String(customer.kundennummer),
      customerType: customer.customer_type,
      contactName: customer.contact_name,
      leitwegId: customer.leitweg_id,
    },
    verdict,
    lines: documentLines,
    vatBreakdown: breakdown(verdict, lines),
    totals: { net: centsToDecimal(totals.netCents), tax: centsToDecimal(totals.taxCents), gross: centsToDecimal(totals.grossCents) },
    paymentTermsDays: input.paymentTermsDays,
    notes: verdict === 'domestic' ? [] : [VAT_NOTES[verdict]],
    buyerReference: customer.leitweg_id ?? String(customer.kundennummer),
    precedingInvoice: null,
    eInvoice: eInvoiceFormat(customer),
  };
}

/**
 * The Stornorechnung of an issued invoice: same buyer, lines and rates, negated amounts.
 * The seller is the company as it is now: the storno is a document of its own, issued
 * today under today's letterhead (address, register data, bank account).
 */
export function buildStornoDocument(original: InvoiceDocument, seller: Seller, number: string, issueDate: string): InvoiceDocument {
  const negate = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : amount === '0' || /^0(\.0+)?$/.test(amount) ? amount : `-${amount}`);
  return {
    ...original,
    type: 'storno',
    number,
    seller,
    issueDate,
    dueDate: issueDate,
    lines: original.lines.map((line) => ({ ...line, quantity: negate(line.quantity), netAmount: negate(line.netAmount) })),
    vatBreakdown: original.vatBreakdown.map((entry) => ({ ...entry, taxableAmount: negate(entry.taxableAmount), taxAmount: negate(entry.taxAmount) })),
    totals: { net: negate(original.totals.net), tax: negate(original.totals.tax), gross: negate(original.totals.gross) },
    // The reference to the cancelled invoice is not a note of its own: the PDF prints it under
    // the title, the e-invoice in BT-25/BT-26 and as the first BT-22 (stornoNote).
    notes: original.notes.filter((note) => !note.startsWith(STORNO_NOTE_PREFIX)),
    precedingInvoice: { number: original.number, issueDate: original.issueDate },
  };
}

/** The company as the issuer of a document (invoice, storno, dunning notice). */
export function sellerOf(company: CompanyRow): Seller {
  return {
    name: company.name,
    legalForm: company.legal_form,
    street: company.street,
    houseNumber: company.house_number,
    zip: company.zip,
    city: company.city,
    countryCode: company.country_code,
    vatId: company.vat_id,
    taxNumber: company.tax_number,
    email: company.email,
    phone: company.phone,
    contactName: company.contact_name,
    iban: company.iban,
    bic: company.bic,
    bankName: company.bank_name,
    accountHolder: company.account_holder ?? legalName({ name: company.name, legalForm: company.legal_form }),
    registerCourt: company.register_court,
    registerNumber: company.register_number,
    managingDirectors: [...company.managing_directors],
  };
}
