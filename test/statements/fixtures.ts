// Statement snapshots for the renderer tests: a Gutschrift per tax status (19 %, § 19,
// § 13b), the cancellation of one, a private person's settlement over several pages and a
// request for the partner's invoice. Amounts are computed here with exact decimals (round
// half up), so the fixtures obey the sums the e-invoice rules check.
import type { Seller } from '../../src/modules/invoicing/document.ts';
import { statementNotes } from '../../src/modules/statements/render/statement-notes.ts';
import type { StatementDocument, StatementDocumentLine, StatementPartner } from '../../src/modules/statements/statement-document.ts';
import { D, roundMoney } from '../../src/shared/decimal.ts';

export const company: Seller = {
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
  registerCourt: 'Amtsgericht Berlin (Charlottenburg)',
  registerNumber: 'HRB 123456 B',
  managingDirectors: ['Erika Mustermann'],
};

const regularPartner: StatementPartner = {
  name: 'Werbeagentur Sonnenschein GmbH',
  street: 'Schillerstraße',
  houseNumber: '12',
  zip: '80336',
  city: 'München',
  countryCode: 'DE',
  vatId: 'DE811569869',
  email: 'buchhaltung@sonnenschein-werbung.de',
  creditorNumber: '70001',
  taxNumber: '143/123/45678',
  taxStatus: 'domestic_regular',
  language: 'de',
  phone: '+49 89 4711 0',
  contactName: 'Sabine Sonnenschein',
  iban: 'DE89370400440532013000',
  ibanMasked: 'DE…3000',
  bic: 'COBADEFFXXX',
};

const smallBusinessPartner: StatementPartner = {
  name: 'Petra Schmidt Marketingberatung',
  street: 'Lindenweg',
  houseNumber: '4',
  zip: '04109',
  city: 'Leipzig',
  countryCode: 'DE',
  vatId: null,
  email: 'petra@schmidt-marketing.de',
  creditorNumber: '70002',
  taxNumber: '231/456/78901',
  taxStatus: 'domestic_small_business',
  language: 'de',
  phone: '0341 998877',
  iban: null,
  ibanMasked: null,
  bic: null,
};

const euPartner: StatementPartner = {
  name: 'Agence Lumière SARL',
  street: 'Rue de Rivoli',
  houseNumber: '48',
  zip: '75004',
  city: 'Paris',
  countryCode: 'FR',
  vatId: 'FR40303265045',
  email: 'compta@agence-lumiere.fr',
  creditorNumber: '70003',
  taxNumber: null,
  taxStatus: 'eu_reverse_charge',
  language: 'de',
  phone: '+33 1 23 45 67 89',
  iban: 'FR1420041010050500013M02606',
  ibanMasked: 'FR…2606',
  bic: 'PSSTFRPPPAR',
};

const privatePartner: StatementPartner = {
  name: 'Jonas Weber',
  street: 'Am Markt',
  houseNumber: '3',
  zip: '50667',
  city: 'Köln',
  countryCode: 'DE',
  vatId: null,
  email: 'jonas.weber@example.org',
  creditorNumber: '70004',
  taxNumber: null,
  taxStatus: 'private_person',
  language: 'de',
  iban: 'DE75512108001245126199',
  ibanMasked: 'DE…6199',
  bic: null,
};

type LineInput = { customer: string; basis: string; percent: string; month?: number };

const CUSTOMERS = ['Muster GmbH', 'Bäckerei Öztürk', 'Müller & Söhne KG', 'Grünwald Logistik AG', 'Hotel Zur Post', 'Schreinerei Weiß'];

function makeLines(inputs: LineInput[], period: { start: string; end: string }): StatementDocumentLine[] {
  return inputs.map((input, index) => ({
    position: index + 1,
    description: `Provision ${input.percent.replace('.', ',')} % auf bezahlten Umsatz – Kunde ${input.customer} (Vertragsmonat ${input.month ?? index + 1})`,
    period,
    basis: input.basis,
    percent: input.percent,
    amount: roundMoney(D(input.basis).times(input.percent).dividedBy(100)),
    entryCount: 1 + (index % 3),
  }));
}

function totals(lines: StatementDocumentLine[], rate: 0 | 19): StatementDocument['totals'] {
  const net = lines.reduce((sum, line) => sum.plus(line.amount), D(0));
  const vat = D(roundMoney(net.times(rate).dividedBy(100)));
  return { net: roundMoney(net), vat: roundMoney(vat), gross: roundMoney(net.plus(vat)) };
}

const OCTOBER = { start: '2026-10-01', end: '2026-10-31' };

