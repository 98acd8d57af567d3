import { isCalendarDate } from '../../shared/dates.ts';
import { formatCentsMoney as euro, formatDate } from '../../shared/german-format.ts';
import { vatDatevDerives } from '../bookkeeping/index.ts';
import type { StatementRow } from './statement-view.ts';

// The checks of a partner's invoice typed by a person (issue 24; record-partner-invoice.ts
// records it): each field, the sums, the VAT the partner's tax status allows, and the
// differences to the statement, all worded in German for the person.

export type PartnerInvoiceInput = {
  number: string;
  invoiceDate: string;
  /** Decimal strings with at most two decimals ("250", "250.00"). */
  net: string;
  vat: string;
  gross: string;
  confirmMismatch: boolean;
};

export type PartnerInvoiceField = 'number' | 'invoice_date' | 'net' | 'vat' | 'gross';

export type PartnerInvoiceRefusal = 'not_found' | 'invalid' | 'mismatch_unconfirmed' | 'not_recordable' | 'already_recorded' | 'period_locked';

/** A refusal: one German message for a person, German sentences per form field, and the differences to confirm. */
export class PartnerInvoiceRefused extends Error {
  readonly code: PartnerInvoiceRefusal;
  readonly fields: Partial<Record<PartnerInvoiceField, string>>;
  readonly differences: string[];
  constructor(code: PartnerInvoiceRefusal, message: string, fields: Partial<Record<PartnerInvoiceField, string>> = {}, differences: string[] = []) {
    super(message);
    this.name = 'PartnerInvoiceRefused';
    this.code = code;
    this.fields = fields;
    this.differences = differences;
  }
}

const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

