// The immutable snapshot of a revenue-share statement (interface §2 CommissionStatement,
// design §6): everything its PDF, its e-invoice, its mail and its booking need, frozen
// when the statement gets its number. Renderers are pure functions of this object.
// Amounts are decimal strings with exactly two decimals, negative on a cancellation.

import type { Party, Seller } from '../invoicing/document.ts';

/**
 * - `self_billing`: a Gutschrift (§ 14 Abs. 2 Satz 2 UStG) — the company issues the invoice
 *   for the partner's service; the partner is the supplier (seller), the company the buyer.
 *   E-invoice type 389 (self-billed invoice).
 * - `settlement`: a commission statement (Provisionsabrechnung) for a private person, no VAT.
 * - `partner_invoice`: a statement asking the partner to send an invoice for the amount
 *   (no tax document of its own).
 */
export type StatementKind = 'self_billing' | 'settlement' | 'partner_invoice';

/**
 * How the statement is taxed (by the partner's tax_status):
 * - `regular`: domestic, 19 % VAT;
 * - `small_business`: the partner is a Kleinunternehmer (§ 19 UStG), 0 %, category E;
 * - `reverse_charge`: partner in another EU state (§ 13b UStG, the company owes the VAT) or in a
 *   third country (not taxable in Germany / reverse charge), 0 %, category AE;
 * - `private_person`: no VAT at all (a private person is no Unternehmer).
 */
export type StatementTaxNote = 'regular' | 'small_business' | 'reverse_charge' | 'private_person';

export type StatementPartner = Party & {
  /** The partner's creditor number (Kreditorennummer) in the company's books, e.g. "70001". */
  creditorNumber: string;
  taxNumber: string | null;
  taxStatus: 'domestic_regular' | 'domestic_small_business' | 'eu_reverse_charge' | 'third_country' | 'private_person';
  language: 'de' | 'en';
  /** The payout account, when a person set one (shown masked on the PDF, full in the e-invoice's payee account). */
  iban: string | null;
  ibanMasked: string | null;
  bic: string | null;
  /**
   * Optional (absent in older snapshots): the partner's telephone, the seller contact
   * telephone (BT-42, XRechnung BR-DE-6) of a Gutschrift, as a person set it. Without it
   * BT-42 is left out; an XRechnung is not issued without it (nothing of the company
   * stands in for the partner's data).
   */
  phone?: string | null;
  /** Optional: the partner's contact person (BT-41); without it the partner's name. */
  contactName?: string | null;
};

/** One line: the commission earned under one agreement on one customer's revenue at one percent. */
export type StatementDocumentLine = {
  position: number;
  /** German text, e.g. "Provision 10 % auf bezahlten Umsatz – Kunde Muster GmbH (Vertragsmonat 3)". */
  description: string;
  /** First and last service_period_start / paid day of the entries on this line. */
  period: { start: string; end: string };
  /** The net paid revenue the percent applies to; negative for refunds and on a cancellation. */
  basis: string;
  /** Exact decimal text, e.g. "12.5". */
  percent: string;
  /** The commission: the sum of the entries' amount_cents, as a decimal. */
  amount: string;
  /** How many ledger entries the line adds up. */
  entryCount: number;
};

export type StatementDocument = {
  kind: StatementKind;
  /** A cancellation (Storno) of an earlier statement carries the negated lines and totals. */
  type: 'statement' | 'cancellation';
  number: string;
  issueDate: string;
  /** The cadence period the entries belong to (month, quarter or year). */
  period: { start: string; end: string };
  currency: 'EUR';
  /** The company issuing the statement (in a Gutschrift: the buyer of the partner's service). */
  company: Seller;
  partner: StatementPartner;
  lines: StatementDocumentLine[];
  vatRate: 0 | 19;
  taxNote: StatementTaxNote;
  totals: { net: string; vat: string; gross: string };
  /** German sentences printed on the statement and carried as BT-22 (Gutschrift, § 19, § 13b, storno reference, …). */
  notes: string[];
  /** For self_billing: the day the partner agreed to self-billing (printed). */
  selfBillingAgreedOn: string | null;
  /** The cancelled statement, on a cancellation. */
  precedingStatement: { number: string; issueDate: string } | null;
  /** Days until the company pays (payout); printed as the payout date. */
  payoutDueDate: string;
  eInvoice: 'xrechnung' | 'zugferd' | 'none';
};