function statement(
  input: Omit<StatementDocument, 'totals' | 'notes' | 'currency' | 'company' | 'period' | 'payoutDueDate'> & { period?: StatementDocument['period'] },
): StatementDocument {
  const base = { currency: 'EUR' as const, company, period: OCTOBER, payoutDueDate: '2026-11-20', ...input };
  return { ...base, totals: totals(base.lines, base.vatRate), notes: statementNotes(base) };
}

export const regularGutschrift: StatementDocument = statement({
  kind: 'self_billing',
  type: 'statement',
  number: 'GS-2026-0001',
  issueDate: '2026-11-05',
  partner: regularPartner,
  lines: makeLines(
    [
      { customer: 'Muster GmbH', basis: '1250.00', percent: '10' },
      { customer: 'Bäckerei Öztürk', basis: '399.99', percent: '12.5' },
      { customer: 'Müller & Söhne KG', basis: '-120.00', percent: '10', month: 7 },
    ],
    OCTOBER,
  ),
  vatRate: 19,
  taxNote: 'regular',
  selfBillingAgreedOn: '2026-03-15',
  precedingStatement: null,
  eInvoice: 'zugferd',
});

export const smallBusinessGutschrift: StatementDocument = statement({
  kind: 'self_billing',
  type: 'statement',
  number: 'GS-2026-0002',
  issueDate: '2026-11-05',
  partner: smallBusinessPartner,
  lines: makeLines([{ customer: 'Hotel Zur Post', basis: '2400.00', percent: '8' }], OCTOBER),
  vatRate: 0,
  taxNote: 'small_business',
  selfBillingAgreedOn: '2026-01-10',
  precedingStatement: null,
  eInvoice: 'zugferd',
});

export const reverseChargeGutschrift: StatementDocument = statement({
  kind: 'self_billing',
  type: 'statement',
  number: 'GS-2026-0003',
  issueDate: '2026-11-05',
  partner: euPartner,
  lines: makeLines(
    [
      { customer: 'Grünwald Logistik AG', basis: '5000.00', percent: '5' },
      { customer: 'Schreinerei Weiß', basis: '777.77', percent: '7.5' },
    ],
    OCTOBER,
  ),
  vatRate: 0,
  taxNote: 'reverse_charge',
  selfBillingAgreedOn: '2025-12-01',
  precedingStatement: null,
  eInvoice: 'xrechnung',
});

/** The storno of the 19 % Gutschrift: its lines and totals negated, its own number and date. */
export const cancelledGutschrift: StatementDocument = statement({
  ...regularGutschrift,
  type: 'cancellation',
  number: 'GS-2026-0004',
  issueDate: '2026-11-12',
  lines: regularGutschrift.lines.map((line) => ({
    ...line,
    basis: roundMoney(D(line.basis).negated()),
    amount: roundMoney(D(line.amount).negated()),
  })),
  precedingStatement: { number: regularGutschrift.number, issueDate: regularGutschrift.issueDate },
  eInvoice: 'xrechnung',
});

export const privateSettlement: StatementDocument = statement({
  kind: 'settlement',
  type: 'statement',
  number: 'PA-2026-0001',
  issueDate: '2026-11-05',
  partner: privatePartner,
  lines: makeLines(
    Array.from({ length: 60 }, (_, index) => ({
      customer: `${CUSTOMERS[index % CUSTOMERS.length]} ${index + 1}`,
      basis: `${100 + index * 17}.${String(index % 100).padStart(2, '0')}`,
      percent: index % 4 === 0 ? '12.5' : '10',
      month: 1 + (index % 12),
    })),
    OCTOBER,
  ),
  vatRate: 0,
  taxNote: 'private_person',
  selfBillingAgreedOn: null,
  precedingStatement: null,
  eInvoice: 'none',
});

export const partnerInvoiceRequest: StatementDocument = statement({
  kind: 'partner_invoice',
  type: 'statement',
  number: 'PA-2026-0002',
  issueDate: '2026-11-05',
  partner: { ...regularPartner, creditorNumber: '70005', name: 'Digitalberatung Nord GmbH', city: 'Hamburg', zip: '20095' },
  lines: makeLines([{ customer: 'Muster GmbH', basis: '3000.00', percent: '10' }], { start: '2026-07-01', end: '2026-09-30' }),
  period: { start: '2026-07-01', end: '2026-09-30' },
  vatRate: 19,
  taxNote: 'regular',
  selfBillingAgreedOn: null,
  precedingStatement: null,
  eInvoice: 'none',
});

export const allStatements = {
  regularGutschrift,
  smallBusinessGutschrift,
  reverseChargeGutschrift,
  cancelledGutschrift,
  privateSettlement,
  partnerInvoiceRequest,
};

/** The Gutschriften: the only statements with an e-invoice. */
export const gutschriften = { regularGutschrift, smallBusinessGutschrift, reverseChargeGutschrift, cancelledGutschrift };
