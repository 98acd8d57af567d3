// Issued-document snapshots for the renderer tests, one per VAT verdict plus an
// XRechnung for a public buyer and a storno. Amounts are computed here with integer
// cents (round half up) so the fixtures obey the same sums the e-invoice rules check.
import type { Buyer, DocumentLine, InvoiceDocument, Seller, VatBreakdownEntry, VatCategory } from '../../../src/modules/invoicing/document.ts';

const SCALE = 1_000_000n;

function toMicros(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [int = '0', frac = ''] = decimal.replace('-', '').split('.');
  const micros = BigInt(int) * SCALE + BigInt(frac.padEnd(6, '0').slice(0, 6));
  return negative ? -micros : micros;
}

function centsToString(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** round half up (away from zero) of a value given in units of 1/divisor cent. */
function roundToCents(value: bigint, divisor: bigint): bigint {
  const abs = value < 0n ? -value : value;
  const cents = (abs * 2n + divisor) / (divisor * 2n);
  return value < 0n ? -cents : cents;
}

export const seller: Seller = {
  name: 'Kontor Demo',
  legalForm: 'GmbH',
  street: 'Friedrichstraße',
  houseNumber: '123',
  zip: '10117',
  city: 'Berlin',
  countryCode: 'DE',
  vatId: 'DE123456789',
  email: 'rechnung@kontor-demo.de',
  taxNumber: '30/123/45678',
  phone: '+49 30 1234567',
  contactName: 'Erika Mustermann',
  iban: 'DE02120300000000202051',
  bic: 'BYLADEM1001',
  bankName: 'Deutsche Kreditbank Berlin',
};

const domesticBuyer: Buyer = {
  name: 'Müller & Söhne Maschinenbau GmbH',
  street: 'Königsallee',
  houseNumber: '7a',
  zip: '40212',
  city: 'Düsseldorf',
  countryCode: 'DE',
  vatId: 'DE987654321',
  email: 'buchhaltung@mueller-soehne.de',
  customerNumber: 'K-10042',
  customerType: 'business',
  contactName: 'Hans Müller',
  leitwegId: null,
};

type LineInput = { description: string; quantity: string; unit: string; unitCode: string; price: string; rate: 0 | 7 | 19; category: VatCategory };

function makeLines(inputs: LineInput[], exemption: string | null): DocumentLine[] {
  return inputs.map((input, index) => ({
    position: index + 1,
    description: input.description,
    quantity: input.quantity,
    unit: input.unit,
    unitCode: input.unitCode,
    unitPriceNet: input.price,
    vatRate: input.rate,
    category: input.category,
    netAmount: centsToString(roundToCents(toMicros(input.quantity) * toMicros(input.price), (SCALE * SCALE) / 100n)),
    taxExemptionReason: exemption,
    productNumber: `ART-${String(index + 1).padStart(3, '0')}`,
  }));
}

function breakdown(lines: DocumentLine[], exemption: { reason: string; code: string | null } | null): VatBreakdownEntry[] {
  const groups = new Map<string, { category: VatCategory; rate: 0 | 7 | 19; cents: bigint }>();
  for (const line of lines) {
    const key = `${line.category}/${line.vatRate}`;
    const group = groups.get(key) ?? { category: line.category, rate: line.vatRate, cents: 0n };
    group.cents += toMicros(line.netAmount) / 10_000n;
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => b.rate - a.rate)
    .map((group) => ({
      category: group.category,
      rate: group.rate,
      taxableAmount: centsToString(group.cents),
      taxAmount: centsToString(roundToCents(group.cents * BigInt(group.rate), 100n)),
      exemptionReason: exemption?.reason ?? null,
      exemptionCode: exemption?.code ?? null,
    }));
}

function totals(entries: VatBreakdownEntry[]): InvoiceDocument['totals'] {
  const net = entries.reduce((sum, entry) => sum + toMicros(entry.taxableAmount) / 10_000n, 0n);
  const tax = entries.reduce((sum, entry) => sum + toMicros(entry.taxAmount) / 10_000n, 0n);
  return { net: centsToString(net), tax: centsToString(tax), gross: centsToString(net + tax) };
}

function document(base: Omit<InvoiceDocument, 'vatBreakdown' | 'totals'>, exemption: { reason: string; code: string | null } | null): InvoiceDocument {
  const vatBreakdown = breakdown(base.lines, exemption);
  return { ...base, vatBreakdown, totals: totals(vatBreakdown) };
}

const domesticLines: LineInput[] = [
  { description: 'Kontor Business – Monatsabonnement', quantity: '1', unit: 'Monat', unitCode: 'MON', price: '249.00', rate: 19, category: 'S' },
  { description: 'Zusätzliche Benutzerlizenzen', quantity: '12', unit: 'Stück', unitCode: 'C62', price: '9.90', rate: 19, category: 'S' },
  { description: 'Beratung Einführung (Remote)', quantity: '3.5', unit: 'Std.', unitCode: 'HUR', price: '120.00', rate: 19, category: 'S' },
  { description: 'Fachbuch „Rechnungswesen kompakt“', quantity: '2', unit: 'Stück', unitCode: 'C62', price: '39.95', rate: 7, category: 'S' },
  {
    description:
      'Datenmigration aus dem Altsystem inklusive Bereinigung der Kundenstammdaten, Dublettenprüfung, Zuordnung der Zahlungsbedingungen und Übernahme der offenen Posten',
    quantity: '1',
    unit: 'pauschal',
    unitCode: 'LS',
    price: '1450.00',
    rate: 19,
    category: 'S',
  },
  { description: 'Schulungsunterlagen (gedruckt)', quantity: '8', unit: 'Stück', unitCode: 'C62', price: '12.50', rate: 7, category: 'S' },
  { description: 'Speicherplatz-Erweiterung 100 GB', quantity: '1', unit: 'Monat', unitCode: 'MON', price: '19.99', rate: 19, category: 'S' },
  { description: 'API-Aufrufe über Kontingent', quantity: '12500', unit: 'Stück', unitCode: 'C62', price: '0.0015', rate: 19, category: 'S' },
  { description: 'Zeitschriften-Abonnement Steuerpraxis', quantity: '1', unit: 'Jahr', unitCode: 'ANN', price: '89.00', rate: 7, category: 'S' },
  { description: 'Vor-Ort-Termin Anfahrt', quantity: '1', unit: 'pauschal', unitCode: 'LS', price: '85.00', rate: 19, category: 'S' },
];

const invoiceBase = {
  type: 'invoice' as const,
  issueDate: '2026-11-21',
  dueDate: '2026-12-05',
  servicePeriod: { start: '2026-10-01', end: '2026-10-31' },
  currency: 'EUR' as const,
  seller,
  paymentTermsDays: 14,
  precedingInvoice: null,
};

export const domesticInvoice: InvoiceDocument = document(
  {
    ...invoiceBase,
    number: 'RE-2026-000123',
    buyer: domesticBuyer,
    verdict: 'domestic',
    lines: makeLines(domesticLines, null),
    notes: [],
    buyerReference: domesticBuyer.customerNumber,
    eInvoice: 'zugferd',
  },
  null,
);

const smallBusinessSeller: Seller = {
  ...seller,
  name: 'Grafikbüro Anna Schmidt',
  legalForm: null,
  vatId: null,
  taxNumber: '21/815/08150',
  contactName: 'Anna Schmidt',
};
const SMALL_BUSINESS_NOTE = 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Steuerbefreiung für Kleinunternehmer).';

