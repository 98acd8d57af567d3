import type { StatementFormat } from '../../db/schema-payments.ts';
import { normalizeIban } from '../../shared/iban.ts';
import { centsToAmount, displayAmount, toCents } from './amounts.ts';
import { type ImportNote, importNote, noteText } from './import-notes.ts';
import type { EntryOutcome, ImportPlan } from './plan-import.ts';
import type { ParsedEntry, ParsedStatement, StatementNote } from './statement.ts';

// The answer of importBankStatement (what `kontor bank import` prints): each entry of the
// file with what it came to, warnings and totals. Pure.

export type BankImportTotals = {
  entries: number;
  duplicates: number;
  matched: number;
  partially_matched: number;
  unmatched: number;
  ignored: number;
  invoices_paid: number;
  invoices_partially_paid: number;
  /** EUR decimal strings: credits considered, applied to invoices, kept as customer credit, left to assign. */
  received: string;
  applied: string;
  credited: string;
  unassigned: string;
  /**
   * Debits (issue 24), EUR decimal strings: the debits considered (naming an invoice or a
   * return; other debits are ignored), taken back from invoices' amount paid, paid back of
   * customer credit, left for a person to assign; and the invoices money was taken back from.
   */
  paid_out: string;
  reversed: string;
  credit_refunded: string;
  debits_unassigned: string;
  invoices_reversed: number;
};

export type BankImportResult = {
  statement_id: string;
  /** The same file was imported before: nothing was written now; the ids are the first import's. */
  already_imported: boolean;
  imported_at: string;
  file_name: string | null;
  format: StatementFormat;
  statements: { id: string; account: string; account_iban: string | null }[];
  warnings: string[];
  /** The warnings as codes with values (import-notes.ts), in the same order. */
  warning_notes: ImportNote[];
  entries: EntryOutcome[];
  totals: BankImportTotals;
};

export function alreadyImported(
  parsed: ParsedStatement,
  earlier: { id: string; imported_at: Date; file_name: string | null },
  fileName: string | null,
): BankImportResult {
  return {
    statement_id: earlier.id,
    already_imported: true,
    imported_at: earlier.imported_at.toISOString(),
    file_name: fileName ?? earlier.file_name,
    format: parsed.format,
    statements: statementsOf(parsed),
    warnings: [],
    warning_notes: [],
    entries: [],
    totals: totalsOf([], null),
  };
}

export function mergeOutcomes(entries: readonly ParsedEntry[], planned: readonly EntryOutcome[], duplicates: Map<ParsedEntry, ImportNote>): EntryOutcome[] {
  const byPosition = new Map(planned.map((outcome) => [outcome.position, outcome]));
  return entries.map((entry) => {
    const duplicate = duplicates.get(entry);
    if (duplicate === undefined) return byPosition.get(entry.position)!;
    return {
      position: entry.position,
      booking_date: entry.bookingDate,
      direction: entry.direction,
      amount: displayAmount(entry.amount),
      currency: entry.currency,
      status: 'duplicate',
      note: noteText(duplicate),
      notes: [duplicate],
      transactions: [],
    };
  });
}

export const count = (outcomes: readonly EntryOutcome[], status: EntryOutcome['status']) => outcomes.filter((o) => o.status === status).length;