/** "250", "250.5", "250.00" → cents; null for anything else (negative, three decimals, words). */
export function amountCents(text: string): number | null {
  const match = AMOUNT.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** The differences of an invoice to its statement, one German line each (empty when the amounts match). */
export function invoiceDifferences(
  statement: { net_cents: number; vat_cents: number; gross_cents: number },
  invoice: { netCents: number; vatCents: number; grossCents: number },
): string[] {
  const lines: string[] = [];
  const compare = (label: string, invoiceCents: number, statementCents: number) => {
    if (invoiceCents === statementCents) return;
    const difference = invoiceCents - statementCents;
    lines.push(
      `${label}: Rechnung ${euro(invoiceCents)}, Abrechnung ${euro(statementCents)} (Differenz ${difference > 0 ? '+' : '−'}${euro(Math.abs(difference))})`,
    );
  };
  compare('Nettobetrag', invoice.netCents, Number(statement.net_cents));
  compare('Umsatzsteuer', invoice.vatCents, Number(statement.vat_cents));
  compare('Bruttobetrag', invoice.grossCents, Number(statement.gross_cents));
  return lines;
}

/** Why a statement takes no partner invoice (German), or null when it does. */
export function notRecordable(statement: StatementRow): string | null {
  if (statement.kind !== 'partner_invoice' || statement.type !== 'statement')
    return 'Eine Rechnung des Partners wird nur zu einer Bitte um Rechnungsstellung erfasst; eine Gutschrift oder Provisionsabrechnung ist selbst der Beleg.';
  if (statement.status === 'draft') return 'Die Bitte um Rechnungsstellung ist noch ein Entwurf: stellen Sie sie zuerst aus.';
  if (statement.status === 'cancelled' || statement.status === 'objected') return 'Die Abrechnung ist storniert; zu ihr wird keine Rechnung mehr erfasst.';
  if (statement.paid_at) return 'Die Abrechnung ist bereits ausgezahlt.';
  return null;
}

export type Parsed = { number: string; invoiceDate: string; netCents: number; vatCents: number; grossCents: number };

/** The form's values checked one by one, then against each other and the partner's tax status. */
export function checkPartnerInvoice(input: PartnerInvoiceInput, statement: StatementRow, today: string): Parsed {
  const fields: Partial<Record<PartnerInvoiceField, string>> = {};
  const number = input.number.replace(/\s+/g, ' ').trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (number === '' || number.length > 100 || /[\u0000-\u001f\u007f-\u009f\p{Bidi_Control}]/u.test(number))
    fields.number = 'Bitte geben Sie die Rechnungsnummer des Partners an (höchstens 100 Zeichen).';
  const invoiceDate = input.invoiceDate.trim();
  if (!isCalendarDate(invoiceDate)) fields.invoice_date = 'Bitte geben Sie das Rechnungsdatum an, zum Beispiel 05.11.2026.';
  else if (invoiceDate > today) fields.invoice_date = `Das Rechnungsdatum ${formatDate(invoiceDate)} liegt in der Zukunft.`;
  else if (invoiceDate < statement.period_start)
    fields.invoice_date = `Das Rechnungsdatum ${formatDate(invoiceDate)} liegt vor dem Abrechnungszeitraum (ab ${formatDate(statement.period_start)}).`;
  const money = (field: 'net' | 'vat' | 'gross', label: string) => {
    const cents = amountCents(input[field]);
    if (cents === null) fields[field] = `Bitte geben Sie ${label} als Betrag mit höchstens zwei Nachkommastellen an, zum Beispiel 250,00.`;
    return cents ?? 0;
  };
  const netCents = money('net', 'den Nettobetrag');
  const vatCents = money('vat', 'die Umsatzsteuer');
  const grossCents = money('gross', 'den Bruttobetrag');
  if (fields.net === undefined && netCents === 0) fields.net = 'Der Nettobetrag muss größer als 0,00 € sein.';
  if (Object.keys(fields).length === 0 && netCents + vatCents !== grossCents)
    fields.gross = `Nettobetrag und Umsatzsteuer ergeben ${euro(netCents + vatCents)}, nicht ${euro(grossCents)}.`;
  if (Object.keys(fields).length === 0) {
    const wrongVat = vatProblem(statement.tax_note, netCents, vatCents, grossCents);
    if (wrongVat) fields.vat = wrongVat;
  }
  if (Object.keys(fields).length > 0) throw new PartnerInvoiceRefused('invalid', Object.values(fields).join(' '), fields);
  return { number, invoiceDate, netCents, vatCents, grossCents };
}

/**
 * What is wrong with an invoice's VAT for the partner's tax status (German), or null. Not
 * confirmable: an invoice with VAT shown wrongly gives no input VAT (§ 15 UStG; the partner
 * owes what it shows, § 14c), so the partner must correct it.
 */
function vatProblem(taxNote: StatementRow['tax_note'], net: number, vat: number, gross: number): string | null {
  const correct = 'Bitte fordern Sie beim Partner eine berichtigte Rechnung an.';
  switch (taxNote) {
    case 'regular':
      // DATEV derives the input VAT from the gross (BU 9); it must be the invoice's.
      return vat === vatDatevDerives(gross)
        ? null
        : `Die Umsatzsteuer der Rechnung (${euro(vat)}) ist nicht 19 % des Nettobetrags ${euro(net)} (${euro(nineteenPercent(net))}). ${correct}`;
    case 'small_business':
      return vat === 0 ? null : `Der Partner ist Kleinunternehmer (§ 19 UStG): seine Rechnung darf keine Umsatzsteuer ausweisen. ${correct}`;
    case 'reverse_charge':
      return vat === 0
        ? null
        : `Die Umsatzsteuer für diese Leistung schulden wir (§ 13b UStG): die Rechnung des Partners darf keine Umsatzsteuer ausweisen. ${correct}`;
    case 'private_person':
      return 'Eine Privatperson stellt keine Rechnung mit Umsatzsteuer aus.';
  }
}

/** round half up(net × 19 %), in integers. */
function nineteenPercent(netCents: number): number {
  return Number((BigInt(netCents) * 19n * 2n + 100n) / 200n);
}