export const smallBusinessInvoice: InvoiceDocument = document(
  {
    ...invoiceBase,
    number: 'RE-2026-000124',
    seller: smallBusinessSeller,
    buyer: { ...domesticBuyer, contactName: null },
    verdict: 'small_business',
    lines: makeLines(
      [
        { description: 'Logo-Entwurf, drei Varianten', quantity: '1', unit: 'pauschal', unitCode: 'LS', price: '650.00', rate: 0, category: 'E' },
        { description: 'Reinzeichnung und Druckdaten', quantity: '4', unit: 'Std.', unitCode: 'HUR', price: '65.00', rate: 0, category: 'E' },
      ],
      'Steuerbefreiung für Kleinunternehmer gemäß § 19 UStG',
    ),
    notes: [SMALL_BUSINESS_NOTE],
    buyerReference: domesticBuyer.customerNumber,
    eInvoice: 'zugferd',
  },
  { reason: 'Steuerbefreiung für Kleinunternehmer gemäß § 19 UStG', code: null },
);

const austrianBuyer: Buyer = {
  name: 'Alpen Software GmbH',
  street: 'Mariahilfer Straße',
  houseNumber: '88',
  zip: '1070',
  city: 'Wien',
  countryCode: 'AT',
  vatId: 'ATU58219378',
  email: 'office@alpen-software.at',
  customerNumber: 'K-20007',
  customerType: 'business',
  contactName: 'Maria Huber',
  leitwegId: null,
};

