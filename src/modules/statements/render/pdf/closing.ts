// Below the totals: the statement's notes (self-billing agreement, § 19, § 13b, no VAT for a
// private person, not an invoice), the payout sentence and, on a Gutschrift, the partner's
// right to object to it.
import type { StatementDocument } from '../../statement-document.ts';
import { OBJECTION_SENTENCE, payoutSentence } from '../payout.ts';
import { STATEMENT_STORNO_PREFIX } from '../statement-notes.ts';

export function closingParagraphs(doc: StatementDocument): { text: string; bold: boolean }[] {
  // The storno reference stands under the title already.
  const notes = doc.notes.filter((note) => !(doc.precedingStatement && note.startsWith(STATEMENT_STORNO_PREFIX)));
  const list = [...notes.map((text) => ({ text, bold: false })), { text: payoutSentence(doc), bold: true }];
  if (doc.kind === 'self_billing' && doc.type === 'statement') list.push({ text: OBJECTION_SENTENCE, bold: false });
  return list.map((paragraph) => ({ ...paragraph, text: keepCitationsTogether(paragraph.text) }));
}

/** "§ 2 UStG" never breaks across lines: no-break spaces inside a citation (print only). */
function keepCitationsTogether(text: string): string {
  return text.replace(/§ (\d+[a-z]?)(?: (Abs\. \d+))?(?: (UStG|UStDV))?/g, (citation) => citation.replace(/ /g, '\u00a0'));
}
