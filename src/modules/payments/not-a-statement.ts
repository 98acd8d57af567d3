// Files users take for a statement: a PDF of the statement, the bank's CSV export, a SWIFT
// message that is not a statement (a transfer, a debit or credit confirmation), a DTAUS
// payment file. The refusal names what the file is and what to download instead.

export const DOWNLOAD = "download the account statement as camt.053 or MT940 (in online banking often 'Umsätze exportieren' → 'CAMT' or 'MT940/STA')";

export const refusal = (what: string) => `the file is ${what}, not a statement; ${DOWNLOAD}`;

/** SWIFT message types (block 2 "{2:I103…" / "{2:O103…") other than MT940 and MT942. */
const SWIFT_TYPES: Record<string, string> = {
  '101': 'a SWIFT MT101 payment order',
  '103': 'a SWIFT MT103 credit transfer',
  '202': 'a SWIFT MT202 bank transfer',
  '900': 'a SWIFT MT900 debit confirmation',
  '910': 'a SWIFT MT910 credit confirmation',
  '920': 'a SWIFT MT920 request for a statement',
  '941': 'a SWIFT MT941 balance report',
  '950': 'a SWIFT MT950 statement between banks',
};

/** A SWIFT message without block headers, told apart by its fields. */
function paymentMessage(content: string): string {
  if (/^:(28D|50H):/m.test(content)) return SWIFT_TYPES['101']!;
  if (/^:(23B|33B|71A):/m.test(content)) return SWIFT_TYPES['103']!;
  if (/^:32A:/m.test(content) && /^:21:/m.test(content) && /^:25:/m.test(content)) return 'a SWIFT MT900 or MT910 debit or credit confirmation';
  return 'a SWIFT payment message';
}

/** Two first lines that split into the same three or more columns by ; tab or comma. */
function isCsv(content: string): boolean {
  const [first, second] = content.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (first === undefined || second === undefined) return false;
  return [';', '\t', ','].some((separator) => first.split(separator).length >= 3 && first.split(separator).length === second.split(separator).length);
}

/** What the file is, as a refusal, when it is none of the formats Kontor reads; null otherwise. */
export function notAStatement(bytes: Buffer, content: string): string | null {
  const head = bytes.subarray(0, 8);
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return refusal('a PDF document');
  if (head.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return refusal('an Excel workbook (or another Office document)');
  const swiftType = /\{2:[IO](\d{3})/.exec(content)?.[1];
  if (swiftType && swiftType !== '940' && swiftType !== '942') return refusal(SWIFT_TYPES[swiftType] ?? `a SWIFT MT${swiftType} message`);
  // Statement lines: MT940/MT942, whose parser checks the rest.
  if (/^:61:/m.test(content)) return null;
  if (/^:(32[AB]|50[A-Z]?|59[A-Z]?|23B|28D|71A):/m.test(content)) return refusal(paymentMessage(content));
  if (/^\s*0128A/.test(content)) return refusal('a DTAUS file (the old German payment file)');
  if (/^\s*0256Q/.test(content)) return refusal('a DTAZV file (the old German foreign payment file)');
  if (isCsv(content)) return refusal('a CSV export');
  return null;
}
