import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import type { JournalDocumentType } from '../../db/schema-bookkeeping.ts';
import { type AccountPlan, accountPlan } from '../bookkeeping/index.ts';
import { companyForReturn, type Filing } from './filing.ts';
import type { TaxPeriod } from './tax-period.ts';

// The figures of the Umsatzsteuer-Voranmeldung (USt 1 A) from the books (issue 28 §1):
// every journal line of the period on an account that feeds a Kennzahl, grouped by
// Kennzahl, each with the documents behind it. The journal keeps every tax explicitly
// (bookkeeping/), so the figures are the journal's to the cent; a storno or a cancelled
// statement is booked in its own period as a mirror entry and lands there — a filed
// (locked) period is never rewritten.
//
// Accounts → Kennzahlen (german-rules §6.5; docs/tax-sources.md for the form):
//   revenue 19 % → 81 (base; its tax as the form computes it from the whole-euro base),
//   revenue 7 % → 86, tax-exempt revenue (§ 4 Nr. 8 ff., no input VAT) → 48,
//   EU B2B services, recipient liable → 21, other not taxable (third country) → 45,
//   input VAT 19 % (Gutschriften, partner invoices) → 66,
//   commission of an EU partner § 13b Abs. 1 → 46 (base) and 47 (tax),
//   of a third-country partner § 13b Abs. 2 Nr. 1 → 84 and 85,
//   input VAT § 13b → 67; and the result, Kz 83.
// A Kleinunternehmer (§ 19 UStG) files no Voranmeldung; its revenue feeds no Kennzahl.
// Bases go to the form in whole euros, cents dropped; taxes in euros and cents.

export type UstvaDocument = {
  entry_date: string;
  document_type: JournalDocumentType;
  document_id: string;
  document_number: string;
  /** The document's amount on this Kennzahl (signed: a storno is negative). */
  amount_cents: number;
};

export type UstvaLine = {
  /** The Kennzahl, or null for the tax the form computes beside 81 and 86. */
  kz: string | null;
  key: string;
  label: string;
  /** The booked sum, exact to the cent. */
  booked_cents: number;
  /** What goes into the form: whole euros for a base, euros and cents for a tax. */
  form: string;
  unit: 'euro' | 'cent';
  documents: UstvaDocument[];
};

export type UstvaReport = {
  company_id: string;
  period: TaxPeriod;
  /** The period lies inside the company's locked accounting period: the return was filed. */
  filed: boolean;
  locked_until: string | null;
  small_business: boolean;
  /** The company's filing rhythm and the period's deadlines (filing.ts). */
  filing: Filing;
  /** Why there is nothing to file, or null. */
  note: string | null;
  lines: UstvaLine[];
  /** Kz 83: the Vorauszahlung (positive) or Überschuss (negative), as the form computes it. */
  vorauszahlung_cents: number;
  /** Output VAT booked minus output VAT the form computes from whole-euro bases (rounding only). */
  rounding_difference_cents: number;
  /** OSS sales (EU private customers above the threshold): Kontor does not issue them. */
  oss: { country: string; rate: string; net_cents: number; vat_cents: number }[];
};

type Slot = { key: string; kz: string | null; label: string; unit: 'euro' | 'cent'; sign: 1 | -1 };

