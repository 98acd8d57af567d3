import iconv from 'iconv-lite';
import type { Database } from '../../db/connection.ts';
import type { Chart } from '../../db/schema-bookkeeping.ts';
import { inTransaction } from '../../db/transaction.ts';
import { zonedParts } from '../../shared/clock.ts';
import { isCalendarDate } from '../../shared/dates.ts';
import { exactCents } from '../../shared/money.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { type AccountPlan, accountPlan, automaticReverseChargeVat, grossDerivedVat, isGrossDerivedVatAccount, isReverseChargeVatAccount } from './accounts.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { amount, belegfeld, COLUMN, DATEV_COLUMN_COUNT, DATEV_COLUMNS, headerFields, text, ttmm, ttmmjjjj } from './datev-format.ts';
import { type JournalRow, listJournalRows, lockedUntil } from './journal.repository.ts';

// The journal as a DATEV EXTF Buchungsstapel (german-rules §6.4), Windows-1252, CRLF.
//
// Tax keys and automatic accounts: the journal keeps explicit lines (S debtor gross / H
// revenue net / H output VAT tax). The revenue accounts 8400/8300 (4400/4300) are DATEV
// automatic accounts: DATEV books the tax itself from a gross amount and rejects or doubles
// a separately booked VAT line. So the export folds each output-VAT line into the revenue
// line of its rate and hands over ONE booking "debtor against revenue account, gross, no
// BU-Schlüssel", as DATEV requires for automatic accounts. DATEV then derives
// round(gross × r / (100 + r)), which always equals our tax: tax = round(net × r / 100)
// differs from net × r / 100 by at most 0.5 cent, so the derived value lies within
// 0.5 × 100 / (100 + r) < 0.5 cent of it (checked per booking anyway). Revenue accounts
// without VAT (8195, 8336, 8338, 8100 and SKR04 twins) carry no key either. A journal line
// with an explicit tax_key hands that key over in field 9.
//
// Open items (OPOS): DATEV clears an open item only by a payment or credit whose Belegfeld 1
// equals the item's number (Buchungsstapel format description, field 11 "Belegfeld 1":
// "Bei einer Zahlung oder Gutschrift erfolgt nur dann ein OP-Ausgleich, wenn die
// Belegnummer mit dem Belegfeld 1 identisch ist"). So an entry that settles another
// document (journal_entries.settles_number: a storno, a statement's cancellation, a payout
// against a partner's invoice) carries that document's number in Belegfeld 1, and its own
// number in the Buchungstext and in Beleginfo 1 ("Belegnummer"). Belegfeld 2 stays empty:
// it holds 12 characters and means due dates to DATEV's OPOS. No Generalumkehr: the journal
// books the mirror (S/H swapped), which leaves the same balances.
//
// Revenue-share statements (book-statement.ts) follow the same rule from the other side:
// - 19 %: creditor against commission expense with BU-Schlüssel 9; the explicit input-VAT
//   line (1576/1406) is folded into that line, which then carries the gross, and DATEV
//   derives the input VAT from it as above (checked the same way).
// - § 13b: creditor against the automatic account 3123/3125 (5923/5925) with the net, no
//   key. DATEV books input VAT and output VAT § 13b of round(net × 19 %) itself, so the
//   journal's explicit pair (1577/1787, 1407/3837) is left out — after checking it is
//   exactly what DATEV will compute.

export type DatevExportOptions = {
  from: string;
  to: string;
  /** Creation time written into the header (the injected clock's now). */
  now?: Date;
  /**
   * The person who exports (app, `kontor export datev --by`): the export is read and
   * recorded in the audit trail (`datev.exported`: range, bookings, warnings) in one
   * transaction. The file goes to the person, so its warnings are kept there.
   */
  actor?: Actor;
};

/** Beleginfo - Art 1 of an entry whose Belegfeld 1 names the document it settles: the entry's own number follows in Inhalt 1. */
const OWN_NUMBER_INFO = 'Belegnummer';

