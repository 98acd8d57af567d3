import { originalAmountOf, reasonInText } from './return-mark.ts';
import { joinSubfields, REMITTANCE_SUBFIELDS, readSepaRemittance } from './sepa-remittance.ts';

// The :86: text of an entry (german-rules §5.3). German banks structure it: a 3-digit GVC,
// then subfields ?NN (?00 booking text, ?20–?29/?60–?63 remittance, ?31 IBAN, ?32–?33
// name); its lines wrap at 65 characters anywhere, even inside "?2" + "2", so they are
// joined without a separator before the subfields are read. Other banks write free text:
// a line of the full 65 characters (the first counting its ":86:") goes on in the next
// without a separator ("justo da" / "uo"), a shorter one ended on purpose (space).

export type EntryDetails = {
  bookingText: string | null;
  remittanceText: string | null;
  endToEndId: string | null;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  /** The 3-digit Geschäftsvorfallcode a structured :86: starts with (109: direct debit returned). */
  gvc: string | null;
  /** A return's original amount (OAMT+; the booked amount adds the bank's fees, COAM+). */
  originalAmount: string | null;
  /** An ISO return reason in the text ("Rueckgabegrund: MD06"). */
  returnReason: string | null;
};

/** SWIFT: a :86: line holds 65 characters. */
const LINE_WIDTH = 65;
const TAG_WIDTH = ':86:'.length;

const NONE: EntryDetails = {
  bookingText: null,
  remittanceText: null,
  endToEndId: null,
  counterpartyName: null,
  counterpartyIban: null,
  gvc: null,
  originalAmount: null,
  returnReason: null,
};

/** The subfields in the order written (?NN, or >NN as Triodos writes them); null when the text is not structured. */
function subfieldsOf(text: string): [string, string][] | null {
  const start = /^\s*(?:\d{3})?(?=([?>])\d\d)/.exec(text);
  if (!start) return null;
  const mark = `\\${start[1]}`;
  const parts: [string, string][] = [];
  for (const match of text.slice(start[0].length).matchAll(new RegExp(`${mark}(\\d\\d)((?:(?!${mark}\\d\\d)[\\s\\S])*)`, 'g')))
    parts.push([match[1]!, match[2]!]);
  return parts;
}

/** Free text: full lines continue without a separator, shorter ones are joined with a space. */
function joinFreeText(fields: readonly string[][]): string {
  let text = '';
  let glue = false;
  for (const lines of fields) {
    lines.forEach((line, i) => {
      if (text !== '' && !glue && !/\s$/.test(text) && !/^\s/.test(line)) text += ' ';
      text += line;
      glue = (i === 0 ? TAG_WIDTH : 0) + line.length >= LINE_WIDTH;
    });
    glue = false;
  }
  return text.trim();
}

/** Reads the :86: fields (each its lines) that follow an entry's :61:. */
export function readDetails(fields: readonly string[][]): EntryDetails {
  if (fields.length === 0) return NONE;
  const joined = fields.map((lines) => lines.join('')).join('');
  const subfields = subfieldsOf(joined);
  if (!subfields) {
    const remittanceText = joinFreeText(fields) || null;
    return { ...NONE, remittanceText, returnReason: reasonInText(remittanceText) };
  }

  const values = (key: string) => subfields.filter(([k]) => k === key).map(([, value]) => value);
  const one = (key: string) => values(key).join('').trim() || null;
  const remittance = REMITTANCE_SUBFIELDS.flatMap(values);
  const sepa = readSepaRemittance(remittance);
  const endToEndId = sepa.fields.EREF && sepa.fields.EREF.toUpperCase() !== 'NOTPROVIDED' ? sepa.fields.EREF : null;
  const iban = one('31')?.replace(/\s+/g, '') ?? null;
  const remittanceText = sepa.fields.SVWZ || sepa.free;
  return {
    bookingText: one('00'),
    remittanceText,
    endToEndId,
    counterpartyName: joinSubfields([...values('32'), ...values('33')]).text.trim() || null,
    counterpartyIban: iban && /^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) ? iban : null,
    gvc: /^\s*(\d{3})/.exec(joined)?.[1] ?? null,
    originalAmount: originalAmountOf(sepa.fields.OAMT),
    returnReason: reasonInText(remittanceText),
  };
}
