// The German wording of a statement: its title per kind and type, and the notes frozen into
// the snapshot (`doc.notes`, printed and carried as BT-22). A Gutschrift (self-billing,
// § 14 Abs. 2 Satz 5 UStG) must say "Gutschrift" (§ 14 Abs. 4 Nr. 10 UStG); a settlement
// with a private person and a request for the partner's invoice are no tax documents and
// must not look like one (german-rules §7).
import { formatDate, formatMoney } from '../../../shared/german-format.ts';
import type { StatementDocument, StatementKind, StatementTaxNote } from '../statement-document.ts';

export type StatementNotesInput = {
  kind: StatementKind;
  taxNote: StatementTaxNote;
  type: StatementDocument['type'];
  precedingStatement: { number: string; issueDate: string } | null;
  selfBillingAgreedOn: string | null;
  /**
   * The statement's totals (decimal strings): a request to invoice names the amounts the
   * partner's invoice should carry, the same the API shows (net, VAT, gross).
   */
  totals?: { net: string; vat: string; gross: string } | undefined;
};

/** "Gutschrift", "Storno-Gutschrift", "Provisionsabrechnung", … — the document's name on the PDF. */
export function statementTitle(doc: Pick<StatementDocument, 'kind' | 'type'>): string {
  if (doc.type === 'cancellation') return doc.kind === 'self_billing' ? 'Storno-Gutschrift' : 'Storno-Provisionsabrechnung';
  switch (doc.kind) {
    case 'self_billing':
      return 'Gutschrift';
    case 'settlement':
      return 'Provisionsabrechnung';
    case 'partner_invoice':
      return 'Provisionsabrechnung – Bitte um Rechnungsstellung';
  }
}

/** The kind of the cancelled document, as the storno reference names it. */
function cancelledName(kind: StatementKind): string {
  return kind === 'self_billing' ? 'Gutschrift' : 'Provisionsabrechnung';
}

export const STATEMENT_STORNO_PREFIX = 'Storno zur ';

/** "Storno zur Gutschrift GS-2026-0001 vom 05.11.2026": the one sentence naming the cancelled statement. */
export function statementStornoNote(kind: StatementKind, preceding: { number: string; issueDate: string }): string {
  return `${STATEMENT_STORNO_PREFIX}${cancelledName(kind)} ${preceding.number} vom ${formatDate(preceding.issueDate)}`;
}

/** What a Gutschrift says about VAT, by the partner's tax status. */
function selfBillingTaxNote(taxNote: StatementTaxNote): string | null {
  switch (taxNote) {
    case 'regular':
      return null;
    // The partner is the Kleinunternehmer (the supplier of the commission service).
    case 'small_business':
      return 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet (Steuerbefreiung für Kleinunternehmer).';
    // § 13b Abs. 1/2, Abs. 5 UStG: we, the recipient of the partner's service, owe the VAT.
    case 'reverse_charge':
      return 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG): Die Umsatzsteuer schulden wir als Leistungsempfänger.';
    case 'private_person':
      throw new Error('a private person is no Unternehmer: no Gutschrift, settle with kind settlement');
  }
}

/**
 * A request for the partner's invoice: not an invoice itself, and what the partner's invoice
 * must say on VAT — with the amounts when they are known ("über den Provisionsbetrag von
 * 250,00 € zuzüglich 19 % Umsatzsteuer (47,50 €), insgesamt 297,50 €").
 */
function partnerInvoiceNote(taxNote: StatementTaxNote, totals: StatementNotesInput['totals']): string {
  const amount = totals ? ` von ${formatMoney(totals.net)}` : '';
  const request = `Diese Abrechnung ist keine Rechnung. Bitte stellen Sie uns über den Provisionsbetrag${amount} eine Rechnung`;
  switch (taxNote) {
    case 'regular':
      return totals
        ? `Diese Abrechnung ist keine Rechnung. Bitte stellen Sie uns über den Provisionsbetrag${amount} zuzüglich 19 % Umsatzsteuer (${formatMoney(totals.vat)}), insgesamt ${formatMoney(totals.gross)}, eine Rechnung.`
        : `${request} zuzüglich Umsatzsteuer in gesetzlicher Höhe.`;
    case 'small_business':
      return `${request} ohne Umsatzsteuer mit Hinweis auf § 19 UStG.`;
    case 'reverse_charge':
      return `${request} ohne Umsatzsteuer mit dem Hinweis „Steuerschuldnerschaft des Leistungsempfängers“.`;
    case 'private_person':
      return `${request}.`;
  }
}

/** The notes of a statement, in print order: storno reference, self-billing agreement, VAT. */
export function statementNotes(input: StatementNotesInput): string[] {
  const notes: string[] = [];
  if (input.type === 'cancellation' && input.precedingStatement) notes.push(`${statementStornoNote(input.kind, input.precedingStatement)}.`);
  switch (input.kind) {
    case 'self_billing': {
      const agreement = input.selfBillingAgreedOn ? ` gemäß Vereinbarung vom ${formatDate(input.selfBillingAgreedOn)}` : '';
      notes.push(`Abrechnung im Gutschriftsverfahren${agreement}.`);
      const tax = selfBillingTaxNote(input.taxNote);
      if (tax) notes.push(tax);
      break;
    }
    case 'settlement':
      notes.push('Es wird keine Umsatzsteuer ausgewiesen, da Sie als Privatperson kein Unternehmer im Sinne des § 2 UStG sind.');
      break;
    case 'partner_invoice':
      // A cancelled request asks for no invoice; the payout sentence says what happens to one already sent.
      notes.push(input.type === 'cancellation' ? 'Diese Abrechnung ist keine Rechnung.' : partnerInvoiceNote(input.taxNote, input.totals));
      break;
  }
  return notes;
}
