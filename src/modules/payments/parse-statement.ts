import { parseCamt053 } from './camt053.ts';
import { decodeText } from './decode-text.ts';
import { withEntryKeys } from './entry-key.ts';
import { parseMt940 } from './mt940.ts';
import { type ParsedStatement, StatementError } from './statement.ts';

// Reads a bank statement file: camt.053.001.02 / .001.08 (XML, told apart by namespace) or
// MT940 (told apart by its tags). Pure: bytes in, plain data out, StatementError for
// anything that is not a statement Kontor can read in full.

/** :20: (reference) and :25: (account) open every MT940 statement; the parser checks the rest. */
const MT940_TAGS = [/^:20:/m, /^:25:/m];

function parseFormat(bytes: Buffer): ParsedStatement {
  if (bytes.length === 0) throw new StatementError('the file is empty');
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')))
    throw new StatementError('the file is a ZIP archive; unpack it and import the camt.053 files inside one by one');
  const content = decodeText(bytes);
  const start = content.trimStart();
  if (start.startsWith('<')) return parseCamt053(content);
  if (MT940_TAGS.every((tag) => tag.test(content))) return parseMt940(content);
  throw new StatementError('the file is not a camt.053 or MT940 statement');
}

/** The file as plain data, each entry with the key that recognises it in any later file (entry-key.ts). */
export function parseStatement(bytes: Buffer): ParsedStatement {
  return withEntryKeys(parseFormat(bytes));
}
