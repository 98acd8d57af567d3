import type { Database } from '../../db/connection.ts';
import { EU_COUNTRIES, isPlausibleVatId } from '../../shared/tax-ids.ts';
import { accountPlan } from '../bookkeeping/index.ts';
import { companyForReturn, type Filing } from './filing.ts';
import type { TaxPeriod } from './tax-period.ts';
import { type UstvaDocument, wholeEuros } from './ustva.ts';

// The Zusammenfassende Meldung (§ 18a UStG, issue 28 §2): per customer VAT ID the sum of
// the period's EU reverse-charge services — the journal lines on the revenue account that
// feeds Kz 21 of the Voranmeldung, grouped by the entry's counterparty VAT ID (the buyer's
// ID as the invoice printed it). A storno is booked in its own period as a mirror entry,
// so it nets there (a negative sum is allowed in the ZM); a filed period is never
// rewritten. The sums of all rows equal Kz 21 to the cent.
//
// The upload file is the CSV import of the BZSt's ZM form (docs/tax-sources.md §2.2):
// UTF-8 (mandatory since CSV version 3.0), line 1 the version `#v3.0`, line 2 the column
// names, then one row per VAT ID: `FR12345678901,1047,S` — country and number in one
// column (since 2.0), the amount in whole euros (cents dropped, as in the Voranmeldung),
// `S` for a sonstige Leistung. At most 1,500 rows per file.

export const ZM_CSV_VERSION = '#v3.0';
export const ZM_CSV_HEADER = 'Umsatzsteuer-Identifikationsnummer (USt-IdNr.),Betrag (Euro),Art der Leistung';
export const ZM_MAX_ROWS = 1500;

export type ZmRow = {
  vat_id: string;
  /** The booked sum, exact to the cent (negative when stornos outweigh sales). */
  amount_cents: number;
  /** What the file carries: whole euros. */
  amount_euros: number;
  kind: 'S';
  documents: UstvaDocument[];
  /** Why the BZSt would refuse this row; empty when it is fine. */
  problems: string[];
};

export type ZmReport = {
  company_id: string;
  period: TaxPeriod;
  filed: boolean;
  small_business: boolean;
  /** The company's filing rhythm and the period's deadlines (filing.ts); the ZM is due on zm_due. */
  filing: Filing;
  note: string | null;
  rows: ZmRow[];
  /** Documents on the Kz 21 account without a counterparty VAT ID (cannot be reported). */
  without_vat_id: UstvaDocument[];
  /** The rows' sum and the documents without a VAT ID: equals Kz 21 of the same period. */
  total_cents: number;
  /** Every reason the file cannot be uploaded as it is; empty when it can. */
  problems: string[];
};

/** Why a VAT ID cannot stand in the ZM; empty when it can. Greece reports as EL; DE is not another member state. */
export function zmVatIdProblems(vatId: string): string[] {
  const country = vatId.slice(0, 2);
  if (country === 'DE') return [`${vatId}: eine deutsche USt-IdNr. gehört nicht in die Zusammenfassende Meldung`];
  if (country === 'XI') return [`${vatId}: Nordirland (XI) wird nur für Warenlieferungen gemeldet, nicht für sonstige Leistungen`];
  const member = country === 'EL' ? 'GR' : country;
  if (country === 'GR' || !EU_COUNTRIES.has(member)) return [`${vatId}: keine USt-IdNr. eines anderen EU-Mitgliedstaats`];
  if (!isPlausibleVatId(vatId)) return [`${vatId}: hat nicht das Format seines Landes oder eine falsche Prüfziffer`];
  return [];
}

