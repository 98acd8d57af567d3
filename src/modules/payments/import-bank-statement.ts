import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { recordEvents } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { bookPayments, lockedUntil } from '../bookkeeping/index.ts';
import { accrueInvoicePayments } from '../commissions/index.ts';
import { nextChangeSeqs } from '../invoicing/invoice-changes.ts';
import { invoiceView } from '../invoicing/invoice-view.ts';
import { findInvoiceViewRows } from '../invoicing/invoices.repository.ts';
import { toCents } from './amounts.ts';
import { startOfDay } from './booking-instant.ts';
import { noteText, parserNotes } from './import-notes.ts';
import {
  accountWarnings,
  alreadyImported,
  type BankImportResult,
  count,
  mergeOutcomes,
  noteWarnings,
  singleIban,
  statementsOf,
  totalsOf,
} from './import-result.ts';
import { invoiceNumberFinder, type NumberHit, normalizeInvoiceNumber } from './invoice-number-finder.ts';
import { rekeyEntries, splitKnownEntries, statementsNotAddingUp } from './known-entries.ts';
import type { ClosedInvoice, OpenInvoice } from './match-payments.ts';
import { parseStatement } from './parse-statement.ts';
import {
  applyInvoicePayments,
  findInvoicesByNormalizedNumber,
  findStatementByHash,
  type InvoicePaymentUpdate,
  insertAllocations,
  insertCredits,
  insertEntries,
  insertStatement,
  insertTransactions,
  loadOpenInvoices,
} from './payments.repository.ts';
import { BankImportError } from './payments-error.ts';
import { type ImportPlan, ignoreReason, planImport } from './plan-import.ts';
import { type ParsedEntry, type ParsedStatement, type ParsedTransaction, StatementError } from './statement.ts';

export type { BankImportResult, BankImportTotals } from './import-result.ts';

const EVENT_SLICE = 1000;

/**
 * `kontor bank import`: reads a camt.053 or MT940 file, stores its new entries, matches
 * each booked EUR credit to the open invoices its remittance names, books the payments
 * (bank against debtor), updates the invoices (amount paid, status, paid_at, change feed,
 * event invoice.paid) and keeps over-payments as customer credit — all in one transaction.
 * A file refused by the parser, or a payment into a locked period, writes nothing.
 */
export async function importBankStatement(
  db: Database,
  clock: Clock,
  companyId: string,
  bytes: Buffer,
  options: { fileName?: string | null } = {},
): Promise<BankImportResult> {
  const parsed = parseStatement(bytes);
  assertEurCents(parsed);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const fileName = options.fileName ? options.fileName.slice(-255) : null;

  return inTransaction(db, async (trx) => {
    // One import per company at a time: the second waits, then sees what the first stored.
    await sql`select pg_advisory_xact_lock(hashtext(${`bank-import:${companyId}`}))`.execute(trx);
    const company = await trx
      .selectFrom('companies')
      .select(['id', 'iban', 'timezone', 'chart', 'invoice_number_pattern'])
      .where('id', '=', companyId)
      .executeTakeFirst();
    if (!company) throw new BankImportError('company_not_found', `no company ${companyId}`);
    const earlier = await findStatementByHash(trx, companyId, sha256);
    if (earlier) return alreadyImported(parsed, earlier, fileName);

    const now = clock.now();
    const statementId = newId('bst');
    const { fresh, duplicates, rekeys } = await splitKnownEntries(trx, companyId, parsed);
    const { open, closed, hitsOf } = await invoicesNamed(trx, company, fresh);
    const plan = planImport({ companyId, statementId, entries: fresh, hitsOf, open, closed, now });
    await assertPeriodOpen(trx, companyId, plan);

    const outcomes = mergeOutcomes(parsed.entries, plan.outcomes, duplicates);
    await insertStatement(trx, {
      company_id: companyId,
      id: statementId,
      file_sha256: sha256,
      file_name: fileName,
      format: parsed.format,
      account_iban: singleIban(parsed),
      statement_ref: parsed.statements
        .map((s) => s.id)
        .join(', ')
        .slice(0, 1000),
      entry_count: parsed.entries.length,
      duplicate_count: duplicates.size,
      matched_count: count(plan.outcomes, 'matched'),
      partially_matched_count: count(plan.outcomes, 'partially_matched'),
      unmatched_count: count(plan.outcomes, 'unmatched'),
      ignored_count: count(plan.outcomes, 'ignored'),
      imported_at: now,
    });
    const totals = totalsOf(outcomes, plan);
    // Each batch of rows is let go once written: a 10,000-entry file keeps its memory flat.
    await insertEntries(trx, plan.entryRows.splice(0));
    await insertTransactions(trx, plan.transactionRows.splice(0));
    await insertAllocations(trx, plan.allocationRows.splice(0));
    await insertCredits(trx, plan.creditRows.splice(0));
    await bookPayments(trx, companyId, company.chart, plan.payments.splice(0));
    await updateInvoices(trx, companyId, company.timezone, plan, now);
    // The revenue share of the payments, in this transaction (design §6).
    await accrueInvoicePayments(
      trx,
      companyId,
      plan.shares.splice(0).map((share) => ({ ...share, paidAt: startOfDay(share.paidOn, company.timezone) })),
      now,
    );
    await rekeyEntries(trx, companyId, rekeys);
    const disagreement = await statementsNotAddingUp(trx, companyId, parsed, new Set(fresh));
    if (disagreement)
      throw new BankImportError(
        'entries_disagree',
        `${disagreement}: bookings imported before from another file differ from this file. Nothing was imported; compare the two files with the bank.`,
      );
    // Crash tests stop here, everything written and nothing committed (KONTOR_PAUSE_AT).
    await pauseAt('bank-import.before-commit');

    const accounts = accountWarnings(parsed, company.iban);
    return {
      statement_id: statementId,
      already_imported: false,
      imported_at: now.toISOString(),
      file_name: fileName,
      format: parsed.format,
      statements: statementsOf(parsed),
      warnings: [...accounts.map(noteText), ...noteWarnings(parsed.notes)],
      warning_notes: [...accounts, ...parserNotes(parsed.notes)],
      entries: outcomes,
      totals,
    };
  });
}