export const reverseChargeInvoice: InvoiceDocument = document(
  {
    ...invoiceBase,
    number: 'RE-2026-000125',
    buyer: austrianBuyer,
    verdict: 'reverse_charge',
    lines: makeLines(
      [
        { description: 'Kontor Business – Monatsabonnement', quantity: '1', unit: 'Monat', unitCode: 'MON', price: '249.00', rate: 0, category: 'AE' },
        { description: 'Beratung Schnittstellen', quantity: '6', unit: 'Std.', unitCode: 'HUR', price: '120.00', rate: 0, category: 'AE' },
      ],
      'Steuerschuldnerschaft des Leistungsempfängers',
    ),
    notes: ['Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge).'],
    buyerReference: austrianBuyer.customerNumber,
    eInvoice: 'zugferd',
  },
  { reason: 'Steuerschuldnerschaft des Leistungsempfängers', code: 'VATEX-EU-AE' },
);

const swissBuyer: Buyer = {
  name: 'Helvetia Data AG',
  street: 'Bahnhofstrasse',
  houseNumber: '10',
  zip: '8001',
  city: 'Zürich',
  countryCode: 'CH',
  vatId: 'CHE-123.456.789 MWST',
  email: 'finance@helvetia-data.ch',
  customerNumber: 'K-30001',
  customerType: 'business',
  contactName: null,
  leitwegId: null,
};

export const notTaxableInvoice: InvoiceDocument = document(
  {
    ...invoiceBase,
    number: 'RE-2026-000126',
    buyer: swissBuyer,
    verdict: 'not_taxable',
    lines: makeLines(
      [{ description: 'Kontor Enterprise – Jahreslizenz', quantity: '1', unit: 'Jahr', unitCode: 'ANN', price: '4800.00', rate: 0, category: 'O' }],
      'Nicht im Inland steuerbar',
    ),
    notes: ['Nicht im Inland steuerbare Leistung. Die Steuerschuld liegt beim Leistungsempfänger.'],
    buyerReference: swissBuyer.customerNumber,
    eInvoice: 'zugferd',
  },
  { reason: 'Nicht im Inland steuerbar', code: 'VATEX-EU-O' },
);

const publicBuyer: Buyer = {
  name: 'Stadtverwaltung Musterstadt',
  street: 'Rathausplatz',
  houseNumber: '1',
  zip: '04109',
  city: 'Leipzig',
  countryCode: 'DE',
  vatId: null,
  email: 'rechnungseingang@musterstadt.de',
  customerNumber: 'K-40010',
  customerType: 'business',
  contactName: 'Amt 20 – Kämmerei',
  leitwegId: '04011000-1234512345-06',
};

export const xrechnungInvoice: InvoiceDocument = document(
  {
    ...invoiceBase,
    number: 'RE-2026-000127',
    buyer: publicBuyer,
    verdict: 'domestic',
    lines: makeLines(domesticLines.slice(0, 4), null),
    notes: [],
    buyerReference: publicBuyer.leitwegId!,
    eInvoice: 'xrechnung',
  },
  null,
);

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : /^0(\.0+)?$/.test(amount) ? amount : `-${amount}`;
}

