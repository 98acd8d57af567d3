import type { Chart } from '../../db/schema-bookkeeping.ts';
import type { Trx } from '../../db/transaction.ts';
import { newId } from '../../shared/ids.ts';
import { creditorAccount } from './accounts.ts';
import { BookkeepingError } from './bookkeeping-error.ts';
import { insertJournalEntry, lockedUntil } from './journal.repository.ts';
import { assertBalanced, type JournalLine } from './journal.ts';

// A payout of a payout run (issue 24): the transfer the company ordered in the pain.001
// settles the partner's open item — S creditor against Geldtransit (money in transit,
// SKR03 1360 / SKR04 1460), dated the execution date. The bank statement's debit is booked
// against Geldtransit later (by the tax adviser from the bank data, or an import), so the
// bank account is never booked twice. Belegfeld 1: the statement's number for a Gutschrift
// or settlement, the partner's own invoice number for a request to invoice; the statement's
// number (the transfer's EndToEndId) stays the entry's own number.

/** Geldtransit, per chart (german-rules §6.1). */
export const MONEY_IN_TRANSIT: Record<Chart, string> = { SKR03: '1360', SKR04: '1460' };

export type PayoutToBook = {
  statementId: string;
  statementNumber: string;
  /** The partner's invoice number when it is a request to invoice (the open item it closes), else null. */
  settlesNumber: string | null;
  partner: { name: string; creditorNumber: string };
  amountCents: number;
  executionDate: string;
};

export function payoutJournalLines(chart: Chart, payout: PayoutToBook): JournalLine[] {
  const lines: JournalLine[] = [
    { account: creditorAccount(payout.partner.creditorNumber), side: 'S', amountCents: payout.amountCents, taxKey: null },
    { account: MONEY_IN_TRANSIT[chart], side: 'H', amountCents: payout.amountCents, taxKey: null },
  ];
  assertBalanced(lines);
  return lines;
}

/** Books a payout in the caller's transaction (document `<statement id>.payout`). False when booked already. */
export async function bookPayout(trx: Trx, companyId: string, chart: Chart, payout: PayoutToBook): Promise<boolean> {
  const lines = payoutJournalLines(chart, payout);
  const locked = await lockedUntil(trx, companyId);
  if (locked !== null && payout.executionDate <= locked)
    throw new BookkeepingError(
      'period_locked',
      `the accounting period is locked up to ${locked}; the payout of ${payout.statementNumber} is dated ${payout.executionDate}`,
      locked,
    );
  const invoice = payout.settlesNumber ? ` (Rechnung ${payout.settlesNumber})` : '';
  return insertJournalEntry(
    trx,
    {
      company_id: companyId,
      id: newId('jen'),
      entry_date: payout.executionDate,
      document_type: 'commission_statement',
      document_id: `${payout.statementId}.payout`,
      document_number: payout.statementNumber,
      description: `Auszahlung ${payout.statementNumber}${invoice} ${payout.partner.name}`.slice(0, 255),
      chart,
      service_date: null,
      counterparty_vat_id: null,
      settles_number: payout.settlesNumber,
    },
    lines,
  );
}
