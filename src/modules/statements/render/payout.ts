// The sentences about the money, shared by the PDF and the e-invoice (BT-20) so both say
// the same: when and where the company pays the partner, what happens to a cancelled
// amount, and the partner's right to object to a Gutschrift.
import { absolute, formatDate, formatMoney } from '../../../shared/german-format.ts';
import type { StatementDocument } from '../statement-document.ts';

/** True when the statement's total is below zero (a cancellation, or refunds above the commission). */
export function isNegative(doc: Pick<StatementDocument, 'totals'>): boolean {
  return doc.totals.gross.startsWith('-') && !/^-0(\.0+)?$/.test(doc.totals.gross);
}

function isZero(amount: string): boolean {
  return /^[-+]?0(\.0+)?$/.test(amount);
}

/** "DE…1234": the payout account as printed (the full IBAN goes into the e-invoice only). */
export function maskedIban(partner: StatementDocument['partner']): string | null {
  if (partner.ibanMasked) return partner.ibanMasked;
  if (!partner.iban) return null;
  const iban = partner.iban.replace(/\s+/g, '').toUpperCase();
  return `${iban.slice(0, 2)}…${iban.slice(-4)}`;
}

/** When and where the company pays — or, for a negative total, that the amount is offset. */
export function payoutSentence(doc: StatementDocument): string {
  if (isNegative(doc) && doc.kind === 'partner_invoice') {
    const request = doc.precedingStatement ? ` zur Abrechnung ${doc.precedingStatement.number}` : '';
    return `Bitte stornieren Sie eine${request} bereits gestellte Rechnung; einen bereits gezahlten Betrag verrechnen wir mit Ihren nächsten Provisionen.`;
  }
  if (isNegative(doc)) {
    const cancelled = doc.precedingStatement
      ? ` mit der ${doc.kind === 'self_billing' ? 'Gutschrift' : 'Provisionsabrechnung'} ${doc.precedingStatement.number}`
      : ' mit Ihren nächsten Provisionen';
    const paidOut = doc.precedingStatement ? '; einen bereits ausgezahlten Betrag verrechnen wir mit Ihren nächsten Provisionen' : '';
    return `Der Betrag von ${formatMoney(absolute(doc.totals.gross))} wird${cancelled} verrechnet${paidOut}.`;
  }
  if (isZero(doc.totals.gross)) return 'Es ist kein Betrag auszuzahlen.';
  const account = maskedIban(doc.partner);
  const transfer = account
    ? `den Betrag bis zum ${formatDate(doc.payoutDueDate)} auf Ihr Konto IBAN ${account}.`
    : 'den Betrag, sobald Sie uns Ihre Bankverbindung mitgeteilt haben.';
  return doc.kind === 'partner_invoice' ? `Nach Eingang Ihrer Rechnung überweisen wir ${transfer}` : `Wir überweisen ${transfer}`;
}

/** A Gutschrift is an invoice only while the partner does not object (BFH XI R 25/11). */
export const OBJECTION_SENTENCE =
  'Bitte prüfen Sie diese Gutschrift. Sind Sie mit ihr nicht einverstanden, können Sie ihr widersprechen; sie verliert dann ihre Wirkung als Rechnung.';
