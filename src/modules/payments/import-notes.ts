import type { StatementNote } from './statement.ts';

// The notes of a bank import as data: a stable code and its values, beside the English
// sentence `kontor bank import` prints (unchanged). Whoever shows them in another language
// (the app, in German) words them from the code and the values.

export type ImportNoteValues = {
  /** A credit that names no invoice number. */
  no_invoice_number: Record<string, never>;
  unknown_invoice_number: { number: string };
  invoice_already_paid: { number: string };
  invoice_cancelled: { number: string };
  invoice_is_storno: { number: string };
  invoice_not_open: { number: string; status: string };
  /** More than the open amount: the surplus is kept as the customer's credit. */
  overpaid: { amount: string; customer: string };
  pending_ignored: Record<string, never>;
  status_ignored: { status: string };
  /** A reversal (R-entry) of an earlier debit or credit. */
  reversal_ignored: { of: 'debit' | 'credit' };
  debit_ignored: Record<string, never>;
  /** Debits (issue 24): a return as the bank marks it (RtrInf, RvslInd, RC, GVC 109, …) and its reason code ('' when none). */
  returned: { marker: string; reason: string };
  /** A debit naming an invoice that received nothing (no payment, no customer credit) to take back. */
  nothing_to_reverse: { number: string };
  /** A return naming no invoice whose earlier credit is not known either. */
  return_without_invoice: Record<string, never>;
  /** More than the invoices named received: the rest waits for a person. */
  reversal_exceeds_paid: { amount: string };
  /** The bank's fees in a returned amount (OAMT+/COAM+, InstdAmt): not taken from the invoice. */
  return_fee: { amount: string };
  currency_ignored: { currency: string };
  zero_amount_ignored: Record<string, never>;
  /** The entry was imported before with another file. */
  already_imported: { statement_id: string };
  twice_in_file: Record<string, never>;
  /** Warnings of the whole file: statements of another account than the company's. */
  other_account: { statements: string[]; iban: string; own: string };
  account_not_comparable: { statements: string[]; account: string; own: string };
  /** The parser's notes (statement.ts StatementNote), one per cause; `where` names the places in the file. */
  date_corrected: { where: string[]; written: string; taken: string };
  balance_missing: { where: string[]; opening: boolean; closing: boolean };
  /** camt entries without a booking date, booked on the day the statement ("statement", "report", "notification") covers. */
  booked_on_covered_day: { where: string[]; count: number; day: string; label: string };
  batch_netted: { where: string[] };
  /** A parser note of no known cause: its English text. */
  other: { where: string[]; text: string };
};

export type ImportNoteCode = keyof ImportNoteValues;
export type ImportNote = { [C in ImportNoteCode]: { code: C; values: ImportNoteValues[C] } }[ImportNoteCode];

export function importNote<C extends ImportNoteCode>(code: C, values: ImportNoteValues[C]): ImportNote {
  return { code, values } as ImportNote;
}

const listed = (ids: string[]) => (ids.length > 5 ? `${ids.slice(0, 5).join(', ')}, …` : ids.join(', '));
const which = (ids: string[]) => (ids.length === 1 ? `statement ${ids[0]}` : `${ids.length} statements (${listed(ids)})`);
const places = (wheres: string[]) => (wheres.length > 3 ? `${wheres.slice(0, 3).join('; ')} and ${wheres.length - 3} more` : wheres.join('; '));