/** Why a warning was given, for a reader that words it itself (the app). */
export type DatevWarningCode = 'datev_test_numbers';

export type DatevExport = { file: Buffer; bookings: number; entries: number; warnings: string[]; warningCodes: DatevWarningCode[] };

/** The CLI's file name for the range: `EXTF_Buchungsstapel_2026-11-01_2026-11-30.csv`. */
export function datevFileName(from: string, to: string): string {
  return `EXTF_Buchungsstapel_${from}_${to}.csv`;
}

/**
 * The Buchungsstapel of the entries dated in [from, to], one fiscal year of the company.
 * The header carries the company's DATEV consultant and client numbers and fiscal-year start.
 */
export async function exportDatevBuchungsstapel(db: Database, companyId: string, options: DatevExportOptions): Promise<Buffer> {
  return (await createDatevExport(db, companyId, options)).file;
}

/** The same, with the number of bookings (data lines) and journal entries in the file. */
export async function createDatevExport(db: Database, companyId: string, options: DatevExportOptions): Promise<DatevExport> {
  const { actor } = options;
  if (!actor) return buildDatevExport(db, companyId, options);
  return inTransaction(db, async (trx) => {
    const result = await buildDatevExport(trx, companyId, options);
    await recordAudit(trx, actor, options.now ?? new Date(), {
      action: 'datev.exported',
      subjectType: 'datev_export',
      subjectId: null,
      after: {
        from: options.from,
        to: options.to,
        file_name: datevFileName(options.from, options.to),
        bookings: result.bookings,
        entries: result.entries,
        warnings: result.warnings,
        warning_codes: result.warningCodes,
      },
    });
    return result;
  });
}

async function buildDatevExport(db: Database, companyId: string, options: DatevExportOptions): Promise<DatevExport> {
  const { from, to } = options;
  if (!isCalendarDate(from) || !isCalendarDate(to)) throw new BookkeepingError('invalid_range', `from and to must be dates YYYY-MM-DD, got ${from} and ${to}`);
  if (from > to) throw new BookkeepingError('invalid_range', `the range starts ${from}, after its end ${to}`);
  const company = await db
    .selectFrom('companies')
    .select(['chart', 'timezone', 'datev_consultant_number', 'datev_client_number', 'fiscal_year_start'])
    .where('id', '=', companyId)
    .executeTakeFirst();
  if (!company) throw new BookkeepingError('company_not_found', `no company ${companyId}`);
  // DATEV takes one Buchungsstapel per fiscal year (Belegdatum carries no year).
  const fiscalYearStart = fiscalYearStartOf(from, company.fiscal_year_start);
  if (fiscalYearStartOf(to, company.fiscal_year_start) !== fiscalYearStart)
    throw new BookkeepingError(
      'invalid_range',
      `a DATEV export covers one fiscal year: ${from} and ${to} lie in different fiscal years (the fiscal year starts on ${company.fiscal_year_start}); export each year separately`,
    );
  const locked = await lockedUntil(db, companyId);

  const rows = await listJournalRows(db, companyId, from, to);
  const entries = groupByEntry(rows);
  const charts = new Set(entries.map((e) => e[0]!.chart));
  if (charts.size > 1)
    throw new BookkeepingError(
      'not_exportable',
      'the range holds entries of both SKR03 and SKR04; export the periods before and after the chart change separately',
    );
  const chart: Chart = entries[0]?.[0]?.chart ?? company.chart;

  const dataLines = entries.flatMap((entry) => entryBookings(entry));
  const header = headerFields({
    createdAt: timestamp(options.now ?? new Date(), company.timezone),
    consultantNumber: company.datev_consultant_number ?? DATEV_TEST_CONSULTANT,
    clientNumber: company.datev_client_number ?? DATEV_TEST_CLIENT,
    fiscalYearStart,
    from,
    to,
    label: 'Kontor Buchungen',
    chart,
    fixed: locked !== null && to <= locked,
  });
  const content = [header.join(';'), DATEV_COLUMNS.join(';'), ...dataLines.map((fields) => fields.join(';'))].map((line) => `${line}\r\n`).join('');
  const testNumbers = company.datev_consultant_number === null || company.datev_client_number === null;
  const warnings = testNumbers
    ? [
        `the company has no DATEV consultant and client number (datev_consultant_number, datev_client_number in the company file); the header carries DATEV's test numbers ${DATEV_TEST_CONSULTANT}/${DATEV_TEST_CLIENT}, which the tax adviser must change before importing`,
      ]
    : [];
  return {
    file: iconv.encode(content, 'win1252'),
    bookings: dataLines.length,
    entries: entries.length,
    warnings,
    warningCodes: testNumbers ? ['datev_test_numbers'] : [],
  };
}

