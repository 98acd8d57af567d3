import type { Database } from '../../db/connection.ts';
import type { Clock } from '../../shared/clock.ts';
import type { Actor } from '../audit/audit-log.ts';
import { type AssignedCredit, assignBankCredit } from './assign-credit.ts';
import { type AssignedDebit, assignBankDebit } from './assign-debit.ts';
import { typedInvoiceNumber } from './typed-invoice-number.ts';

// The one person-side step "assign this bank transaction to an invoice" of the app and of
// `kontor bank assign`: a credit pays the invoice (assign-credit.ts), a debit takes money
// back from it (assign-debit.ts). Refusals are AssignCreditError (AssignDebitError is one).
// The number may be typed as a payer writes it ("re 2026 00006"): read like the import
// reads a remittance text (typed-invoice-number.ts).

export type AssignedTransaction = ({ direction: 'credit' } & AssignedCredit) | ({ direction: 'debit' } & AssignedDebit);

export async function assignBankTransaction(
  deps: { db: Database; clock: Clock },
  companyId: string,
  transaction: { entryId: string; position: number },
  invoiceNumber: string,
  actor: Actor & { email: string },
): Promise<AssignedTransaction> {
  const number = await typedInvoiceNumber(deps.db, companyId, invoiceNumber);
  const entry = await deps.db
    .selectFrom('bank_entries')
    .select('direction')
    .where('company_id', '=', companyId)
    .where('id', '=', transaction.entryId)
    .executeTakeFirst();
  if (entry?.direction === 'debit') return { direction: 'debit', ...(await assignBankDebit(deps, companyId, transaction, number, actor)) };
  return { direction: 'credit', ...(await assignBankCredit(deps, companyId, transaction, number, actor)) };
}