const ENGLISH: { [C in ImportNoteCode]: (values: ImportNoteValues[C]) => string } = {
  no_invoice_number: () => 'no invoice number found in the remittance text',
  unknown_invoice_number: (v) => `unknown invoice number ${v.number}`,
  invoice_already_paid: (v) => `invoice ${v.number} is already paid`,
  invoice_cancelled: (v) => `invoice ${v.number} is cancelled`,
  invoice_is_storno: (v) => `${v.number} is a Stornorechnung (cancellation invoice)`,
  invoice_not_open: (v) => `invoice ${v.number} is ${v.status}`,
  overpaid: (v) => `${v.amount} EUR more than open: kept as credit of ${v.customer}`,
  pending_ignored: () => 'pending entry ignored (only booked entries count)',
  status_ignored: (v) => `${v.status} entry ignored (only booked entries count)`,
  reversal_ignored: (v) => `reversal of an earlier ${v.of} ignored; a person must check it`,
  debit_ignored: () => 'debit ignored',
  returned: (v) => `return (${v.marker}${v.reason ? `, reason ${v.reason}` : ''})`,
  nothing_to_reverse: (v) => `invoice ${v.number} has received no payment to take back`,
  return_without_invoice: () => 'a return that names no invoice and no payment Kontor booked; a person must assign it',
  reversal_exceeds_paid: (v) => `${v.amount} EUR more than the invoices named received: left for a person to assign`,
  return_fee: (v) => `${v.amount} EUR of it are the bank's return fees, not taken from the invoice`,
  currency_ignored: (v) => `${v.currency} entry ignored (Kontor books EUR only)`,
  zero_amount_ignored: () => 'zero amount ignored',
  already_imported: (v) => `already imported with statement ${v.statement_id}`,
  twice_in_file: () => 'its statement appears twice in this file; imported once',
  other_account: (v) =>
    `${which(v.statements)} ${v.statements.length === 1 ? 'is' : 'are'} for account ${v.iban}, not the company's account ${v.own}; ${v.statements.length === 1 ? 'its' : 'their'} entries were imported all the same`,
  account_not_comparable: (v) =>
    `${which(v.statements)} ${v.statements.length === 1 ? 'names' : 'name'} account ${v.account}, which could not be compared with the company's account ${v.own}`,
  date_corrected: (v) => `${places(v.where)}: the bank's date ${v.written} does not exist; taken as ${v.taken}, the last day of that month`,
  balance_missing: (v) =>
    `${places(v.where)}: no ${[v.opening && 'opening balance (:60F:)', v.closing && 'closing balance (:62F:)'].filter(Boolean).join(' and ')}: the entries are imported without the balance check`,
  booked_on_covered_day: (v) =>
    `${places(v.where)}: ${v.count === 1 ? 'an entry without booking date is' : `${v.count} entries without booking date are`} booked on ${v.day}, the day the ${v.label} covers`,
  batch_netted: (v) => `${places(v.where)}: a batch whose transactions net credits and debits is kept as one booking without their details`,
  other: (v) => `${places(v.where)}: ${v.text}`,
};

/** The English sentence of a note, as `kontor bank import` prints it. */
export function noteText(note: ImportNote): string {
  return (ENGLISH[note.code] as (values: unknown) => string)(note.values);
}

/** Several notes of one transaction in one line, as the import has always printed them. */
export function notesText(notes: readonly ImportNote[]): string | null {
  return notes.length ? notes.map(noteText).join('; ') : null;
}

const DATE_CORRECTED = /^the bank's date (\d{2}\.\d{2}\.\d{4}) does not exist; taken as (\d{2}\.\d{2}\.\d{4}), the last day of that month$/;
const BALANCE_MISSING = /^no (.+): the entries are imported without the balance check$/;
const BOOKED_ON_DAY = /^(?:an entry without booking date is|(\d+) entries without booking date are) booked on (\d{4}-\d{2}-\d{2}), the day the (\w+) covers$/;
const BATCH_NETTED = 'a batch whose transactions net credits and debits is kept as one booking without their details';

/**
 * The parser's notes (camt.ts, mt940.ts write them as English sentences with the place in
 * the file), one per cause as `noteWarnings` groups them, each recognised by its sentence:
 * the parsers' tests hold those sentences fixed. A sentence not recognised stays as `other`.
 */
export function parserNotes(notes: readonly StatementNote[] = []): ImportNote[] {
  const byCause = new Map<string, string[]>();
  for (const { where, cause } of notes) byCause.set(cause, [...(byCause.get(cause) ?? []), where]);
  return [...byCause].map(([cause, where]) => {
    const date = DATE_CORRECTED.exec(cause);
    if (date) return importNote('date_corrected', { where, written: date[1] as string, taken: date[2] as string });
    const balance = BALANCE_MISSING.exec(cause);
    if (balance) return importNote('balance_missing', { where, opening: balance[1]!.includes(':60F:'), closing: balance[1]!.includes(':62F:') });
    const day = BOOKED_ON_DAY.exec(cause);
    if (day) return importNote('booked_on_covered_day', { where, count: day[1] ? Number(day[1]) : 1, day: day[2] as string, label: day[3] as string });
    if (cause === BATCH_NETTED) return importNote('batch_netted', { where });
    return importNote('other', { where, text: cause });
  });
}
