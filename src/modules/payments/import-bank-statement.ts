import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { recordEvents } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { RetryTransaction } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { pauseAt } from '../../shared/pause-at.ts';
import { bookPaymentReversals, bookPayments, lockedUntil } from '../bookkeeping/index.ts';
import { accrueInvoicePayments, reverseInvoicePayments } from '../commissions/index.ts';
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
import { statusFor } from './match-debits.ts';
import type { ClosedInvoice, OpenInvoice } from './match-payments.ts';
import { parseStatement } from './parse-statement.ts';
import {
  applyInvoicePayments,
  findInvoicesByNormalizedNumber,
  findPaidBefore,
  findPaidByEndToEnd,
  findStatementByHash,
  type InvoicePaymentUpdate,
  insertAllocations,
  insertCredits,
  insertEntries,
  insertReversals,
  insertStatement,
  insertTransactions,
  loadNamedInvoices,
  loadOpenInvoices,
} from './payments.repository.ts';
import { BankImportError } from './payments-error.ts';
import { type ImportPlan, ignoreReason, planImport, type ReversalShare } from './plan-import.ts';
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
    const { open, closed, hitsOf, paidByEndToEnd } = await invoicesNamed(trx, company, fresh);
    const plan = planImport({ companyId, statementId, entries: fresh, hitsOf, open, closed, paidByEndToEnd, now });
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
    await insertReversals(trx, plan.reversalRows.splice(0));
    await bookPayments(trx, companyId, company.chart, plan.payments.splice(0));
    await bookPaymentReversals(trx, companyId, company.chart, plan.reversalBookings.splice(0));
    await updateInvoices(trx, companyId, company.timezone, plan, now);
    // The revenue share of the payments and of the money taken back, in this transaction (design §6).
    await accrueInvoicePayments(
      trx,
      companyId,
      plan.shares.splice(0).map((share) => ({ ...share, paidAt: startOfDay(share.paidOn, company.timezone) })),
      now,
    );
    await reverseShares(trx, companyId, company.timezone, plan.reversalShares.splice(0), now);
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

/**
 * The open invoices (one query), the invoice numbers each transfer names, and why unknown
 * ones are not open. The invoices the debits name (or a return reaches through the credit
 * it returns) are loaded in any state with what a reversal needs, and stand in the same map
 * as the open ones: a later credit of the file finds an invoice a debit opened again.
 */
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
      sent: row.sent,
      wasOverdue: row.overdue,
      creditCents: 0,
      everPaid: false,
    });
  }
  const find = invoiceNumberFinder(company.invoice_number_pattern);
  const hits = new Map<ParsedTransaction, NumberHit[]>();
  const debitKeys = new Set<string>();
  const returnRefs = new Set<string>();
  for (const entry of entries) {
    if (ignoreReason(entry)) continue;
    for (const tx of entry.transactions) {
      const found = find([tx.creditorReference, tx.endToEndId, tx.remittanceText]);
      hits.set(tx, found);
      if (entry.direction !== 'debit') continue;
      for (const hit of found) debitKeys.add(hit.key);
      if ((tx.returned || entry.reversal) && tx.endToEndId) returnRefs.add(tx.endToEndId);
    }
  }
  const paidBy = await findPaidByEndToEnd(trx, company.id, [...returnRefs]);
  const closed = new Map<string, ClosedInvoice>();
  const byId = new Map<string, OpenInvoice>();
  for (const row of await loadNamedInvoices(trx, company.id, [...debitKeys], [...new Set(paidBy.map((p) => p.invoice_id))])) {
    if (row.type !== 'invoice' || !['issued', 'sent', 'partially_paid', 'paid'].includes(row.status)) {
      closed.set(row.key, { number: row.number!, status: row.status, type: row.type });
      continue;
    }
    const invoice: OpenInvoice = {
      id: row.id,
      number: row.number!,
      customerId: row.customer_id,
      customerNumber: row.kundennummer,
      customerName: row.customer_name,
      grossCents: row.total_gross_cents,
      paidCents: row.amount_paid_cents,
      loadedPaidCents: row.amount_paid_cents,
      status: row.status,
      sent: row.sent,
      wasOverdue: row.was_overdue,
      creditCents: Number(row.credit_cents),
      everPaid: row.ever_paid,
    };
    open.set(row.key, invoice);
    byId.set(invoice.id, invoice);
  }
  const paidByEndToEnd = new Map<string, OpenInvoice[]>();
  for (const { end_to_end_id, invoice_id } of paidBy) {
    const invoice = byId.get(invoice_id);
    if (invoice && end_to_end_id) paidByEndToEnd.set(end_to_end_id, [...(paidByEndToEnd.get(end_to_end_id) ?? []), invoice]);
  }
  const unknown = new Set<string>();
  for (const list of hits.values()) for (const hit of list) if (!open.has(hit.key) && !closed.has(hit.key)) unknown.add(hit.key);
  if (unknown.size) for (const row of await findInvoicesByNormalizedNumber(trx, company.id, [...unknown])) closed.set(row.key, row);
  return { open, closed, paidByEndToEnd, hitsOf: (tx: ParsedTransaction) => hits.get(tx) ?? [] };
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
  const reversal = plan.reversalBookings.find((booking) => booking.date <= locked);
  if (reversal)
    throw new BankImportError(
      'period_locked',
      `the accounting period is locked up to ${locked}; the money taken back from ${reversal.invoiceNumber} booked on ${reversal.date} would fall into it. Nothing was imported.`,
    );
}

