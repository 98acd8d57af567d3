import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import type { Clock } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { formatDate, formatMoney } from '../../shared/german-format.ts';
import { formatCents } from '../../shared/money.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { BookkeepingError, bookPartnerInvoice, type PartnerInvoiceToBook, vatDatevDerives } from '../bookkeeping/index.ts';
import type { PartnerRow } from './build-statement.ts';
import type { StatementRow } from './statement-view.ts';
import { findStatement } from './statements.repository.ts';

// Recording the partner's own invoice for a request to invoice (issue 24, point 4): a
// person types what the partner's invoice says — number, date, net, VAT, gross — in the app
// or with `kontor admin statement record-invoice`. The invoice must be one the books can
// take (net + VAT = gross; 19 % VAT as DATEV derives it from the gross for a regular
// partner, none for a Kleinunternehmer or under § 13b); a difference to the statement is
// shown and recorded only when the person confirms it. In one transaction: the record, its
// booking (book-partner-invoice.ts: Belegfeld 1 = the partner's invoice number) and the
// audit row `statement.invoice_recorded`. Only then is the statement payable, and the
// payout pays the invoice's gross.

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

export type RecordedPartnerInvoice = {
  statementId: string;
  statementNumber: string;
  number: string;
  invoiceDate: string;
  netCents: number;
  vatCents: number;
  grossCents: number;
  /** The differences to the statement as shown to the person (German), empty when it matches. */
  differences: string[];
  mismatchConfirmed: boolean;
  recordedBy: string;
  recordedAt: Date;
};

const AMOUNT = /^(\d{1,9})(?:\.(\d{1,2}))?$/;

/** "250", "250.5", "250.00" → cents; null for anything else (negative, three decimals, words). */
export function amountCents(text: string): number | null {
  const match = AMOUNT.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

const euro = (cents: number) => formatMoney(formatCents(cents));

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

/** The invoice recorded for a statement, or null. */
export async function findPartnerInvoice(db: Database | Trx, companyId: string, statementId: string): Promise<RecordedPartnerInvoice | null> {
  const row = await db
    .selectFrom('commission_partner_invoices as i')
    .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'i.company_id').onRef('s.id', '=', 'i.statement_id'))
    .innerJoin('users as u', 'u.id', 'i.recorded_by')
    .select([
      'i.number',
      'i.invoice_date',
      'i.net_cents',
      'i.vat_cents',
      'i.gross_cents',
      'i.mismatch_confirmed',
      'i.recorded_at',
      'u.email',
      's.number as statement_number',
      's.net_cents as s_net',
      's.vat_cents as s_vat',
      's.gross_cents as s_gross',
    ])
    .where('i.company_id', '=', companyId)
    .where('i.statement_id', '=', statementId)
    .executeTakeFirst();
  if (!row) return null;
  const invoice = { netCents: Number(row.net_cents), vatCents: Number(row.vat_cents), grossCents: Number(row.gross_cents) };
  return {
    statementId,
    statementNumber: row.statement_number as string,
    number: row.number,
    invoiceDate: row.invoice_date,
    ...invoice,
    differences: invoiceDifferences({ net_cents: row.s_net, vat_cents: row.s_vat, gross_cents: row.s_gross }, invoice),
    mismatchConfirmed: row.mismatch_confirmed,
    recordedBy: row.email,
    recordedAt: new Date(row.recorded_at),
  };
}

/** Why a statement takes no partner invoice (German), or null when it does. */
function notRecordable(statement: StatementRow): string | null {
  if (statement.kind !== 'partner_invoice' || statement.type !== 'statement')
    return 'Eine Rechnung des Partners wird nur zu einer Bitte um Rechnungsstellung erfasst; eine Gutschrift oder Provisionsabrechnung ist selbst der Beleg.';
  if (statement.status === 'draft') return 'Die Bitte um Rechnungsstellung ist noch ein Entwurf: stellen Sie sie zuerst aus.';
  if (statement.status === 'cancelled' || statement.status === 'objected') return 'Die Abrechnung ist storniert; zu ihr wird keine Rechnung mehr erfasst.';
  if (statement.paid_at) return 'Die Abrechnung ist bereits ausgezahlt.';
  return null;
}

type Parsed = { number: string; invoiceDate: string; netCents: number; vatCents: number; grossCents: number };

