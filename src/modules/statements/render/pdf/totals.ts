// The statement's totals, by kind and tax note: a Gutschrift shows net, VAT at its rate and
// the total (§ 14 Abs. 4 Nr. 7/8 UStG); one for a Kleinunternehmer shows no VAT at all
// (§ 19 UStG: VAT shown would be owed, § 14c); a private person's settlement only the
// amount paid out; a request for the partner's invoice only the net commission to invoice.
import type { AmountRow } from '../../../invoicing/render/pdf/totals.ts';
import type { StatementDocument } from '../../statement-document.ts';

export function statementTotalRows(doc: StatementDocument): AmountRow[] {
  const { totals } = doc;
  const cancellation = doc.type === 'cancellation';
  if (doc.kind === 'settlement' || doc.taxNote === 'private_person') {
    return [{ label: cancellation ? 'Gesamtbetrag' : 'Auszahlungsbetrag', amount: totals.gross, bold: true, ruleAbove: true }];
  }
  if (doc.kind === 'partner_invoice') {
    return [{ label: cancellation ? 'Provision netto' : 'Provision netto (zu berechnen)', amount: totals.net, bold: true, ruleAbove: true }];
  }
  if (doc.taxNote === 'small_business') return [{ label: 'Gesamtbetrag', amount: totals.gross, bold: true, ruleAbove: true }];
  const vatLabel = doc.taxNote === 'reverse_charge' ? 'Umsatzsteuer 0 % (§ 13b UStG)' : `zzgl. ${doc.vatRate} % USt`;
  return [
    { label: 'Provision netto', amount: totals.net, ruleAbove: true },
    { label: vatLabel, amount: totals.vat },
    { label: 'Gesamtbetrag', amount: totals.gross, bold: true, ruleAbove: true },
  ];
}
