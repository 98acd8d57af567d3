// The SEPA identifiers inside the remittance subfields ?20–?29 and ?60–?63 of a German
// MT940 :86: field (german-rules §5.3, DK "SEPA-Belegungsregeln"): each identifier
// (EREF+, SVWZ+, …) starts a new subfield; text that overflows 27 characters continues in
// the next subfield without repeating it, so continuation lines are joined without a
// separator. mt940js splits :86: into its ?NN subfields; this reads what they carry.

const IDENTIFIERS = ['EREF', 'KREF', 'MREF', 'CRED', 'DEBT', 'COAM', 'OAMT', 'SVWZ', 'ABWA', 'ABWE'] as const;
export type SepaIdentifier = (typeof IDENTIFIERS)[number];

const STARTS_IDENTIFIER = new RegExp(`^(${IDENTIFIERS.join('|')})\\+`);

export type SepaRemittance = {
  /** The text of each identifier found (continuations appended). */
  fields: Partial<Record<SepaIdentifier, string>>;
  /** Remittance lines before any identifier (older, unstructured usage: one line each), joined by spaces. */
  free: string | null;
};

/** The remittance subfield numbers in reading order: ?20–?29, then ?60–?63. */
export const REMITTANCE_SUBFIELDS = ['20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '60', '61', '62', '63'];

export function readSepaRemittance(subfields: readonly string[]): SepaRemittance {
  const fields: Partial<Record<SepaIdentifier, string>> = {};
  const free: string[] = [];
  let current: SepaIdentifier | null = null;
  for (const subfield of subfields) {
    const start = STARTS_IDENTIFIER.exec(subfield);
    if (start) {
      current = start[1] as SepaIdentifier;
      fields[current] = (fields[current] ?? '') + subfield.slice(start[0].length);
    } else if (current) {
      fields[current] += subfield;
    } else {
      free.push(subfield.trim());
    }
  }
  for (const id of Object.keys(fields) as SepaIdentifier[]) fields[id] = fields[id]!.trim();
  return { fields, free: free.filter(Boolean).join(' ') || null };
}
