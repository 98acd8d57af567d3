// Finds invoice numbers in remittance text, however the payer wrote them: "RE-2026-00001",
// "re 2026 00001", "RE_2026/00001", "RE2026-0000 1" (a line break inside), "Re.-Nr.
// 2026-00001". The company's number pattern (invoicing/numbering.ts: {yyyy} {yy} {mm} {seq}
// {seq:N}) becomes one tolerant regular expression: letters in any case, optional
// separators (space, dash, underscore, dot, slash) between characters, "Nr"/"No" between
// the pattern's leading letters and the rest, {seq:N} at least N digits, no digit directly
// before or after, and no letter directly before a leading letter ("Ware 2026 00005" is no
// "RE-2026-00005") unless a word in lower case runs into the number in capitals
// ("KundeRE-2026-00001"). Each hit is normalised (upper case, letters and digits only) and
// looked up in a Map of the open invoices' normalised numbers: no loop over invoices.

/** A run of up to three separators the payer may put between any two characters. */
const SEP = '[\\s\\-_./]{0,3}';

/** "Nr", "Nr.", "No:" after the leading letters ("Re.-Nr. 2026-00005"); not part of the number. */
const NUMBER_WORD = `(?:${SEP}[Nn][RrOo]\\.?:?)?`;

/** Before a leading letter: no letter or digit, or a lower-case letter before the number in capitals. */
const LETTER_START = '(?:(?<![\\p{L}\\d])|(?<=\\p{Ll})(?=\\p{Lu}))';

/** `count` digits with optional separators between them. */
const spacedDigits = (count: number) => (count <= 1 ? '\\d' : `\\d(?:${SEP}\\d){${count - 1}}`);

/** A letter of the pattern in either case; a digit as it is; anything else is a separator. */
function literal(char: string): string {
  if (/[A-Za-z]/.test(char)) return `[${char.toUpperCase()}${char.toLowerCase()}]`;
  return /[0-9]/.test(char) ? char : '';
}

/**
 * The tolerant regular expression (global) for a number pattern. Group `head` holds the
 * pattern's leading letters, `tail` the rest; a "Nr" between them is in neither.
 */
export function invoiceNumberRegex(pattern: string): RegExp {
  const parts: { source: string; letter: boolean }[] = [];
  const placeholder = /\{(yyyy|yy|mm|seq)(?::(\d))?\}/y;
  for (let i = 0; i < pattern.length; ) {
    placeholder.lastIndex = i;
    const match = placeholder.exec(pattern);
    if (match) {
      const [whole, name, width] = match;
      if (name === 'yyyy') parts.push({ source: spacedDigits(4), letter: false });
      else if (name === 'yy' || name === 'mm') parts.push({ source: spacedDigits(2), letter: false });
      // Beyond its width a sequence grows (00001 … 123456): the extra digits stand together.
      else parts.push({ source: `${spacedDigits(Number(width ?? 1))}\\d*`, letter: false });
      i += whole.length;
    } else {
      const source = literal(pattern[i]!);
      // Separators of the pattern itself are as optional as any other.
      if (source) parts.push({ source, letter: /[A-Za-z]/.test(pattern[i]!) });
      i += 1;
    }
  }
  if (parts.length === 0) throw new Error(`invoice number pattern ${JSON.stringify(pattern)} has no letters, digits or placeholders`);
  const leading = parts.findIndex((part) => !part.letter);
  const join = (list: typeof parts) => list.map((part) => part.source).join(SEP);
  if (leading === 0) return new RegExp(`(?<!\\d)(?<head>${join(parts)})(?<tail>)(?!\\d)`, 'gu');
  const head = join(leading < 0 ? parts : parts.slice(0, leading));
  const tail = leading < 0 ? '' : `${NUMBER_WORD}(?<tail>${SEP}${join(parts.slice(leading))})`;
  return new RegExp(`${LETTER_START}(?<head>${head})${tail || '(?<tail>)'}(?!\\d)`, 'gu');
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
        const key = normalizeInvoiceNumber(`${match.groups!.head}${match.groups!.tail}`);
        if (seen.has(key)) continue;
        seen.add(key);
        hits.push({ key, written: match[0].trim() });
      }
    }
    return hits;
  };
}