export function totalsOf(outcomes: readonly EntryOutcome[], plan: ImportPlan | null): BankImportTotals {
  let received = 0;
  let unassigned = 0;
  let paidOut = 0;
  for (const outcome of outcomes) {
    for (const tx of outcome.transactions) {
      if (tx.status === 'ignored') continue;
      const cents = toCents(tx.amount) ?? 0;
      if (outcome.direction === 'debit') paidOut += cents;
      else {
        received += cents;
        if (tx.status === 'unmatched') unassigned += cents;
      }
    }
  }
  const applied = plan?.allocationRows.reduce((sum, row) => sum + Number(row.amount_cents), 0) ?? 0;
  const credited = plan?.creditRows.reduce((sum, row) => sum + Number(row.amount_cents), 0) ?? 0;
  const reversals = plan?.reversalRows ?? [];
  const debits = plan ? debitEntries(plan) : new Set<string>();
  const debitsUnassigned =
    plan?.transactionRows.reduce((sum, row) => (row.status === 'unmatched' && debits.has(row.entry_id) ? sum + Number(row.unassigned_cents) : sum), 0) ?? 0;
  // Touched by credits or debits; an invoice taken back and paid again to where it was is left out.
  const touched = plan ? [...plan.touched.values()].filter(({ invoice }) => invoice.paidCents !== invoice.loadedPaidCents) : [];
  return {
    entries: outcomes.length,
    duplicates: count(outcomes, 'duplicate'),
    matched: count(outcomes, 'matched'),
    partially_matched: count(outcomes, 'partially_matched'),
    unmatched: count(outcomes, 'unmatched'),
    ignored: count(outcomes, 'ignored'),
    invoices_paid: touched.filter((t) => t.invoice.paidCents >= t.invoice.grossCents).length,
    invoices_partially_paid: touched.filter((t) => t.invoice.paidCents < t.invoice.grossCents && t.invoice.paidCents > 0).length,
    received: centsToAmount(received),
    applied: centsToAmount(applied),
    credited: centsToAmount(credited),
    unassigned: centsToAmount(unassigned),
    paid_out: centsToAmount(paidOut),
    reversed: centsToAmount(reversals.reduce((sum, row) => sum + Number(row.invoice_cents), 0)),
    credit_refunded: centsToAmount(reversals.reduce((sum, row) => sum + Number(row.credit_cents), 0)),
    debits_unassigned: centsToAmount(debitsUnassigned),
    invoices_reversed: new Set(reversals.filter((row) => Number(row.invoice_cents) > 0).map((row) => row.invoice_id)).size,
  };
}

/** The ids of the plan's debit entries. */
function debitEntries(plan: ImportPlan): Set<string> {
  return new Set(plan.entryRows.filter((row) => row.direction === 'debit').map((row) => row.id as string));
}

export function statementsOf(parsed: ParsedStatement) {
  return parsed.statements.map((s) => ({ id: s.id, account: s.account, account_iban: s.iban }));
}

export function singleIban(parsed: ParsedStatement): string | null {
  const ibans = new Set(parsed.statements.map((s) => s.iban));
  return ibans.size === 1 ? [...ibans][0]! : null;
}

/**
 * A statement of another account than the company's is imported all the same (a company
 * may keep several accounts; Kontor stores one IBAN), with one warning per account to
 * check it, however many statements of that account the file holds.
 */
export function accountWarnings(parsed: ParsedStatement, companyIban: string | null): ImportNote[] {
  if (!companyIban) return [];
  const own = normalizeIban(companyIban);
  const byAccount = new Map<string, { iban: string | null; ids: string[] }>();
  for (const s of parsed.statements) {
    if (s.iban === own) continue;
    const key = s.iban ?? s.account;
    const group = byAccount.get(key) ?? { iban: s.iban, ids: [] };
    group.ids.push(s.id);
    byAccount.set(key, group);
  }
  return [...byAccount].map(([account, { iban, ids }]) =>
    iban ? importNote('other_account', { statements: ids, iban, own }) : importNote('account_not_comparable', { statements: ids, account, own }),
  );
}

/**
 * The parser's notes as warnings, one per cause: "MT940 statement 1 (…), MT940 statement 2
 * (…) and 28 more: no closing balance (:62F:): …" rather than thirty lines saying the same.
 */
export function noteWarnings(notes: readonly StatementNote[] = []): string[] {
  const byCause = new Map<string, string[]>();
  for (const { where, cause } of notes) byCause.set(cause, [...(byCause.get(cause) ?? []), where]);
  return [...byCause].map(([cause, wheres]) => {
    const listed = wheres.length > 3 ? `${wheres.slice(0, 3).join('; ')} and ${wheres.length - 3} more` : wheres.join('; ');
    return `${listed}: ${cause}`;
  });
}
