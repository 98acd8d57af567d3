import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';
import type { StatementDocument } from '../statements/statement-document.ts';
import { type AccountPlan, accountPlan, creditorAccount, TAX_KEY_INPUT_VAT_19 } from './accounts.ts';
import type { BookingKnowns } from './book-invoice.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { findEntryByDocument, insertJournalEntry, journalEntryWrites, lockedUntil, type NewJournalEntry } from './journal.repository.ts';
import { assertBalanced, assertDatedAfterLock, centsOf, type JournalLine, mirror } from './journal.ts';

// Revenue-share statements (german-rules §6.2, §7.2): the commission a company owes its
// partner is an expense against the partner's creditor account (Kreditor = creditor number).
//
// The creditor line comes first: the DATEV export writes every line of an entry against its
// first line, so Konto = creditor, Gegenkonto = expense, Belegfeld 1 = statement number.
//
// Like invoices, the journal keeps every tax explicitly and the export hands it to DATEV the
// way DATEV derives it, so DATEV never books a tax twice (export-datev.ts):
// - regular (19 %): the expense line carries BU-Schlüssel 9 next to an explicit input-VAT
//   line; the export folds the input VAT into one gross booking with key 9.
// - § 13b (reverse_charge): the company owes German VAT on the net and deducts it at once.
//   We book the net on DATEV's § 13b automatic accounts 3123 (EU partner, § 13b Abs. 1,
//   Kz 46/47) or 3125 (third-country partner, § 13b Abs. 2 Nr. 1, Kz 84/85) — SKR04
//   5923/5925 — plus the explicit pair S Vorsteuer § 13b / H Umsatzsteuer § 13b of
//   round half up(net × 19 %). The export drops the pair, because DATEV books both from the
//   net on the automatic account itself. Why not 4760 with a BU key (94, or 506/511 in the
//   three-digit keys): plain 94 does not tell DATEV which § 13b case it is (EU services
//   would land in Kz 84/85 instead of 46/47), and the automatic accounts are what
//   german-rules names first and what the export already does for revenue (automatic
//   account, no key). The price: § 13b commission shows on "sonstige Leistungen … § 13b"
//   instead of "Verkaufsprovisionen".
// - small_business, private_person: no VAT, net against the creditor.
// A cancellation (negative totals) books the exact mirror of the statement it cancels.

const REVERSE_CHARGE_RATE = 19n;

/** The journal lines of a statement or its cancellation (pure; position = index + 1). Empty for a zero statement. */
export function statementJournalLines(chart: Chart, doc: StatementDocument): JournalLine[] {
  // A cancellation carries negative amounts: book its absolute amounts, then mirror.
  const sign = doc.type === 'cancellation' ? -1 : 1;
  const positive = (amount: string, what: string) => {
    const cents = centsOf(amount) * sign;
    if (cents < 0) throw new BookkeepingError('invalid_document', `${what} of ${doc.type} ${doc.number} has the wrong sign: ${amount}`);
    return cents;
  };
  const net = positive(doc.totals.net, 'net total');
  const vat = positive(doc.totals.vat, 'VAT total');
  const gross = positive(doc.totals.gross, 'gross total');
  const lineSum = doc.lines.reduce((sum, line) => sum + centsOf(line.amount) * sign, 0);
  if (lineSum !== net) throw new BookkeepingError('invalid_document', `${doc.number}: the lines sum to ${lineSum} cents, the net total is ${net}`);
  if (net + vat !== gross) throw new BookkeepingError('invalid_document', `${doc.number}: totals ${JSON.stringify(doc.totals)} do not add up`);
  const expectedVat = doc.taxNote === 'regular' ? percentHalfUp(net, 19n) : 0;
  if ((doc.taxNote === 'regular') !== (doc.vatRate === 19) || vat !== expectedVat)
    throw new BookkeepingError('invalid_document', `${doc.number}: a ${doc.taxNote} statement at ${doc.vatRate} % cannot carry VAT ${doc.totals.vat}`);
  if (net === 0) return [];
  const lines = commissionJournalLines(chart, {
    taxNote: doc.taxNote,
    taxStatus: doc.partner.taxStatus,
    creditorNumber: doc.partner.creditorNumber,
    net,
    vat,
    gross,
    what: doc.number,
  });
  return doc.type === 'cancellation' ? mirror(lines) : lines;
}

/** A commission document's amounts as the books take them (positive cents; net + vat = gross). */
export type CommissionAmounts = {
  taxNote: StatementDocument['taxNote'];
  taxStatus: StatementDocument['partner']['taxStatus'];
  creditorNumber: string;
  net: number;
  vat: number;
  gross: number;
  /** The document named in refusals. */
  what: string;
};

/**
 * The lines of commission owed to a partner (a statement, or the partner's own invoice):
 * H creditor against the expense, by tax note (see the top of this file). Pure.
 */
export function commissionJournalLines(chart: Chart, amounts: CommissionAmounts): JournalLine[] {
  const plan = accountPlan(chart);
  const { net, vat, gross } = amounts;
  const creditor = creditorAccount(amounts.creditorNumber);
  const lines: JournalLine[] = [];
  const add = (account: string, side: 'S' | 'H', amountCents: number, taxKey: string | null = null) => {
    if (amountCents > 0) lines.push({ account, side, amountCents, taxKey });
  };
  switch (amounts.taxNote) {
    case 'regular':
      add(creditor, 'H', gross);
      add(plan.commissionExpense, 'S', net, TAX_KEY_INPUT_VAT_19);
      add(plan.inputVat19, 'S', vat);
      break;
    case 'small_business':
    case 'private_person':
      add(creditor, 'H', net);
      add(plan.commissionExpense, 'S', net);
      break;
    case 'reverse_charge': {
      const tax = percentHalfUp(net, REVERSE_CHARGE_RATE);
      add(creditor, 'H', net);
      add(reverseChargeAccount(plan, amounts), 'S', net);
      add(plan.inputVatReverseCharge19, 'S', tax);
      add(plan.outputVatReverseCharge19, 'H', tax);
      break;
    }
  }
  assertBalanced(lines);
  return lines;
}

