import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BankImportResult, EntryOutcome } from '../modules/payments/index.ts';
import { type ModuleCommand, parseCommandArgs, printResult, requiredFlag } from './command-kit.ts';
import { describeFailure } from './failure.ts';

// Loaded when a command runs, not when `kontor` starts (commands.ts).
const payments = () => import('../modules/payments/index.ts');

// kontor bank import FILE --company ID [--json]: imports a statement file (or a ZIP archive
// of them, file by file) and prints what each entry came to. A refused file writes nothing
// and exits 1.

/**
 * A failure the import does not expect (a database that went away, a bug): one sentence
 * with the file's name, the database's words without the values they quote, never the
 * file's content; nothing was imported unless the sentence says it is unknown.
 */
function unexpected(error: unknown): string {
  const sentence = describeFailure(error);
  return sentence.startsWith('unexpected error') ? `the import stopped on an ${sentence}; nothing was imported` : sentence;
}

const sign = (entry: EntryOutcome) => (entry.direction === 'credit' ? '+' : '-');

function entryLines(entry: EntryOutcome): string[] {
  const head = `  #${entry.position}  ${entry.booking_date}`;
  if (entry.transactions.length === 0) return [`${head}  ${sign(entry)}${entry.amount} ${entry.currency}  ${entry.note ?? ''}`.trimEnd()];
  return entry.transactions.map((tx) => {
    const who = tx.payer_name ?? '(no name)';
    const what =
      tx.reversals.length > 0
        ? [...tx.reversals.map(reversalText), ...(tx.note ? [tx.note] : [])].join('; ')
        : tx.payments.length > 0
          ? [
              ...tx.payments.map((p) =>
                p.effect === 'paid' ? `${p.invoice_number} paid (${p.amount})` : `${p.invoice_number} partially paid (${p.amount}, ${p.open_after} open)`,
              ),
              ...(tx.credit ? [`${tx.credit.amount} EUR credit for ${tx.credit.customer_name}`] : []),
            ].join('; ')
          : `${tx.note ?? ''}${tx.status === 'unmatched' && tx.remittance_text ? ` — "${tx.remittance_text}"` : ''}`;
    return `${head}  ${sign(entry)}${tx.amount} ${entry.currency}  ${who}  ${what}`;
  });
}

/** A debit taken back from an invoice (issue 24): of its payment and/or of the customer credit its over-payment left. */
function reversalText(r: EntryOutcome['transactions'][number]['reversals'][number]): string {
  const parts = [
    r.amount !== '0.00' ? `${r.amount} taken back (now ${r.status_after.replace('_', ' ')})` : null,
    r.credit !== '0.00' ? `${r.credit} customer credit paid back` : null,
  ];
  return `${r.invoice_number} ${parts.filter(Boolean).join(', ')}`;
}

function describe(result: BankImportResult, file: string): string {
  if (result.already_imported) return `${file} was imported already at ${result.imported_at} (statement ${result.statement_id}); nothing was booked again.`;
  const t = result.totals;
  const accounts = result.statements.map((s) => `${s.id} (${s.account_iban ?? s.account})`).join(', ');
  const out = [`Imported ${file} (${result.format}; ${accounts}) as ${result.statement_id}: ${t.entries} entr${t.entries === 1 ? 'y' : 'ies'}`];
  for (const warning of result.warnings) out.push(`warning: ${warning}`);
  const section = (title: string, statuses: EntryOutcome['status'][]) => {
    const entries = result.entries.filter((e) => statuses.includes(e.status));
    if (entries.length) out.push('', title, ...entries.flatMap(entryLines));
  };
  section('Matched', ['matched', 'partially_matched']);
  section('Unmatched (kept for a person to assign)', ['unmatched']);
  section('Ignored', ['ignored']);
  section('Already imported', ['duplicate']);
  out.push(
    '',
    `Totals: ${t.matched} matched, ${t.partially_matched} partly matched, ${t.unmatched} unmatched, ${t.ignored} ignored, ${t.duplicates} already imported`,
    `        received ${t.received} EUR: applied ${t.applied} EUR to invoices (${t.invoices_paid} paid, ${t.invoices_partially_paid} partially paid), customer credit ${t.credited} EUR, unassigned ${t.unassigned} EUR`,
  );
  if (t.paid_out !== '0.00')
    out.push(
      `        paid out ${t.paid_out} EUR: taken back ${t.reversed} EUR from ${t.invoices_reversed} invoice${t.invoices_reversed === 1 ? '' : 's'}, customer credit paid back ${t.credit_refunded} EUR, unassigned ${t.debits_unassigned} EUR`,
    );
  return out.join('\n');
}

export const BANK_COMMANDS: ModuleCommand[] = [
  {
    name: 'bank import',
    usage: [
      'kontor bank import FILE --company ID [--json]   import a bank statement (camt.052/053/054, MT940/MT942, or a ZIP of them), match credits to invoices',
    ],
    async run(args, io, ctx) {
      const { values, positionals } = parseCommandArgs(args, { company: { type: 'string' } }, 1);
      const companyId = requiredFlag(values, 'company');
      const file = path.resolve(ctx.cwd, positionals[0]!);
      const name = path.basename(file);
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (error) {
        io.err(`kontor: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        return 1;
      }
      try {
        const outcome = await (await payments()).importBankFile(ctx.db, ctx.clock, companyId, bytes, { fileName: name });
        if (outcome.archive === null) {
          const result = outcome.imports[0]!;
          printResult(io, Boolean(values.json), result, describe(result, name));
          return 0;
        }
        // An archive: each file's outcome in turn; a refused file is told on stderr and fails the command.
        const text = [
          `${name}: ${outcome.imports.length + outcome.refused.length} files, ${outcome.imports.length} imported, ${outcome.refused.length} refused`,
          ...outcome.imports.map((result) => `\n${describe(result, result.file_name ?? name)}`),
        ].join('\n');
        printResult(io, Boolean(values.json), outcome, text);
        for (const refused of outcome.refused) io.err(`kontor: ${refused.file_name}: ${refused.message}. Nothing was imported from this file.`);
        return outcome.refused.length ? 1 : 0;
      } catch (error) {
        if (error instanceof (await payments()).StatementError) {
          io.err(`kontor: ${name}: ${error.message}. Nothing was imported.`);
          return 1;
        }
        if (error instanceof (await payments()).BankImportError) {
          io.err(`kontor: ${name}: ${error.message}`);
          return 1;
        }
        io.err(`kontor: ${name}: ${unexpected(error)}`);
        return 1;
      }
    },
  },
];
