import type { CommissionPartnersTable, StatementCadence } from '../../db/schema-commissions.ts';
import type { StatementKind, StatementTaxNote } from './statement-document.ts';

// What a partner's settings decide for a statement (design §6): its kind, its VAT, its
// e-invoice, and the cadence periods the statement run closes.

type PartnerTerms = Pick<CommissionPartnersTable, 'billing_mode' | 'tax_status' | 'self_billing_agreed_on' | 'e_invoice_format'> & {
  self_billing_objected_at: Date | string | null;
};

/**
 * The kind follows the partner's tax status first (german-rules §7): a private person is no
 * Unternehmer, so it gets a settlement without VAT whatever its billing mode says. Anyone
 * else may get a Gutschrift only with `billing_mode` self_billing, an agreement on
 * self-billing and no objection (§ 14 Abs. 2 Satz 5 UStG); otherwise — also with
 * `billing_mode` settlement, which only fits a private person — the statement asks the
 * partner to invoice (decisions.md, issue 24).
 */
export function statementKind(partner: PartnerTerms): StatementKind {
  if (partner.tax_status === 'private_person') return 'settlement';
  const selfBilling = partner.billing_mode === 'self_billing' && partner.self_billing_agreed_on !== null && partner.self_billing_objected_at === null;
  return selfBilling ? 'self_billing' : 'partner_invoice';
}

/**
 * The kind a statement made earlier can still be issued as: a settlement is for a private
 * person only, so a draft made as settlement for a taxable partner (before issue 24) is
 * issued as a request to invoice, which says the same amounts as its VAT.
 */
export function issuableKind(kind: StatementKind, taxNote: StatementTaxNote): StatementKind {
  if (kind === 'settlement' && taxNote !== 'private_person') return 'partner_invoice';
  return kind;
}

/** domestic regular 19 %; small business 0 %; EU and third country: reverse charge 0 %; private person: no VAT. */
export function statementTax(partner: Pick<PartnerTerms, 'tax_status'>): { vatRate: 0 | 19; taxNote: StatementTaxNote } {
  switch (partner.tax_status) {
    case 'domestic_regular':
      return { vatRate: 19, taxNote: 'regular' };
    case 'domestic_small_business':
      return { vatRate: 0, taxNote: 'small_business' };
    case 'eu_reverse_charge':
    case 'third_country':
      return { vatRate: 0, taxNote: 'reverse_charge' };
    case 'private_person':
      return { vatRate: 0, taxNote: 'private_person' };
  }
}

/** A Gutschrift to a business partner carries an e-invoice unless the partner wants none (auto = ZUGFeRD). */
export function statementEInvoice(partner: PartnerTerms, kind: StatementKind): 'xrechnung' | 'zugferd' | null {
  if (kind !== 'self_billing' || partner.tax_status === 'private_person') return null;
  switch (partner.e_invoice_format) {
    case 'none':
      return null;
    case 'xrechnung':
      return 'xrechnung';
    default:
      return 'zugferd';
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The cadence period containing a day: month, calendar quarter or calendar year. */
export function periodContaining(day: string, cadence: StatementCadence): { start: string; end: string } {
  const [year, month] = day.split('-').map(Number) as [number, number];
  const months = cadence === 'month' ? 1 : cadence === 'quarter' ? 3 : 12;
  const first = Math.floor((month - 1) / months) * months + 1;
  const last = first + months - 1;
  return { start: `${year}-${pad(first)}-01`, end: `${year}-${pad(last)}-${pad(lastDay(year, last))}` };
}

/** The last period that has ended before `day` (the one the run closes on that day). */
export function lastClosedPeriod(day: string, cadence: StatementCadence): { start: string; end: string } {
  const current = periodContaining(day, cadence);
  const [year, month] = current.start.split('-').map(Number) as [number, number];
  const before = month === 1 ? `${year - 1}-12-31` : `${year}-${pad(month - 1)}-01`;
  return periodContaining(before, cadence);
}
