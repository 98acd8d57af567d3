import { drawNumberInTransaction } from '../../db/number-ranges.ts';
import type { Trx } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';
import { formatNumberPattern } from '../../shared/number-pattern.ts';
import type { CompanyRow } from './build-document.ts';
import { INVOICE_NUMBER_LIMIT, invoiceRangeKey } from './numbering.ts';

/** The next invoice (or storno) number and its counter value, drawn in the issuing transaction: gapless, unique. */
export async function drawInvoiceNumber(trx: Trx, company: CompanyRow, issueDate: string): Promise<{ number: string; seq: number }> {
  const seq = await drawNumberInTransaction(trx, company.id, { key: invoiceRangeKey(issueDate), first: 1, last: INVOICE_NUMBER_LIMIT });
  if (seq === null) throw new AppError('invoice_not_issuable', { messages: ['Der Nummernkreis für Rechnungen dieses Jahres ist erschöpft.'] });
  return { number: formatNumberPattern(company.invoice_number_pattern, issueDate, seq), seq };
}