/**
 * Books an issued statement or cancellation inside the caller's transaction (document type
 * `commission_statement`, document id = the statement's id, entry date = issue date,
 * Leistungsdatum = end of the commission period). True when written now; false when this
 * statement id is booked already (or the statement is zero): nothing is written then.
 * Refuses an issue date in a locked period (period_locked). `known`: what the caller read
 * already in this transaction (issuing reads it before it draws the number, so that only
 * writes follow the draw).
 */
export async function bookStatement(
  trx: Trx,
  companyId: string,
  chart: Chart,
  doc: StatementDocument,
  statementId: string,
  known: BookingKnowns = {},
): Promise<boolean> {
  const lines = statementJournalLines(chart, doc);

  const existing = known.newDocument ? undefined : await findEntryByDocument(trx, companyId, 'commission_statement', statementId);
  if (existing) return alreadyBooked(existing.documentNumber, doc);
  if (lines.length === 0) return false;

  const locked = known.lockedUntil !== undefined ? known.lockedUntil : await lockedUntil(trx, companyId);
  assertDatedAfterLock(locked, doc);

  const inserted = await insertJournalEntry(trx, statementEntry(companyId, chart, doc, statementId), lines);
  if (inserted) return true;
  // A concurrent transaction booked it first.
  const winner = await findEntryByDocument(trx, companyId, 'commission_statement', statementId);
  if (!winner) throw new Error(`journal entry for commission statement ${statementId} vanished`);
  return alreadyBooked(winner.documentNumber, doc);
}

function alreadyBooked(bookedNumber: string, doc: StatementDocument): false {
  if (bookedNumber !== doc.number) throw new BookkeepingError('already_booked', `this statement is booked already as ${bookedNumber}, not ${doc.number}`);
  return false;
}

function reverseChargeAccount(plan: AccountPlan, amounts: CommissionAmounts): string {
  switch (amounts.taxStatus) {
    case 'eu_reverse_charge':
      return plan.commissionReverseChargeEu;
    case 'third_country':
      return plan.commissionReverseChargeForeign;
    default:
      throw new BookkeepingError(
        'invalid_document',
        `${amounts.what}: reverse charge (§ 13b UStG) needs a partner in another EU state or a third country, not ${amounts.taxStatus}`,
      );
  }
}

/** round half up(cents × rate / 100) for non-negative cents, in integers. */
export function percentHalfUp(cents: number, rate: bigint): number {
  return Number((BigInt(cents) * rate * 2n + 100n) / 200n);
}

function describe(doc: StatementDocument): string {
  const title = doc.kind === 'self_billing' ? 'Gutschrift' : 'Provisionsabrechnung';
  const preceding = doc.precedingStatement;
  const what =
    doc.type === 'cancellation'
      ? preceding && preceding.number !== doc.number
        ? `Storno ${doc.number} zu ${preceding.number}`
        : `Storno zu ${title} ${doc.number}`
      : `${title} ${doc.number}`;
  return `${what} ${doc.partner.name}`.slice(0, 255);
}

/**
 * The partner's VAT ID as the journal keeps it (DATEV's "EU-Land u. UStID" form: country
 * prefix and up to 13 letters or digits). A Swiss UID (CHE-123.456.789 MWST) or a partner
 * without a VAT ID leaves it empty; nothing in the booking depends on it.
 */
export function partnerVatId(doc: Pick<StatementDocument, 'partner'>): string | null {
  const compact = (doc.partner.vatId ?? '').replace(/[\s.-]/g, '').toUpperCase();
  return /^[A-Z]{2}[A-Z0-9+*]{2,13}$/.test(compact) ? compact : null;
}

/**
 * The booking of a statement issued in the caller's transaction (no earlier booking can
 * exist) as inserts not yet run, for the issuing's own statement (issue 26; as
 * newInvoiceBookingWrites). None for a zero statement; refuses a locked period.
 */
export function newStatementBookingWrites(trx: Trx, companyId: string, chart: Chart, doc: StatementDocument, statementId: string, lockedUntil: string | null) {
  const lines = statementJournalLines(chart, doc);
  if (lines.length === 0) return [];
  assertDatedAfterLock(lockedUntil, doc);
  return journalEntryWrites(trx, statementEntry(companyId, chart, doc, statementId), lines);
}

function statementEntry(companyId: string, chart: Chart, doc: StatementDocument, statementId: string): NewJournalEntry {
  return {
    company_id: companyId,
    id: newId('jen'),
    entry_date: doc.issueDate,
    document_type: 'commission_statement',
    document_id: statementId,
    document_number: doc.number,
    description: describe(doc),
    chart,
    service_date: doc.period.end,
    counterparty_vat_id: partnerVatId(doc),
    // A cancellation settles the open item of the statement it cancels (DATEV Belegfeld 1).
    settles_number:
      doc.type === 'cancellation' && doc.precedingStatement && doc.precedingStatement.number !== doc.number ? doc.precedingStatement.number : null,
  };
}
