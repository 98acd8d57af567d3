// The remittance subfields ?20–?29 and ?60–?63 of a German MT940 :86: field and the SEPA
// identifiers in them (german-rules §5.3, DK "SEPA-Belegungsregeln").
//
// Joining the subfields: DK cuts the text into subfields of 27 characters, so a full
// subfield goes on in the next without a separator ("SVWZ+Beitrag Musical fuer F" + "RIDA");
// a shorter one ended a line on purpose ("SVWZ+Apple Pay" / "DATUM 19.02.2019, 13.24 UHR")
// and is joined with a space. (A line ending on purpose at exactly 27 characters cannot be
// told from a cut one: "…13.24 UHR" + "1.TAN 002153" reads "UHR1.TAN".) A bank that writes
// longer subfields does not cut at 27 (an N26 file: pieces of 30 and 23 characters, ending
// inside words, "Alles - E" + "innahmen"): its pieces are joined as they are.
//
// Identifiers: DK starts each one in a new subfield; Commerzbank and Deutsche Bank run them
// on ("…400143254.4961336 KREF+SEPA-…-P1 MR" + "EF+20852…"). An identifier is read where a
// subfield starts, or inside the text where no letter or digit stands before it and it comes
// later in the DK order than the one before, so "SVWZ+" or "EREF+" a payer writes in the
// remittance text stays text.

const IDENTIFIERS = ['EREF', 'KREF', 'MREF', 'CRED', 'DEBT', 'COAM', 'OAMT', 'PURP', 'SVWZ', 'ABWA', 'ABWE'] as const;
export type SepaIdentifier = (typeof IDENTIFIERS)[number];

const IDENTIFIER = new RegExp(`(${IDENTIFIERS.join('|')})\\+`, 'g');

/** DK: at most 27 characters a subfield. */
const DK_SUBFIELD_WIDTH = 27;

export type SepaRemittance = {
  /** The text of each identifier found (repeats appended). */
  fields: Partial<Record<SepaIdentifier, string>>;
  /** The text before any identifier (older, unstructured usage), or null. */
  free: string | null;
};

/** The remittance subfield numbers in reading order: ?20–?29, then ?60–?63. */
export const REMITTANCE_SUBFIELDS = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];

const endsOrStartsWithSpace = (before: string, after: string) => /\s$/.test(before) || /^\s/.test(after);

/** The subfields as one text (see above), with the offset where each subfield starts. */
export function joinSubfields(parts: readonly string[]): { text: string; starts: number[] } {
  // A blank some banks add at the end of each subfield does not count.
  const cutAnywhere = parts.slice(0, -1).some((part) => part.trimEnd().length > DK_SUBFIELD_WIDTH);
  let text = '';
  const starts: number[] = [];
  parts.forEach((part, i) => {
    const previous = parts[i - 1];
    if (previous !== undefined && !cutAnywhere && previous.length < DK_SUBFIELD_WIDTH && !endsOrStartsWithSpace(text, part)) text += ' ';
    starts.push(text.length);
    text += part;
  });
  return { text, starts };
}

export function readSepaRemittance(parts: readonly string[]): SepaRemittance {
  const { text, starts } = joinSubfields(parts);
  const found: { id: SepaIdentifier; start: number; end: number }[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const id = match[1] as SepaIdentifier;
    const rank = IDENTIFIERS.indexOf(id);
    const last = found.at(-1);
    const atSubfieldStart = starts.includes(match.index);
    const afterWord = match.index > 0 && /[\p{L}\p{N}]/u.test(text[match.index - 1]!);
    if (atSubfieldStart || (!afterWord && rank > (last ? IDENTIFIERS.indexOf(last.id) : -1))) {
      found.push({ id, start: match.index, end: match.index + match[0].length });
    }
  }
  const fields: Partial<Record<SepaIdentifier, string>> = {};
  found.forEach(({ id, end }, i) => {
    const value = text.slice(end, found[i + 1]?.start ?? text.length).trim();
    fields[id] = fields[id] === undefined ? value : `${fields[id]} ${value}`.trim();
  });
  const free = text.slice(0, found[0]?.start ?? text.length).trim();
  return { fields, free: free || null };
}