export async function zmReport(db: Database, companyId: string, period: TaxPeriod): Promise<ZmReport> {
  const company = await companyForReturn(db, companyId, period);
  const base = {
    company_id: companyId,
    period,
    filed: company.filed,
    small_business: company.smallBusiness,
    filing: company.filing,
  };
  if (period.kind === 'year') {
    const problem = 'Die Zusammenfassende Meldung wird je Monat oder Quartal abgegeben, nicht für ein Jahr (§ 18a Abs. 1 UStG).';
    return { ...base, note: problem, rows: [], without_vat_id: [], total_cents: 0, problems: [problem] };
  }
  if (company.smallBusiness)
    return {
      ...base,
      note: 'Als Kleinunternehmer (§ 19 UStG) gibt die Firma keine Zusammenfassende Meldung ab (§ 18a Abs. 4 UStG).',
      rows: [],
      without_vat_id: [],
      total_cents: 0,
      problems: [],
    };
  const plan = accountPlan(company.chart);
  const lines = await db
    .selectFrom('journal_entries as e')
    .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
    .select(['e.id', 'e.entry_date', 'e.document_type', 'e.document_id', 'e.document_number', 'e.counterparty_vat_id', 'l.side', 'l.amount_cents'])
    .where('e.company_id', '=', companyId)
    .where('e.entry_date', '>=', period.from)
    .where('e.entry_date', '<=', period.to)
    .where('l.account', '=', plan.revenueReverseCharge)
    .orderBy('e.entry_date')
    .orderBy('e.document_number')
    .orderBy('e.id')
    .orderBy('l.position')
    .execute();
  const byVatId = new Map<string, UstvaDocument[]>();
  const withoutVatId: UstvaDocument[] = [];
  for (const line of lines) {
    const amount = line.side === 'H' ? line.amount_cents : -line.amount_cents;
    const document: UstvaDocument = {
      entry_date: line.entry_date,
      document_type: line.document_type,
      document_id: line.document_id,
      document_number: line.document_number,
      amount_cents: amount,
    };
    if (!line.counterparty_vat_id) {
      withoutVatId.push(document);
      continue;
    }
    const documents = byVatId.get(line.counterparty_vat_id) ?? [];
    documents.push(document);
    byVatId.set(line.counterparty_vat_id, documents);
  }
  const rows: ZmRow[] = [...byVatId.entries()]
    .map(([vatId, documents]) => {
      const cents = documents.reduce((sum, d) => sum + d.amount_cents, 0);
      return { vat_id: vatId, amount_cents: cents, amount_euros: wholeEuros(cents), kind: 'S' as const, documents, problems: zmVatIdProblems(vatId) };
    })
    // A VAT ID whose sales and stornos cancel out to the cent has nothing to report.
    .filter((row) => row.amount_cents !== 0)
    .sort((a, b) => (a.vat_id < b.vat_id ? -1 : a.vat_id > b.vat_id ? 1 : 0));
  const problems = [
    ...rows.flatMap((row) => row.problems),
    ...withoutVatId.map((d) => `${d.document_number}: ohne USt-IdNr. des Leistungsempfängers gebucht, kann nicht gemeldet werden`),
    ...(rows.length > ZM_MAX_ROWS ? [`${rows.length} Zeilen: eine Datei nimmt höchstens ${ZM_MAX_ROWS}; bitte aufteilen`] : []),
  ];
  return {
    ...base,
    note:
      rows.length === 0 && withoutVatId.length === 0
        ? 'In diesem Zeitraum ist keine sonstige Leistung an Unternehmer im übrigen Gemeinschaftsgebiet gebucht: es ist nichts zu melden.'
        : null,
    rows,
    without_vat_id: withoutVatId,
    total_cents: rows.reduce((sum, row) => sum + row.amount_cents, 0) + withoutVatId.reduce((sum, d) => sum + d.amount_cents, 0),
    problems,
  };
}

/** The upload file for the BZSt's ZM form (CSV version 3.0, UTF-8, CRLF). */
export function zmCsv(report: ZmReport): string {
  const lines = [ZM_CSV_VERSION, ZM_CSV_HEADER, ...report.rows.map((row) => `${row.vat_id},${row.amount_euros},${row.kind}`)];
  return `${lines.join('\r\n')}\r\n`;
}

/** The CLI's and the app's file name: `ZM_2026-Q4.csv`. */
export const zmFileName = (period: TaxPeriod) => `ZM_${period.label}.csv`;