/** The revenue share of the money taken back from invoices (commissions' ledger), in the import's transaction. */
async function reverseShares(trx: Trx, companyId: string, timeZone: string, reversals: readonly ReversalShare[], now: Date): Promise<void> {
  if (reversals.length === 0) return;
  await reverseInvoicePayments(
    trx,
    companyId,
    reversals.map((r) => ({ ...r, reversedAt: startOfDay(r.reversedOn, timeZone) })),
    now,
  );
}

async function updateInvoices(trx: Trx, companyId: string, timeZone: string, plan: ImportPlan, now: Date): Promise<void> {
  // An invoice the file took back and paid again to where it was changes nothing.
  const touched = [...plan.touched.values()].filter(({ invoice }) => invoice.paidCents !== invoice.loadedPaidCents);
  if (touched.length === 0) return;
  const firstSeq = await nextChangeSeqs(trx, companyId, touched.length);
  const updates: InvoicePaymentUpdate[] = touched.map(({ invoice, paidOn }, i) => ({
    id: invoice.id,
    expectedPaidCents: invoice.loadedPaidCents,
    expectedStatus: invoice.status,
    paidCents: invoice.paidCents,
    status: statusFor(invoice, invoice.paidCents),
    paidAt: paidOn ? startOfDay(paidOn, timeZone) : null,
    wasOverdue: invoice.wasOverdue,
    changeSeq: firstSeq + i,
  }));
  // Another transaction changed one of these invoices since they were read: start over.
  if ((await applyInvoicePayments(trx, companyId, updates, now)) !== updates.length) throw new RetryTransaction();
  // invoice.paid once per invoice that became paid, data = the invoice as the API shows it;
  // never a second time for an invoice paid in full before, taken back and paid again
  // (design §5: at most once per invoice and kind); a reversal itself is no event.
  // Read and written a slice at a time, in change-feed order.
  const becamePaid = touched.filter(({ invoice }) => invoice.paidCents >= invoice.grossCents && invoice.status !== 'paid' && !invoice.everPaid);
  const paidBefore = await findPaidBefore(
    trx,
    companyId,
    becamePaid.map(({ invoice }) => invoice.id),
  );
  const paidIds = becamePaid.map(({ invoice }) => invoice.id).filter((id) => !paidBefore.has(id));
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