/** The Kennzahlen in the form's order; `sign` turns H − S of the accounts into the figure. */
const SLOTS: Slot[] = [
  { key: '81', kz: '81', label: 'Steuerpflichtige Umsätze zum Steuersatz von 19 % (Bemessungsgrundlage)', unit: 'euro', sign: 1 },
  { key: '81-tax', kz: null, label: 'Steuer zu Kz 81', unit: 'cent', sign: 1 },
  { key: '86', kz: '86', label: 'Steuerpflichtige Umsätze zum Steuersatz von 7 % (Bemessungsgrundlage)', unit: 'euro', sign: 1 },
  { key: '86-tax', kz: null, label: 'Steuer zu Kz 86', unit: 'cent', sign: 1 },
  { key: '48', kz: '48', label: 'Steuerfreie Umsätze ohne Vorsteuerabzug (§ 4 Nr. 8 ff. UStG)', unit: 'euro', sign: 1 },
  { key: '21', kz: '21', label: 'Nicht steuerbare sonstige Leistungen im übrigen Gemeinschaftsgebiet (§ 18b UStG)', unit: 'euro', sign: 1 },
  { key: '45', kz: '45', label: 'Übrige nicht steuerbare Umsätze (Leistungsort nicht im Inland)', unit: 'euro', sign: 1 },
  {
    key: '46',
    kz: '46',
    label: 'Sonstige Leistungen eines im übrigen Gemeinschaftsgebiet ansässigen Unternehmers (§ 13b Abs. 1 UStG)',
    unit: 'euro',
    sign: -1,
  },
  { key: '47', kz: '47', label: 'Steuer zu Kz 46', unit: 'cent', sign: 1 },
  { key: '84', kz: '84', label: 'Andere Leistungen (§ 13b Abs. 2 Nr. 1 UStG)', unit: 'euro', sign: -1 },
  { key: '85', kz: '85', label: 'Steuer zu Kz 84', unit: 'cent', sign: 1 },
  { key: '66', kz: '66', label: 'Vorsteuerbeträge aus Rechnungen von anderen Unternehmern', unit: 'cent', sign: -1 },
  { key: '67', kz: '67', label: 'Vorsteuerbeträge aus Leistungen im Sinne des § 13b UStG', unit: 'cent', sign: -1 },
];

/** The Kennzahl of a journal line's account; the § 13b output VAT by the entry's § 13b account. */
function slotOf(plan: AccountPlan, account: string, entryAccounts: ReadonlySet<string>): string | null {
  switch (account) {
    case plan.revenue19:
      return '81';
    case plan.outputVat19:
      return '81-tax';
    case plan.revenue7:
      return '86';
    case plan.outputVat7:
      return '86-tax';
    case plan.revenueTaxExempt:
      return '48';
    case plan.revenueReverseCharge:
      return '21';
    case plan.revenueNotTaxable:
      return '45';
    case plan.commissionReverseChargeEu:
      return '46';
    case plan.commissionReverseChargeForeign:
      return '84';
    case plan.outputVatReverseCharge19:
      return entryAccounts.has(plan.commissionReverseChargeForeign) ? '85' : '47';
    case plan.inputVat19:
      return '66';
    case plan.inputVatReverseCharge19:
      return '67';
    default:
      return null;
  }
}

/** Cents to the form's whole euros: the cents are dropped (toward zero). */
export const wholeEuros = (cents: number): number => Math.trunc(cents / 100);

const euroText = (euros: number) => String(euros);
const centText = (cents: number) => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/** The tax the form computes on a whole-euro base at `rate` %, in cents (exact: a whole euro × 19 % is whole cents). */
const formTax = (euros: number, rate: number) => euros * rate;

