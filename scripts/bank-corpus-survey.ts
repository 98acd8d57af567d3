// Read-only survey of the real bank files: runs parseStatement over every file of
// test/payments/fixtures/real/manifest.json (or DIR/manifest.json) and prints, per file, what the
// manifest expects against what the parser gives (format, entries, credit and debit sums in exact
// decimals), or the error. An error that is not a StatementError is a crash and is flagged loudly.
//
//   node scripts/bank-corpus-survey.ts [dir]
//
// Writes nothing; a file that does not match is expected while the parsers are being reworked.
// A refusal counts as a match; it is marked "(reason?)" when the manifest's why expects a balance
// message and the parser refused for something else, and "(wrapped crash?)" when a StatementError
// carries a JavaScript error text (a crash inside the reader turned into a refusal).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isZipArchive, unpackStatementArchive } from '../src/modules/payments/archive.ts';
import { type ParsedStatement, parseStatement, StatementError } from '../src/modules/payments/index.ts';
import { D, type DecimalValue } from '../src/shared/decimal.ts';
import { type ManifestEntry, REAL_FILES, readManifest } from '../test/payments/real-manifest.ts';

type Outcome = { file: string; match: boolean; crash: boolean; doubt: boolean; line: string };

/** V8's wording of a TypeError/RangeError: a crash inside a reader, even when wrapped in a StatementError. */
const JS_ERROR_TEXT = /Cannot read propert|is not a function|is not iterable|is not defined|Cannot destructure|undefined is not|Maximum call stack/;
/** The manifest's why asks for a refusal because the balances do not add up. */
const BALANCE_WHY = /balances do not add up|balance message|balance-mismatch/;

const dir = resolve(process.argv[2] ?? REAL_FILES);
const manifest = readManifest(dir);

function money(value: DecimalValue): string {
  return value.toFixed(2);
}

function sums(parsed: ParsedStatement): { credits: string; debits: string } {
  let credits = new D(0);
  let debits = new D(0);
  for (const entry of parsed.entries) {
    if (entry.direction === 'credit') credits = credits.plus(entry.amount);
    else debits = debits.plus(entry.amount);
  }
  return { credits: money(credits), debits: money(debits) };
}

function formatMatches(expected: ManifestEntry['format'], got: string): boolean {
  if (expected === 'zip') return true; // an archive reports the format of the files inside
  return got === expected || got.startsWith(`${expected}.`);
}

/** One line per file: a message that quotes several file lines is joined with " | ". */
function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, ' | ');
}

function errorText(error: unknown): { crash: boolean; text: string } {
  if (error instanceof StatementError) {
    const wrapped = JS_ERROR_TEXT.test(error.message) ? ' (wrapped crash?)' : '';
    return { crash: false, text: `StatementError${wrapped}: ${oneLine(error.message)}` };
  }
  if (error instanceof Error) {
    const where = error.stack?.split('\n')[1]?.trim() ?? '';
    return { crash: true, text: `!!! RAW ${error.name} (not a StatementError): ${oneLine(error.message)} ${where}` };
  }
  return { crash: true, text: `!!! RAW throw of a non-Error value: ${String(error)}` };
}

function together(files: ParsedStatement[]): ParsedStatement {
  return {
    format: files[0]!.format,
    statements: files.flatMap((f) => f.statements),
    entries: files.flatMap((f) => f.entries),
    notes: files.flatMap((f) => f.notes ?? []),
  };
}

async function survey(entry: ManifestEntry): Promise<Outcome> {
  const head = `${entry.file} [${entry.format}, expect ${entry.expect}]`;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, entry.file));
  } catch (error) {
    return { file: entry.file, match: false, crash: false, doubt: false, line: `DIFF  ${head}: cannot read the file (${(error as Error).message})` };
  }
  let parsed: ParsedStatement;
  try {
    // A ZIP archive: its files read one by one, as the import does, and taken together.
    parsed = isZipArchive(bytes) ? together(unpackStatementArchive(bytes).map((file) => parseStatement(file.bytes))) : parseStatement(bytes);
  } catch (error) {
    const { crash, text } = errorText(error);
    const match = entry.expect === 'refuse' && !crash;
    const doubt = match && (text.includes('(wrapped crash?)') || (BALANCE_WHY.test(entry.why) && !/balance/i.test(text)));
    const reason = doubt && !text.includes('(wrapped crash?)') ? ' (reason?: the manifest expects a balance message)' : '';
    return { file: entry.file, match, crash, doubt, line: `${match ? 'OK  ' : 'DIFF'}  ${head}: ${text}${reason}` };
  }
  const got = sums(parsed);
  const checks = [
    { name: 'format', expected: entry.format, got: parsed.format, ok: formatMatches(entry.format, parsed.format) },
    { name: 'entries', expected: String(entry.entries), got: String(parsed.entries.length), ok: entry.entries === parsed.entries.length },
    { name: 'credits', expected: entry.credits, got: got.credits, ok: new D(entry.credits).equals(got.credits) },
    { name: 'debits', expected: entry.debits, got: got.debits, ok: new D(entry.debits).equals(got.debits) },
  ];
  const details = checks.map((c) => `${c.name} ${c.expected}${c.ok ? '' : ` -> ${c.got}`}${c.ok ? ' ok' : ' DIFF'}`).join(', ');
  const statements = `statements ${entry.statements}/${parsed.statements.length}`;
  const notes = parsed.notes?.length ? `, notes: ${parsed.notes.map((n) => `${n.where}: ${n.cause}`).join(' | ')}` : '';
  if (entry.expect === 'refuse') {
    return {
      file: entry.file,
      match: false,
      crash: false,
      doubt: false,
      line: `DIFF  ${head}: imported, but the file should be refused (${details}, ${statements})`,
    };
  }
  const match = checks.every((c) => c.ok);
  return { file: entry.file, match, crash: false, doubt: false, line: `${match ? 'OK  ' : 'DIFF'}  ${head}: ${details}, ${statements}${notes}` };
}

const outcomes: Outcome[] = [];
for (const entry of manifest) {
  const outcome = await survey(entry);
  outcomes.push(outcome);
  console.log(outcome.line);
}

const matching = outcomes.filter((o) => o.match).length;
const crashes = outcomes.filter((o) => o.crash);
const doubts = outcomes.filter((o) => o.doubt);
const wrapped = outcomes.filter((o) => o.line.includes('(wrapped crash?)'));
console.log('');
console.log(`${outcomes.length} files: ${matching} match the manifest, ${outcomes.length - matching} differ.`);
if (doubts.length > 0) {
  console.log(`${doubts.length} of the matching refusals are refused for another reason than the manifest names: ${doubts.map((d) => d.file).join(', ')}`);
}
if (wrapped.length > 0) {
  console.log(`${wrapped.length} StatementError(s) carry a JavaScript error text (a crash inside a reader): ${wrapped.map((w) => w.file).join(', ')}`);
}
if (crashes.length > 0) {
  console.log(`!!! ${crashes.length} raw JavaScript error(s), not StatementError: ${crashes.map((c) => c.file).join(', ')}`);
}
