import type { CommissionPartnersTable, StatementCadence } from '../../db/schema-commissions.ts';
import type { StatementKind, StatementTaxNote } from './statement-document.ts';

// What a partner's settings decide for a statement (design §6): its kind, its VAT, its
// e-invoice, and the cadence periods the statement run closes.

type PartnerTerms = Pick<CommissionPartnersTable, 'billing_mode' | 'tax_status' | 'self_billing_agreed_on' | 'e_invoice_format'> & {
  self_billing_objected_at: Date | string | null;
};

/**
 * private_person → settlement; self_billing with an agreement on self-billing and no
 * objection → self_billing (a Gutschrift); settlement → settlement; anything else (a
 * self-billing partner without agreement or after an objection) → partner_invoice.
 */
export function statementKind(partner: PartnerTerms): StatementKind {
  if (partner.tax_status === 'private_person') return 'settlement';
  if (partner.billing_mode === 'self_billing') {
    return partner.self_billing_agreed_on !== null && partner.self_billing_objected_at === null ? 'self_billing' : 'partner_invoice';
  }
  return partner.billing_mode;
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
