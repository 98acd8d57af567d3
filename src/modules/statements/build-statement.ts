import type { Selectable } from 'kysely';
import type { CommissionPartnersTable, StoredStatementLine } from '../../db/schema-commissions.ts';
import { addDays } from '../../shared/dates.ts';
import { formatCents } from '../../shared/money.ts';
import { divideHalfUp } from '../commissions/index.ts';
import { type CompanyRow, sellerOf } from '../invoicing/build-document.ts';
import type { PartnerContact } from './partner-contact.ts';
import { statementNotes } from './render/statement-notes.ts';
import type { StatementDocument, StatementKind, StatementTaxNote } from './statement-document.ts';

// A statement's lines and totals from its ledger entries, and its frozen document (pure).

export type PartnerRow = Selectable<CommissionPartnersTable>;

export type EntryForStatement = {
  id: string;
  agreement_id: string;
  agreement_name: string | null;
  agreement_ref: string;
  customer_id: string | null;
  customer_name: string | null;
  contract_month: number | null;
  percent: string;
  basis_cents: number;
  amount_cents: number;
  paid_on: string;
  service_period_start: string;
};

/** Days from issue to payout printed on a statement. */
export const PAYOUT_DAYS = 14;

const percentText = (percent: string) => percent.replace('.', ',');

/** One line per agreement, customer, percent and contract month; sorted by customer, agreement, month. */
export function statementLines(entries: readonly EntryForStatement[]): StoredStatementLine[] {
  const groups = new Map<string, StoredStatementLine>();
  for (const entry of entries) {
    const key = [entry.agreement_id, entry.customer_id ?? '', entry.percent, entry.contract_month ?? ''].join('\n');
    const first = entry.service_period_start < entry.paid_on ? entry.service_period_start : entry.paid_on;
    const line = groups.get(key);
    if (line) {
      line.basis_cents += Number(entry.basis_cents);
      line.amount_cents += Number(entry.amount_cents);
      line.entry_count += 1;
      if (first < line.period_start) line.period_start = first;
      if (entry.paid_on > line.period_end) line.period_end = entry.paid_on;
      continue;
    }
    groups.set(key, {
      position: 0,
      agreement_id: entry.agreement_id,
      agreement_name: entry.agreement_name ?? entry.agreement_ref,
      customer_id: entry.customer_id,
      customer_name: entry.customer_name,
      contract_month: entry.contract_month,
      percent: entry.percent,
      basis_cents: Number(entry.basis_cents),
      amount_cents: Number(entry.amount_cents),
      entry_count: 1,
      period_start: first,
      period_end: entry.paid_on,
      description: '',
    });
  }
  const lines = [...groups.values()].sort(
    (a, b) =>
      (a.customer_name ?? '').localeCompare(b.customer_name ?? '', 'de') ||
      (a.agreement_name ?? '').localeCompare(b.agreement_name ?? '', 'de') ||
      (a.contract_month ?? 0) - (b.contract_month ?? 0) ||
      Number(a.percent) - Number(b.percent),
  );
  lines.forEach((line, i) => {
    line.position = i + 1;
    const customer = line.customer_name ? `Kunde ${line.customer_name}` : 'ohne Kundenzuordnung';
    const month = line.contract_month === null ? '' : `, Vertragsmonat ${line.contract_month}`;
    line.description = `Provision ${percentText(line.percent)} % auf bezahlten Nettoumsatz – ${customer} (${line.agreement_name}${month})`;
  });
  return lines;
}

/** Net = Σ amounts; VAT = round half up(net × rate / 100); gross = net + VAT. */
export function statementTotals(lines: readonly StoredStatementLine[], vatRate: 0 | 19): { net: number; vat: number; gross: number } {
  const net = lines.reduce((sum, line) => sum + BigInt(line.amount_cents), 0n);
  const vat = divideHalfUp(net * BigInt(vatRate), 100n);
  return { net: Number(net), vat: Number(vat), gross: Number(net + vat) };
}

export type StatementFacts = {
  kind: StatementKind;
  type: 'statement' | 'cancellation';
  number: string;
  issueDate: string;
  period: { start: string; end: string };
  lines: readonly StoredStatementLine[];
  vatRate: 0 | 19;
  taxNote: StatementTaxNote;
  totals: { net: number; vat: number; gross: number };
  eInvoice: 'xrechnung' | 'zugferd' | null;
  precedingStatement: { number: string; issueDate: string } | null;
};

/** The frozen document of a numbered statement (what the PDF, the e-invoice, the mail and the booking read). */
export function buildStatementDocument(
  company: CompanyRow,
  partner: PartnerRow,
  facts: StatementFacts,
  payout: { iban: string | null },
  contact: PartnerContact = { contactName: null, phone: null },
): StatementDocument {
  const doc: StatementDocument = {
    kind: facts.kind,
    type: facts.type,
    number: facts.number,
    issueDate: facts.issueDate,
    period: facts.period,
    currency: 'EUR',
    company: sellerOf(company),
    partner: {
      name: partner.name,
      street: partner.street,
      houseNumber: partner.house_number,
      zip: partner.zip,
      city: partner.city,
      countryCode: partner.country_code ?? 'DE',
      vatId: partner.vat_id,
      email: partner.email,
      creditorNumber: String(partner.kreditorennummer),
      taxNumber: partner.tax_number,
      taxStatus: partner.tax_status,
      language: partner.language,
      iban: payout.iban,
      ibanMasked: partner.iban_masked,
      bic: partner.bic,
      // The partner's own contact for the e-invoice (BG-6), as a person set it; nothing of the company.
      phone: contact.phone,
      contactName: contact.contactName,
    },
    lines: facts.lines.map((line) => ({
      position: line.position,
      description: line.description,
      period: { start: line.period_start, end: line.period_end },
      basis: formatCents(line.basis_cents),
      percent: line.percent,
      amount: formatCents(line.amount_cents),
      entryCount: line.entry_count,
    })),
    vatRate: facts.vatRate,
    taxNote: facts.taxNote,
    totals: { net: formatCents(facts.totals.net), vat: formatCents(facts.totals.vat), gross: formatCents(facts.totals.gross) },
    notes: [],
    selfBillingAgreedOn: facts.kind === 'self_billing' ? partner.self_billing_agreed_on : null,
    precedingStatement: facts.precedingStatement,
    payoutDueDate: addDays(facts.issueDate, PAYOUT_DAYS),
    eInvoice: facts.eInvoice ?? 'none',
  };
  doc.notes = statementNotes({
    kind: doc.kind,
    taxNote: doc.taxNote,
    type: doc.type,
    precedingStatement: doc.precedingStatement,
    selfBillingAgreedOn: doc.selfBillingAgreedOn,
    totals: doc.totals,
  });
  return doc;
}
