import { parseCamt } from './camt.ts';
import { isXmlFile } from './camt-xml.ts';
import { decodeText } from './decode-text.ts';
import { withEntryKeys } from './entry-key.ts';
import { parseMt940 } from './mt940.ts';
import { DOWNLOAD, notAStatement } from './not-a-statement.ts';
import { type ParsedStatement, StatementError, type UnkeyedStatement } from './statement.ts';

// Reads a bank statement file: camt.052/053/054 .001.02–.13 (XML, told apart by namespace) or
// MT940/MT942 (told apart by their tags). Pure: bytes in, plain data out, StatementError for
// anything that is not a statement Kontor can read in full.

/** :20: opens every MT940 statement and MT942 report, followed by :25:, :28C:, balances, :61:; the parser checks the rest. */
const MT940_TAGS = [/^:20:/m, /^:(25|28C?|60[FM]|61):/m];

function parseFormat(bytes: Buffer): UnkeyedStatement {
  if (bytes.length === 0) throw new StatementError('the file is empty');
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1')))
    throw new StatementError('the file is a ZIP archive; unpack it and import the camt.053 files inside one by one');
  if (isXmlFile(bytes)) return parseCamt(bytes);
  const content = decodeText(bytes);
  const foreign = notAStatement(bytes, content);
  if (foreign) throw new StatementError(foreign);
  if (MT940_TAGS.every((tag) => tag.test(content))) return parseMt940(content);
  throw new StatementError(`the file is no bank statement Kontor reads (camt.052, camt.053, camt.054, MT940, MT942); ${DOWNLOAD}`);
}

/** The file as plain data, each entry with the key that recognises it in any later file (entry-key.ts). */
export function parseStatement(bytes: Buffer): ParsedStatement {
  return withEntryKeys(parseFormat(bytes));
}