export async function ustvaReport(db: Database, companyId: string, period: TaxPeriod): Promise<UstvaReport> {
  const company = await companyForReturn(db, companyId, period);
  const base = {
    company_id: companyId,
    period,
    filed: company.filed,
    locked_until: company.lockedUntil,
    small_business: company.smallBusiness,
    filing: company.filing,
    oss: [],
  };
  if (company.smallBusiness)
    return {
      ...base,
      note: 'Als Kleinunternehmer (§ 19 UStG) gibt die Firma keine Umsatzsteuer-Voranmeldung ab: ihre Umsätze sind steuerfrei und sie zieht keine Vorsteuer ab.',
      lines: [],
      vorauszahlung_cents: 0,
      rounding_difference_cents: 0,
    };
  const plan = accountPlan(company.chart);
  const accounts = [
    plan.revenue19,
    plan.outputVat19,
    plan.revenue7,
    plan.outputVat7,
    plan.revenueTaxExempt,
    plan.revenueReverseCharge,
    plan.revenueNotTaxable,
    plan.commissionReverseChargeEu,
    plan.commissionReverseChargeForeign,
    plan.outputVatReverseCharge19,
    plan.inputVat19,
    plan.inputVatReverseCharge19,
  ];
  // Per entry and account: H − S. An entry's § 13b accounts say which Kennzahl its § 13b tax belongs to.
  const rows = await db
    .selectFrom('journal_entries as e')
    .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
    .select([
      'e.id',
      'e.entry_date',
      'e.document_type',
      'e.document_id',
      'e.document_number',
      'l.account',
      sql<string>`sum(case when l.side = 'H' then l.amount_cents else -l.amount_cents end)::text`.as('credit'),
    ])
    .where('e.company_id', '=', companyId)
    .where('e.entry_date', '>=', period.from)
    .where('e.entry_date', '<=', period.to)
    .where('l.account', 'in', accounts)
    .groupBy(['e.id', 'e.entry_date', 'e.document_type', 'e.document_id', 'e.document_number', 'l.account'])
    .orderBy('e.entry_date')
    .orderBy('e.document_number')
    .orderBy('e.id')
    .execute();
  const accountsOf = new Map<string, Set<string>>();
  for (const row of rows) {
    const set = accountsOf.get(row.id) ?? new Set<string>();
    set.add(row.account);
    accountsOf.set(row.id, set);
  }
  const sums = new Map<string, { cents: number; documents: UstvaDocument[] }>(SLOTS.map((slot) => [slot.key, { cents: 0, documents: [] }]));
  const signOf = new Map(SLOTS.map((slot) => [slot.key, slot.sign]));
  for (const row of rows) {
    const key = slotOf(plan, row.account, accountsOf.get(row.id) as Set<string>);
    if (!key) continue;
    const amount = Number(row.credit) * (signOf.get(key) as number);
    const sum = sums.get(key) as { cents: number; documents: UstvaDocument[] };
    sum.cents += amount;
    sum.documents.push({
      entry_date: row.entry_date,
      document_type: row.document_type,
      document_id: row.document_id,
      document_number: row.document_number,
      amount_cents: amount,
    });
  }
  const cents = (key: string) => (sums.get(key) as { cents: number }).cents;
  const tax81 = formTax(wholeEuros(cents('81')), 19);
  const tax86 = formTax(wholeEuros(cents('86')), 7);
  const lines: UstvaLine[] = [];
  for (const slot of SLOTS) {
    const sum = sums.get(slot.key) as { cents: number; documents: UstvaDocument[] };
    if (sum.documents.length === 0) continue;
    const form =
      slot.key === '81-tax'
        ? centText(tax81)
        : slot.key === '86-tax'
          ? centText(tax86)
          : slot.unit === 'euro'
            ? euroText(wholeEuros(sum.cents))
            : centText(sum.cents);
    lines.push({ kz: slot.kz, key: slot.key, label: slot.label, booked_cents: sum.cents, form, unit: slot.unit, documents: sum.documents });
  }
  const vorauszahlung = tax81 + tax86 + cents('47') + cents('85') - cents('66') - cents('67');
  lines.push({
    kz: '83',
    key: '83',
    label: vorauszahlung >= 0 ? 'Umsatzsteuer-Vorauszahlung' : 'Überschuss (Erstattung)',
    booked_cents: cents('81-tax') + cents('86-tax') + cents('47') + cents('85') - cents('66') - cents('67'),
    form: centText(vorauszahlung),
    unit: 'cent',
    documents: [],
  });
  return {
    ...base,
    note: rows.length === 0 ? 'In diesem Zeitraum ist nichts gebucht, das in die Voranmeldung gehört.' : null,
    lines,
    vorauszahlung_cents: vorauszahlung,
    rounding_difference_cents: cents('81-tax') + cents('86-tax') - tax81 - tax86,
  };
}
