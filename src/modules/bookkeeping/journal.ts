import type { Side } from '../../db/schema-bookkeeping.ts';
import { centsNumber } from '../../shared/money.ts';
import { BookkeepingError } from './bookkeeping-error.ts';

// Pure helpers for journal lines: amounts in integer cents, always positive; the side says
// Soll (debit) or Haben (credit).

export type JournalLine = { account: string; side: Side; amountCents: number; taxKey: string | null };

const MONEY = /^(-?)(\d{1,13})\.(\d{2})$/;

/** "-1234.56" → -123456. Document amounts have exactly two decimals; anything else is refused. */
export function centsOf(amount: string): number {
  const match = MONEY.exec(amount);
  if (!match) throw new BookkeepingError('invalid_document', `amount ${amount} is not a decimal with two places`);
  const cents = centsNumber(BigInt(`${match[2]}${match[3]}`));
  return match[1] === '-' ? -cents : cents;
}

export function sideTotals(lines: readonly JournalLine[]): { soll: number; haben: number } {
  let soll = 0;
  let haben = 0;
  for (const line of lines) {
    if (line.side === 'S') soll += line.amountCents;
    else haben += line.amountCents;
  }
  return { soll, haben };
}

/** Every entry must balance (sum Soll = sum Haben) and carry positive whole-cent amounts. */
export function assertBalanced(lines: readonly JournalLine[]): void {
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amountCents) || line.amountCents <= 0)
      throw new BookkeepingError('unbalanced', `line on ${line.account} has amount ${line.amountCents}; amounts are positive cents`);
  }
  const { soll, haben } = sideTotals(lines);
  if (lines.length < 2 || soll !== haben) throw new BookkeepingError('unbalanced', `entry does not balance: Soll ${soll} cents, Haben ${haben} cents`);
}

/** The reversing lines of an entry: same accounts, amounts and tax keys, sides swapped (Storno). */
export function mirror(lines: readonly JournalLine[]): JournalLine[] {
  return lines.map((line) => ({ ...line, side: line.side === 'S' ? 'H' : 'S' }));
}

/** Refuses a numbered document dated on or before the company's period lock (period_locked). */
export function assertDatedAfterLock(locked: string | null, doc: { number: string; issueDate: string }): void {
  if (locked !== null && doc.issueDate <= locked)
    throw new BookkeepingError('period_locked', `the accounting period is locked up to ${locked}; ${doc.number} is dated ${doc.issueDate}`, locked);
}
