// Finds invoice numbers in remittance text, however the payer wrote them: "RE-2026-00001",
// "re 2026 00001", "RE_2026/00001", "RE2026-0000 1" (a line break inside). The company's
// number pattern (invoicing/numbering.ts: {yyyy} {yy} {mm} {seq} {seq:N}) becomes a
// tolerant regular expression: letters in any case, optional separators (space, dash,
// underscore, dot, slash) between characters, {seq:N} at least N digits, and no digit
// directly before or after. Each hit is normalised (upper case, letters and digits only)
// and looked up in a Map of the open invoices' normalised numbers: no loop over invoices.

/** A run of up to three separators the payer may put between any two characters. */
const SEP = '[\\s\\-_./]{0,3}';

/** `count` digits with optional separators between them. */
const spacedDigits = (count: number) => (count <= 1 ? '\\d' : `\\d(?:${SEP}\\d){${count - 1}}`);

function escapeLiteral(char: string): string {
  return /[A-Za-z0-9]/.test(char) ? char : '';
}

/** The tolerant regular expression (global, case-insensitive) for a number pattern. */
export function invoiceNumberRegex(pattern: string): RegExp {
  const parts: string[] = [];
  const placeholder = /\{(yyyy|yy|mm|seq)(?::(\d))?\}/y;
  for (let i = 0; i < pattern.length; ) {
    placeholder.lastIndex = i;
    const match = placeholder.exec(pattern);
    if (match) {
      const [whole, name, width] = match;
      if (name === 'yyyy') parts.push(spacedDigits(4));
      else if (name === 'yy' || name === 'mm') parts.push(spacedDigits(2));
      // Beyond its width a sequence grows (00001 … 123456): the extra digits stand together.
      else parts.push(`${spacedDigits(Number(width ?? 1))}\\d*`);
      i += whole.length;
    } else {
      const literal = escapeLiteral(pattern[i]!);
      // Separators of the pattern itself are as optional as any other.
      if (literal) parts.push(literal);
      i += 1;
    }
  }
  if (parts.length === 0) throw new Error(`invoice number pattern ${JSON.stringify(pattern)} has no letters, digits or placeholders`);
  return new RegExp(`(?<!\\d)${parts.join(SEP)}(?!\\d)`, 'gi');
}

/** "re 2026-00001" → "RE202600001": the form numbers are compared in. */
export function normalizeInvoiceNumber(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
}

export type NumberHit = { key: string; written: string };

/** Finds numbers of the pattern in the texts, in order of appearance, each key once. */
export function invoiceNumberFinder(pattern: string): (texts: readonly (string | null)[]) => NumberHit[] {
  const regex = invoiceNumberRegex(pattern);
  return (texts) => {
    const hits: NumberHit[] = [];
    const seen = new Set<string>();
    for (const text of texts) {
      if (!text) continue;
      for (const match of text.matchAll(regex)) {
        const key = normalizeInvoiceNumber(match[0]);
        if (seen.has(key)) continue;
        seen.add(key);
        hits.push({ key, written: match[0].trim() });
      }
    }
    return hits;
  };
}
