import type { Database } from '../../db/connection.ts';
import { invoiceNumberFinder, normalizeInvoiceNumber } from './invoice-number-finder.ts';
import { findInvoicesByNormalizedNumber } from './payments.repository.ts';

// A number a person types to assign a bank transaction (the app's field, `kontor bank
// assign`), read as the import reads a remittance text: the company's number pattern made
// tolerant by invoice-number-finder.ts ("re 2026 00006", "RE2026-00006", "Re.-Nr.
// 2026-00006" all name RE-2026-00006), looked up by its normalised form. Numbers never
// change once drawn, so this reads outside the assignment's transaction.

/** The invoice number as stored that the typed text names, or the typed text trimmed when it names none (the assignment then refuses it). */
export async function typedInvoiceNumber(db: Database, companyId: string, typed: string): Promise<string> {
  const text = typed.trim();
  if (!text) return text;
  const company = await db.selectFrom('companies').select('invoice_number_pattern').where('id', '=', companyId).executeTakeFirst();
  if (!company) return text;
  // The first number of the pattern in the text; else the text as a whole (a number of an older pattern).
  const key = invoiceNumberFinder(company.invoice_number_pattern)([text])[0]?.key ?? normalizeInvoiceNumber(text);
  if (!key) return text;
  const found = await findInvoicesByNormalizedNumber(db, companyId, [key]);
  const best = found.find((row) => row.number === text) ?? found.find((row) => row.type === 'invoice') ?? found[0];
  return best?.number ?? text;
}