/** DATEV's own test consultant and client, written while the company has not set its numbers. */
const DATEV_TEST_CONSULTANT = 1001;
const DATEV_TEST_CLIENT = 1;

/** The first day of the fiscal year that holds `date`, for a fiscal year starting on `start` (MM-DD). */
export function fiscalYearStartOf(date: string, start: string): string {
  const year = Number(date.slice(0, 4));
  return date.slice(5) >= start ? `${year}-${start}` : `${year - 1}-${start}`;
}

function groupByEntry(rows: JournalRow[]): JournalRow[][] {
  const entries: JournalRow[][] = [];
  for (const row of rows) {
    const last = entries.at(-1);
    if (last && last[0]!.entry_id === row.entry_id) last.push(row);
    else entries.push([row]);
  }
  return entries;
}

/**
 * One data line per journal line against the entry's first line (the debtor of an invoice,
 * the bank of a payment, the creditor of a statement): Konto = first line's account, S/H =
 * its side, Gegenkonto = the other line's account. VAT lines are handed over through the
 * line DATEV derives them from (see the comment at the top).
 */
function entryBookings(entry: JournalRow[]): string[][] {
  const [principal, ...others] = entry;
  if (!principal || others.length === 0) throw new BookkeepingError('not_exportable', `entry ${principal?.entry_id} has fewer than two lines`);
  const plan = accountPlan(principal.chart);
  const where = `entry ${principal.entry_id} (${principal.document_number})`;
  const reverseChargeVat = others.filter((line) => isReverseChargeVatAccount(plan, line.account));
  const bookable = others.filter((line) => !isReverseChargeVatAccount(plan, line.account));
  if (bookable.some((line) => line.side === principal.side))
    throw new BookkeepingError(
      'not_exportable',
      `${where} has several lines on the side of its first line; DATEV takes one account against one counter account`,
    );

  const counters = bookable.filter((line) => !isGrossDerivedVatAccount(plan, line.account)).map((line) => ({ line, cents: line.amount_cents }));
  for (const vatLine of bookable.filter((line) => isGrossDerivedVatAccount(plan, line.account))) {
    const matches = counters.filter(({ line }) => grossDerivedVat(plan, line.account, line.tax_key)?.vatAccount === vatLine.account);
    const target = matches[0];
    if (!target || matches.length > 1)
      throw new BookkeepingError('not_exportable', `${where}: VAT on ${vatLine.account} has no single automatic account or tax key to go with`);
    target.cents += vatLine.amount_cents;
  }
  for (const { line, cents } of counters) {
    const derivedVat = grossDerivedVat(plan, line.account, line.tax_key);
    if (!derivedVat) continue;
    // DATEV derives the tax from the gross with half-up rounding; it must meet the booked tax.
    const rate = BigInt(derivedVat.rate);
    const gross = exactCents(cents);
    const derived = (2n * gross * rate + (100n + rate)) / (2n * (100n + rate));
    if (gross - derived !== exactCents(line.amount_cents))
      throw new BookkeepingError(
        'not_exportable',
        `${where}: DATEV would split ${amount(cents)} on ${line.account} into a different net than ${amount(line.amount_cents)}`,
      );
  }
  checkReverseChargeVat(
    plan,
    where,
    counters.map(({ line }) => line),
    reverseChargeVat,
  );

  return counters.map(({ line, cents }) => {
    const fields = new Array<string>(DATEV_COLUMN_COUNT).fill('');
    const set = (column: number, value: string) => {
      fields[column - 1] = value;
    };
    set(COLUMN.umsatz, amount(cents));
    set(COLUMN.sollHaben, text(principal.side));
    set(COLUMN.wkz, text('EUR'));
    set(COLUMN.konto, principal.account);
    set(COLUMN.gegenkonto, line.account);
    if (line.tax_key !== null) set(COLUMN.buSchluessel, text(line.tax_key));
    set(COLUMN.belegdatum, ttmm(principal.entry_date));
    // The open item's key: the settled document's number where the entry settles another
    // one (a storno, a cancellation, a payout against a partner's invoice), else its own.
    const settled = principal.settles_number ?? null;
    const settles = settled !== null && settled !== principal.document_number ? settled : null;
    set(COLUMN.belegfeld1, text(belegfeld(settles ?? principal.document_number)));
    set(COLUMN.buchungstext, text(principal.description.slice(0, 60)));
    if (settles !== null) {
      set(COLUMN.beleginfoArt1, text(OWN_NUMBER_INFO));
      set(COLUMN.beleginfoInhalt1, text(principal.document_number.slice(0, 210)));
    }
    if (principal.counterparty_vat_id !== null && line.account === plan.revenueReverseCharge) set(COLUMN.euLandUstId, text(principal.counterparty_vat_id));
    if (principal.service_date !== null) set(COLUMN.leistungsdatum, ttmmjjjj(principal.service_date));
    return fields;
  });
}

