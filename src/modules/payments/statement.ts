import type { StatementFormat } from '../../db/schema-payments.ts';
import type { ReturnMark } from './return-mark.ts';

// What the parsers hand to the import: a bank statement file as plain data, amounts as
// exact decimal strings, dates as YYYY-MM-DD.

export type { StatementFormat };

export type ParsedTransaction = {
  /** Positive decimal string ("119.00"); the direction is the entry's. */
  amount: string;
  currency: string;
  /** camt: all RmtInf/Ustrd lines joined by a space; MT940: the SVWZ+ text (or the whole :86: text). */
  remittanceText: string | null;
  /** The payer's end-to-end reference; null when absent or NOTPROVIDED. */
  endToEndId: string | null;
  /** Structured creditor reference (ISO 11649 RF…, RmtInf/Strd/CdtrRefInf/Ref). */
  creditorReference: string | null;
  /** For a credit the payer (Dbtr), for a debit the payee (Cdtr). */
  counterpartyName: string | null;
  counterpartyIban: string | null;
  /** Set when the bank marks the booking as a return of an earlier one (return-mark.ts). */
  returned?: ReturnMark;
};

export type ParsedEntry = {
  /** Unique per bank account and booking: see entry-key.ts. */
  key: string;
  /** 1-based position in the file. */
  position: number;
  /** Index into ParsedStatement.statements. */
  statementIndex: number;
  /** The statement's account: the IBAN when known, else the bank's account id. */
  account: string;
  bookingDate: string;
  valueDate: string | null;
  direction: 'credit' | 'debit';
  /** camt RvslInd, MT940 RC/RD: the reversal of an earlier booking. */
  reversal: boolean;
  /** BOOK, PDNG or INFO (MT940 entries are always BOOK). */
  status: string;
  /** Positive decimal string. */
  amount: string;
  currency: string;
  /** camt AcctSvcrRef, MT940 bank reference after //. */
  bankReference: string | null;
  /** camt AddtlNtryInf, MT940 ?00 booking text. */
  bookingText: string | null;
  transactions: ParsedTransaction[];
};

export type StatementInfo = {
  /** camt Stmt/Id; MT940 :20: and :28C:. */
  id: string;
  /** IBAN of the account (MT940: derived from BLZ/account number for German accounts), else null. */
  iban: string | null;
  /** The account as the file names it. */
  account: string;
  currency: string | null;
  /**
   * Opening and closing balance as signed decimal strings ("12", "-4.5"), null where the
   * file has none: a part that repeats another (same id, account and entries) is only a
   * repeat when these are the same too (entry-key.ts).
   */
  opening: string | null;
  closing: string | null;
};

/**
 * statement: the day's (or period's) final bookings with balances (camt.053, MT940);
 * report: an intraday report (camt.052, MT942), balances optional;
 * notification: single bookings as they happen (camt.054), no balances.
 * The same booking in a report or notification and later in the statement gets the same key.
 */
export type StatementKind = 'statement' | 'report' | 'notification';

/** Something the parser changed or could not check to make the file bookable: where, and what (the same cause reads the same everywhere). */
export type StatementNote = { where: string; cause: string };

export type ParsedStatement = {
  format: StatementFormat;
  /** Absent: statement. */
  kind?: StatementKind;
  statements: StatementInfo[];
  entries: ParsedEntry[];
  /** What the parser changed to make the file bookable (a date that does not exist), for the import's warnings. */
  notes?: StatementNote[];
};

/** An entry as a format's parser reads it; parseStatement gives it its key (entry-key.ts). */
export type UnkeyedEntry = Omit<ParsedEntry, 'key'>;
export type UnkeyedStatement = Omit<ParsedStatement, 'entries'> & { entries: UnkeyedEntry[] };

/** The file is not a statement Kontor can read; the message says what is wrong. Nothing is imported. */
export class StatementError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementError';
  }
}