/** The form's values checked one by one, then against each other and the partner's tax status. */
function parse(input: PartnerInvoiceInput, statement: StatementRow, today: string): Parsed {
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

const same = (a: RecordedPartnerInvoice, b: Parsed) =>
  a.number === b.number && a.invoiceDate === b.invoiceDate && a.netCents === b.netCents && a.vatCents === b.vatCents && a.grossCents === b.grossCents;

/**
 * Records the partner's invoice for an issued request to invoice and books it. The same
 * invoice again changes nothing (`changed: false`); another one is refused (a recorded
 * invoice is not changed: cancel the statement instead).
 */
export function recordPartnerInvoice(
  deps: { db: Database; clock: Clock },
  statementId: string,
  input: PartnerInvoiceInput,
  actor: Actor & { email: string },
): Promise<RecordedPartnerInvoice & { changed: boolean }> {
  return inTransaction(deps.db, async (trx) => {
    const statement = await findStatement(trx, actor.companyId, statementId, true);
    if (!statement) throw new PartnerInvoiceRefused('not_found', `no statement ${statementId}`);
    const company = await trx.selectFrom('companies').select(['chart', 'timezone']).where('id', '=', statement.company_id).executeTakeFirstOrThrow();
    const today = deps.clock.today(company.timezone);
    const recorded = await findPartnerInvoice(trx, statement.company_id, statement.id);
    // The same invoice again is answered as recorded in any state (a repeated command).
    const why = recorded ? null : notRecordable(statement);
    if (why) throw new PartnerInvoiceRefused('not_recordable', why);
    const parsed = parse(input, statement, today);
    if (recorded) {
      if (same(recorded, parsed)) return { ...recorded, changed: false };
      throw new PartnerInvoiceRefused(
        'already_recorded',
        `Zu dieser Abrechnung ist bereits die Rechnung ${recorded.number} vom ${formatDate(recorded.invoiceDate)} erfasst. Eine erfasste Rechnung wird nicht geändert: ist sie falsch erfasst, stornieren Sie die Abrechnung (die Buchung wird dann umgekehrt).`,
      );
    }
    const taken = await trx
      .selectFrom('commission_partner_invoices as i')
      .innerJoin('commission_statements as s', (join) => join.onRef('s.company_id', '=', 'i.company_id').onRef('s.id', '=', 'i.statement_id'))
      .select('s.number')
      .where('i.company_id', '=', statement.company_id)
      .where('i.partner_id', '=', statement.partner_id)
      .where('i.number', '=', parsed.number)
      .executeTakeFirst();
    if (taken) {
      const field = `Die Rechnung ${parsed.number} des Partners ist bereits zur Abrechnung ${taken.number} erfasst.`;
      throw new PartnerInvoiceRefused('invalid', field, { number: field });
    }
    const differences = invoiceDifferences(statement, parsed);
    if (differences.length > 0 && !input.confirmMismatch)
      throw new PartnerInvoiceRefused(
        'mismatch_unconfirmed',
        `Die Rechnung ${parsed.number} weicht von der Abrechnung ${statement.number} ab. Bitte prüfen Sie die Rechnung und bestätigen Sie die Abweichung, wenn sie so stimmt.`,
        {},
        differences,
      );
    const partner = (await trx
      .selectFrom('commission_partners')
      .selectAll()
      .where('company_id', '=', statement.company_id)
      .where('id', '=', statement.partner_id)
      .executeTakeFirstOrThrow()) as PartnerRow;
    const now = deps.clock.now();
    await trx
      .insertInto('commission_partner_invoices')
      .values({
        company_id: statement.company_id,
        statement_id: statement.id,
        partner_id: statement.partner_id,
        number: parsed.number,
        invoice_date: parsed.invoiceDate,
        net_cents: parsed.netCents,
        vat_cents: parsed.vatCents,
        gross_cents: parsed.grossCents,
        mismatch_confirmed: differences.length > 0,
        recorded_by: actor.userId,
        recorded_at: now,
      })
      .execute();
    try {
      await bookPartnerInvoice(trx, statement.company_id, company.chart, partnerInvoiceToBook(statement, partner, parsed, today));
    } catch (error) {
      if (error instanceof BookkeepingError && error.code === 'period_locked')
        throw new PartnerInvoiceRefused('period_locked', `Der Buchungszeitraum ist gesperrt (${error.message}); die Rechnung kann heute nicht gebucht werden.`);
      throw error;
    }
    await recordAudit(trx, actor, now, {
      action: 'statement.invoice_recorded',
      subjectType: 'commission_statement',
      subjectId: statement.id,
      after: {
        statement: statement.number,
        invoice_number: parsed.number,
        invoice_date: parsed.invoiceDate,
        net: formatCents(parsed.netCents),
        vat: formatCents(parsed.vatCents),
        gross: formatCents(parsed.grossCents),
        differences,
        mismatch_confirmed: differences.length > 0,
      },
    });
    return {
      statementId: statement.id,
      statementNumber: statement.number as string,
      ...parsed,
      differences,
      mismatchConfirmed: differences.length > 0,
      recordedBy: actor.email,
      recordedAt: now,
      changed: true,
    };
  });
}

/** What the books take of a recorded invoice (also for its reversal when the statement is cancelled). */
export function partnerInvoiceToBook(
  statement: Pick<StatementRow, 'id' | 'tax_note' | 'period_end'>,
  partner: PartnerRow,
  invoice: { number: string; invoiceDate: string; netCents: number; vatCents: number; grossCents: number },
  entryDate: string,
): PartnerInvoiceToBook {
  return {
    statementId: statement.id,
    invoiceNumber: invoice.number,
    invoiceDate: invoice.invoiceDate,
    entryDate,
    serviceDate: statement.period_end,
    partner: { name: partner.name, creditorNumber: String(partner.kreditorennummer), taxStatus: partner.tax_status, vatId: partner.vat_id },
    taxNote: statement.tax_note,
    netCents: invoice.netCents,
    vatCents: invoice.vatCents,
    grossCents: invoice.grossCents,
  };
}
