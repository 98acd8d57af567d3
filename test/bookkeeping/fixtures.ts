import type { DatabaseHandle } from '../../src/db/connection.ts';
import type { Chart } from '../../src/db/schema-bookkeeping.ts';
import { inTransaction } from '../../src/db/transaction.ts';
import { bootstrapOrganization } from '../../src/modules/access/index.ts';
import { type BookingResult, bookInvoice } from '../../src/modules/bookkeeping/index.ts';
import type { DocumentLine, InvoiceDocument, VatBreakdownEntry, VatCategory, VatVerdict } from '../../src/modules/invoicing/document.ts';
import { COMPANY_FILE, sealer } from '../helpers/company.ts';

// InvoiceDocument snapshots for booking tests, built the way issuing builds them: line
// nets, tax per rate = round half up(sum of nets × rate / 100), totals as sums.

export type LineSpec = { net: string; rate: 0 | 7 | 19; category?: VatCategory; description?: string };

const cents = (amount: string) => {
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return amount.startsWith('-') ? -value : value;
};
const money = (value: number) => (value < 0 ? '-' : '') + (Math.abs(value) / 100).toFixed(2);

function defaultCategory(verdict: VatVerdict, rate: 0 | 7 | 19): VatCategory {
  if (rate > 0) return 'S';
  return verdict === 'small_business' ? 'E' : verdict === 'reverse_charge' ? 'AE' : verdict === 'not_taxable' ? 'O' : 'E';
}

export type DocOptions = {
  number?: string;
  issueDate?: string;
  verdict?: VatVerdict;
  customerNumber?: string;
  buyerName?: string;
  buyerVatId?: string | null;
  lines?: LineSpec[];
};

export function invoiceDocument(options: DocOptions = {}): InvoiceDocument {
  const verdict = options.verdict ?? 'domestic';
  const issueDate = options.issueDate ?? '2026-03-15';
  const specs = options.lines ?? [
    { net: '1000.00', rate: 19 },
    { net: '100.00', rate: 7 },
  ];
  const lines: DocumentLine[] = specs.map((spec, i) => ({
    position: i + 1,
    description: spec.description ?? `Leistung ${i + 1}`,
    quantity: '1',
    unit: null,
    unitCode: 'C62',
    unitPriceNet: spec.net,
    vatRate: spec.rate,
    category: spec.category ?? defaultCategory(verdict, spec.rate),
    netAmount: spec.net,
    taxExemptionReason: spec.rate === 0 && verdict === 'domestic' ? 'Steuerfrei nach § 4 Nr. 21 UStG' : null,
    productNumber: null,
  }));
  const groups = new Map<string, { category: VatCategory; rate: 0 | 7 | 19; net: number }>();
  for (const line of lines) {
    const key = `${line.category}/${line.vatRate}`;
    const group = groups.get(key) ?? { category: line.category, rate: line.vatRate, net: 0 };
    group.net += cents(line.netAmount);
    groups.set(key, group);
  }
  const vatBreakdown: VatBreakdownEntry[] = [...groups.values()].map((g) => ({
    category: g.category,
    rate: g.rate,
    taxableAmount: money(g.net),
    taxAmount: money(Math.floor((g.net * g.rate + 50) / 100)),
    exemptionReason: null,
    exemptionCode: null,
  }));
  const net = vatBreakdown.reduce((sum, b) => sum + cents(b.taxableAmount), 0);
  const tax = vatBreakdown.reduce((sum, b) => sum + cents(b.taxAmount), 0);
  const party = { street: 'Lindenallee', houseNumber: '7', zip: '50667', city: 'Köln', countryCode: 'DE', email: 'buchhaltung@kunde.example' };
  return {
    type: 'invoice',
    number: options.number ?? 'RE-2026-00001',
    issueDate,
    dueDate: issueDate,
    servicePeriod: { start: `${issueDate.slice(0, 8)}01`, end: `${issueDate.slice(0, 8)}28` },
    currency: 'EUR',
    seller: {
      ...party,
      name: 'Muster Software GmbH',
      vatId: 'DE136695976',
      legalForm: 'GmbH',
      taxNumber: '30/123/45678',
      phone: null,
      contactName: null,
      iban: 'DE89370400440532013000',
      bic: null,
      bankName: null,
    },
    buyer: {
      ...party,
      name: options.buyerName ?? 'Müller GmbH',
      vatId: options.buyerVatId === undefined ? (verdict === 'reverse_charge' ? 'ATU58219378' : null) : options.buyerVatId,
      customerNumber: options.customerNumber ?? '10000',
      customerType: 'business',
      contactName: null,
      leitwegId: null,
    },
    verdict,
    lines,
    vatBreakdown,
    totals: { net: money(net), tax: money(tax), gross: money(net + tax) },
    paymentTermsDays: 14,
    notes: [],
    buyerReference: options.customerNumber ?? '10000',
    precedingInvoice: null,
    eInvoice: 'none',
  };
}

/** The storno (Stornorechnung) of an invoice: every amount negated, its own number and date. */
export function stornoOf(invoice: InvoiceDocument, number: string, issueDate = invoice.issueDate): InvoiceDocument {
  const negate = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : amount === '0.00' ? amount : `-${amount}`);
  return {
    ...invoice,
    type: 'storno',
    number,
    issueDate,
    lines: invoice.lines.map((l) => ({ ...l, quantity: negate(l.quantity), netAmount: negate(l.netAmount) })),
    vatBreakdown: invoice.vatBreakdown.map((b) => ({ ...b, taxableAmount: negate(b.taxableAmount), taxAmount: negate(b.taxAmount) })),
    totals: { net: negate(invoice.totals.net), tax: negate(invoice.totals.tax), gross: negate(invoice.totals.gross) },
    precedingInvoice: { number: invoice.number, issueDate: invoice.issueDate },
  };
}

export { sealer };

let counter = 0;

/** A bootstrapped company with the given chart. */
export async function bookkeepingCompany(handle: DatabaseHandle, chart: Chart = 'SKR03'): Promise<string> {
  counter += 1;
  const result = await bootstrapOrganization(handle.db, sealer, {
    organizationName: `Buchhaltung ${counter}`,
    companyFile: JSON.stringify(COMPANY_FILE),
    adminEmail: `bookkeeping-${counter}-${process.pid}-${Date.now()}@example.com`,
  });
  if (chart !== 'SKR03') await handle.db.updateTable('companies').set({ chart }).where('id', '=', result.company_id).execute();
  return result.company_id;
}

/** Books a document in its own transaction, as the issuing operation would. */
export function book(handle: DatabaseHandle, companyId: string, chart: Chart, doc: InvoiceDocument, documentId: string): Promise<BookingResult> {
  return inTransaction(handle.db, (trx) => bookInvoice(trx, companyId, chart, doc, documentId));
}

export type StoredLine = { account: string; side: string; amount_cents: number; tax_key: string | null };

export async function storedLines(handle: DatabaseHandle, companyId: string, entryId: string): Promise<StoredLine[]> {
  return handle.db
    .selectFrom('journal_lines')
    .select(['account', 'side', 'amount_cents', 'tax_key'])
    .where('company_id', '=', companyId)
    .where('entry_id', '=', entryId)
    .orderBy('position')
    .execute();
}

/** Simplified reading of one DATEV line: `;`-separated, text fields in double quotes. */
export function splitDatevLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ';') {
      fields.push(current);
      current = '';
    } else current += ch;
  }
  fields.push(current);
  return fields;
}