/** The storno of `original`: own number and date, same lines with negated quantities and amounts, the original's notes. */
function stornoOf(original: InvoiceDocument, number: string): InvoiceDocument {
  return {
    ...original,
    type: 'storno',
    number,
    issueDate: '2026-11-28',
    dueDate: '2026-11-28',
    lines: original.lines.map((line) => ({ ...line, quantity: negate(line.quantity), netAmount: negate(line.netAmount) })),
    vatBreakdown: original.vatBreakdown.map((entry) => ({ ...entry, taxableAmount: negate(entry.taxableAmount), taxAmount: negate(entry.taxAmount) })),
    totals: { net: negate(original.totals.net), tax: negate(original.totals.tax), gross: negate(original.totals.gross) },
    // As buildStornoDocument: the reference is BT-25/BT-26 and the title line, not a note.
    notes: original.notes,
    precedingInvoice: { number: original.number, issueDate: original.issueDate },
  };
}

/** The storno of the domestic invoice. */
export const stornoInvoice: InvoiceDocument = stornoOf(domesticInvoice, 'ST-2026-000007');

/** The storno of the reverse-charge invoice: two invoice notes (BG-1), the storno's and the verdict's. */
export const reverseChargeStornoInvoice: InvoiceDocument = stornoOf(reverseChargeInvoice, 'ST-2026-000008');

const HEALTH_EXEMPTION = 'Steuerfreie Heilbehandlung nach § 4 Nr. 14 Buchst. a UStG';

/**
 * A one-day service (BT-72, "Leistungsdatum") with a tax-exempt 0 % line and its reason, a
 * line without a unit, a unit price with six decimals, and a seller with register data,
 * managing directors and an account holder of its own.
 */
export const exemptSingleDayInvoice: InvoiceDocument = (() => {
  const taxed = makeLines(
    [
      { description: 'Praxissoftware – Tageslizenz', quantity: '1', unit: 'Tag', unitCode: 'DAY', price: '89.00', rate: 19, category: 'S' },
      { description: 'Datenübernahme je Datensatz', quantity: '1250', unit: '', unitCode: 'C62', price: '0.012345', rate: 19, category: 'S' },
    ],
    null,
  ).map((line) => ({ ...line, unit: line.unit || null }));
  const exempt = makeLines(
    [{ description: 'Physiotherapie (ärztlich verordnet)', quantity: '2', unit: 'Sitzung', unitCode: 'C62', price: '45.50', rate: 0, category: 'E' }],
    HEALTH_EXEMPTION,
  ).map((line) => ({ ...line, position: 3 }));
  const lines = [...taxed, ...exempt];
  const vatBreakdown = breakdown(lines, null).map((entry) => (entry.category === 'E' ? { ...entry, exemptionReason: HEALTH_EXEMPTION } : entry));
  return {
    ...invoiceBase,
    number: 'RE-2026-000128',
    servicePeriod: { start: '2026-11-20', end: '2026-11-20' },
    seller: {
      ...seller,
      accountHolder: 'Kontor Demo GmbH Treuhandkonto',
      registerCourt: 'Amtsgericht Berlin-Charlottenburg',
      registerNumber: 'HRB 123456 B',
      managingDirectors: ['Erika Mustermann', 'Dr. Max Mustermann-Schulze'],
    },
    buyer: domesticBuyer,
    verdict: 'domestic',
    lines,
    vatBreakdown,
    totals: totals(vatBreakdown),
    notes: [],
    buyerReference: domesticBuyer.customerNumber,
    eInvoice: 'zugferd',
  };
})();

/** A long invoice for the page-break test: `count` lines of the domestic kind. */
export function longInvoice(count: number): InvoiceDocument {
  const inputs = Array.from({ length: count }, (_, i) => domesticLines[i % domesticLines.length]!);
  return document({ ...domesticInvoice, number: 'RE-2026-000999', lines: makeLines(inputs, null) }, null);
}

export const allFixtures = {
  domestic: domesticInvoice,
  smallBusiness: smallBusinessInvoice,
  reverseCharge: reverseChargeInvoice,
  notTaxable: notTaxableInvoice,
  xrechnung: xrechnungInvoice,
  storno: stornoInvoice,
  reverseChargeStorno: reverseChargeStornoInvoice,
  exemptSingleDay: exemptSingleDayInvoice,
};