/**
 * The § 13b VAT lines are left out of the file: DATEV books them itself from the net on the
 * § 13b automatic account. So they must be exactly what DATEV computes — one input-VAT line
 * on the side of that account and one output-VAT line on the other, each round half up(net
 * × 19 %) — and an automatic § 13b account never goes without them.
 */
function checkReverseChargeVat(plan: AccountPlan, where: string, counters: JournalRow[], vatLines: JournalRow[]): void {
  const automatic = counters.filter((line) => automaticReverseChargeVat(plan, line.account, line.tax_key) !== null);
  if (automatic.length === 0 && vatLines.length === 0) return;
  const [base] = automatic;
  const vat = base ? automaticReverseChargeVat(plan, base.account, base.tax_key) : null;
  if (!base || !vat || automatic.length > 1)
    throw new BookkeepingError('not_exportable', `${where}: § 13b VAT needs exactly one § 13b automatic account to go with`);
  const rate = BigInt(vat.rate);
  const tax = Number((2n * exactCents(base.amount_cents) * rate + 100n) / 200n);
  const expected = tax === 0 ? [] : [`${vat.inputVatAccount}/${base.side}/${tax}`, `${vat.outputVatAccount}/${base.side === 'S' ? 'H' : 'S'}/${tax}`];
  const found = vatLines.map((line) => `${line.account}/${line.side}/${line.amount_cents}`);
  if (found.sort().join() !== expected.sort().join())
    throw new BookkeepingError(
      'not_exportable',
      `${where}: the § 13b VAT lines (${found.join(', ') || 'none'}) are not what DATEV books from ${amount(base.amount_cents)} on ${base.account} (${expected.join(', ') || 'none'})`,
    );
}

/** yyyyMMddHHmmssSSS in the company's time zone. */
function timestamp(instant: Date, timeZone: string): string {
  const p = zonedParts(instant, timeZone);
  return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}${String(instant.getUTCMilliseconds()).padStart(3, '0')}`;
}
