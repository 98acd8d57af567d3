// Text for SEPA files in the SEPA Latin character set (EPC SCT customer-to-PSP guidelines,
// "Character set"): a–z A–Z 0–9 / - ? : ( ) . , ' + and space. Banks may take more, but
// only this set is sure to reach the beneficiary unchanged, so every text Kontor writes
// into a payout file is cut down to it here.
//
// German letters are spelled out (ä → ae, ß → ss) as DIN 5007-2 and the DK's umlaut rule
// do; a capital umlaut next to another capital becomes all capitals (MÜLLER → MUELLER,
// Österreich → Oesterreich). Other accented letters lose their accents after Unicode
// compatibility decomposition (é → e, ﬁ → fi). "&" becomes "+": it is in the set, reads
// as "and" in every language and keeps names short ("Müller & Söhne" → "Mueller + Soehne");
// "und" would make an English or French name German. Anything else becomes a space.

const ALLOWED = "A-Za-z0-9/\\-?:().,'+ ";
const SEPA_TEXT = new RegExp(`^[${ALLOWED}]*$`);
const NOT_ALLOWED = new RegExp(`[^${ALLOWED}]`, 'g');

/** Letters spelled with two in German and the Nordic languages: the capital form is set case by case. */
const CAPITAL_DIGRAPHS: Record<string, string> = { Ä: 'AE', Ö: 'OE', Ü: 'UE', Æ: 'AE', Œ: 'OE', Þ: 'TH' };

const REPLACEMENTS: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  // Letters without a decomposition into base letter and mark.
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  '&': '+',
  '€': 'EUR',
  // Typographic apostrophes and dashes have a plain counterpart in the set.
  '‘': "'",
  '’': "'",
  '‚': "'",
  '‛': "'",
  '`': "'",
  '´': "'",
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '–': '-',
  '—': '-',
  '−': '-',
  '⁄': '/',
};

const SPECIAL = new RegExp(`[${Object.keys(CAPITAL_DIGRAPHS).join('')}${Object.keys(REPLACEMENTS).join('')}]`, 'gu');
const COMBINING_MARKS = /\p{M}/gu;
const UPPER_CASE_LETTER = /^\p{Lu}$/u;

function spellOut(letter: string, at: number, text: string): string {
  const capital = CAPITAL_DIGRAPHS[letter];
  if (capital === undefined) return REPLACEMENTS[letter] ?? letter;
  const besideCapital = UPPER_CASE_LETTER.test(text[at - 1] ?? '') || UPPER_CASE_LETTER.test(text[at + 1] ?? '');
  return besideCapital ? capital : capital[0] + capital.slice(1).toLowerCase();
}

/** True when every character of `text` is in the SEPA Latin character set. */
export function isSepaText(text: string): boolean {
  return SEPA_TEXT.test(text);
}

/**
 * True for a reference the EPC guidelines accept as an identifier (MsgId, PmtInfId,
 * EndToEndId): 1 to `maxLength` characters of the SEPA set, not starting or ending with
 * "/" and without "//". Identifiers are checked, not transliterated: the bank hands them
 * back unchanged in its statements, where they must match what Kontor stored.
 */
export function isSepaIdentifier(id: string, maxLength = 35): boolean {
  return id.length >= 1 && id.length <= maxLength && isSepaText(id) && !id.startsWith('/') && !id.endsWith('/') && !id.includes('//');
}

/**
 * `text` in the SEPA Latin character set (see above), whitespace collapsed, trimmed and
 * cut to `maxLength` characters (Max35Text 35, names 70, unstructured remittance 140).
 * May return "" (a name in another script): the caller decides whether that is allowed.
 */
export function sepaText(text: string, maxLength: number): string {
  if (!Number.isSafeInteger(maxLength) || maxLength < 1) throw new RangeError(`maxLength must be a positive integer, not ${maxLength}`);
  // NFC first, so that an "a" followed by a combining diaeresis is spelled out like "ä".
  const composed = text.normalize('NFC');
  return (
    composed
      .replace(SPECIAL, spellOut)
      .normalize('NFKD')
      .replace(COMBINING_MARKS, '')
      // Once more for what the decomposition brings out (½ → 1⁄2 → 1/2).
      .replace(SPECIAL, spellOut)
      .replace(NOT_ALLOWED, ' ')
      .replace(/ {2,}/g, ' ')
      .trim()
      .slice(0, maxLength)
      .trimEnd()
  );
}