/** EUR amounts must be whole cents; anything finer is a broken file, not a payment. */
function assertEurCents(parsed: ParsedStatement): void {
  for (const entry of parsed.entries) {
    for (const amount of [entry.amount, ...entry.transactions.map((t) => t.amount)]) {
      if (entry.currency === 'EUR' && toCents(amount) === null)
        throw new StatementError(`entry ${entry.position}: amount ${amount} EUR has more than two decimals`);
    }
  }
}

/** The open invoices (one query), the invoice numbers each transfer names, and why unknown ones are not open. */
async function invoicesNamed(trx: Trx, company: { id: string; invoice_number_pattern: string }, entries: readonly ParsedEntry[]) {
  const open = new Map<string, OpenInvoice>();
  for (const row of await loadOpenInvoices(trx, company.id)) {
    open.set(normalizeInvoiceNumber(row.number!), {
      id: row.id,
      number: row.number!,
      customerId: row.customer_id,
      customerNumber: row.kundennummer,
      customerName: row.customer_name,
      grossCents: row.total_gross_cents,
      paidCents: row.amount_paid_cents,
      loadedPaidCents: row.amount_paid_cents,
      status: row.status,
    });
  }
  const find = invoiceNumberFinder(company.invoice_number_pattern);
  const hits = new Map<ParsedTransaction, NumberHit[]>();
  for (const entry of entries) {
    if (ignoreReason(entry)) continue;
    for (const tx of entry.transactions) hits.set(tx, find([tx.creditorReference, tx.endToEndId, tx.remittanceText]));
  }
  const unknown = new Set<string>();
  for (const list of hits.values()) for (const hit of list) if (!open.has(hit.key)) unknown.add(hit.key);
  const closed = new Map<string, ClosedInvoice>();
  if (unknown.size) for (const row of await findInvoicesByNormalizedNumber(trx, company.id, [...unknown])) closed.set(row.key, row);
  return { open, closed, hitsOf: (tx: ParsedTransaction) => hits.get(tx) ?? [] };
}

async function assertPeriodOpen(trx: Trx, companyId: string, plan: ImportPlan): Promise<void> {
  const locked = await lockedUntil(trx, companyId);
  if (locked === null) return;
  const early = plan.payments.find((payment) => payment.date <= locked);
  if (early)
    throw new BankImportError(
      'period_locked',
      `the accounting period is locked up to ${locked}; the payment for ${early.invoiceNumber} booked on ${early.date} would fall into it. Nothing was imported.`,
    );
}

async function updateInvoices(trx: Trx, companyId: string, timeZone: string, plan: ImportPlan, now: Date): Promise<void> {
  const touched = [...plan.touched.values()];
  if (touched.length === 0) return;
  const firstSeq = await nextChangeSeqs(trx, companyId, touched.length);
  const updates: InvoicePaymentUpdate[] = touched.map(({ invoice, paidOn }, i) => ({
    id: invoice.id,
    expectedPaidCents: invoice.loadedPaidCents,
    expectedStatus: invoice.status,
    paidCents: invoice.paidCents,
    status: invoice.paidCents >= invoice.grossCents ? 'paid' : 'partially_paid',
    paidAt: paidOn ? startOfDay(paidOn, timeZone) : null,
    changeSeq: firstSeq + i,
  }));
  // Another transaction changed one of these invoices since they were read: start over.
  if ((await applyInvoicePayments(trx, companyId, updates, now)) !== updates.length) throw new RetryTransaction();
  // invoice.paid once per invoice that became paid, data = the invoice as the API shows it;
  // read and written a slice at a time, in change-feed order.
  const paidIds = updates.filter((u) => u.status === 'paid').map((u) => u.id);
  for (let start = 0; start < paidIds.length; start += EVENT_SLICE) {
    const views = await findInvoiceViewRows(trx, companyId, paidIds.slice(start, start + EVENT_SLICE));
    views.sort((a, b) => a.change_seq - b.change_seq);
    await recordEvents(
      trx,
      companyId,
      views.map((row) => ({ type: 'invoice.paid', subjectId: row.id, data: invoiceView(row) })),
      now,
    );
  }
}
