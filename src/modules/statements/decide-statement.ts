import { sql } from 'kysely';
import type { Database } from '../../db/connection.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { enqueueJob, recordEvent } from '../../jobs/index.ts';
import type { Clock } from '../../shared/clock.ts';
import { formatDate } from '../../shared/german-format.ts';
import { newId } from '../../shared/ids.ts';
import { formatCents } from '../../shared/money.ts';
import { type Actor, type PartnerActor, recordAudit } from '../audit/audit-log.ts';
import { BookkeepingError, bookStatement, reversePartnerInvoice } from '../bookkeeping/index.ts';
import { applyBalanceDeltas, BalanceDeltas } from '../commissions/index.ts';
import type { CompanyRow } from '../invoicing/build-document.ts';
import type { Mailer } from '../mail/index.ts';
import type { PartnerRow } from './build-statement.ts';
import { mailStatement, type RenderStatement } from './deliver-statement.ts';
import { issueStatement } from './issue-statement.ts';
import { OBJECTION_NOTICE_JOB, type ObjectionNoticePayload } from './objection-notice.ts';
import { findPartnerInvoice, partnerInvoiceToBook } from './record-partner-invoice.ts';
import type { StatementDocument } from './statement-document.ts';
import { StatementError } from './statement-error.ts';
import { type StatementRow, type StatementView, statementView } from './statement-view.ts';
import { findStatement, viewsOf } from './statements.repository.ts';

// The person-side steps of a statement (design §2 `kontor admin statement …`, §7): issue a
// draft, send, cancel (a cancelling statement; the entries are open again), record an
// objection to a Gutschrift (the entries are open again and the partner gets requests to
// invoice from now on), mark paid (entries paid, balance moved). Each in one transaction
// with its booking and event; a refusal is a StatementError with one sentence. A person
// acting in the app (or the CLI's --by) passes `actor`: the step is then limited to the
// actor's company and its audit row is written in the same transaction.

export { StatementError, type StatementRefusal } from './statement-error.ts';

/**
 * A step in one transaction; a booking it would date into a locked accounting period (a
 * cancellation, an objection's reversal or a payout dated today, after the period was
 * locked up to today) is the refusal `period_locked`, nothing written.
 */
async function decide<T>(db: Database, work: (trx: Trx) => Promise<T>): Promise<T> {
  try {
    return await inTransaction(db, work);
  } catch (error) {
    if (!(error instanceof BookkeepingError) || error.code !== 'period_locked') throw error;
    const until = error.lockedUntil ? ` bis einschließlich ${formatDate(error.lockedUntil)}` : '';
    throw new StatementError(error.message, 'period_locked', `Der Buchungszeitraum ist${until} gesperrt; gebucht wird erst wieder in der offenen Periode.`);
  }
}

/** `renderStatement`: the process's render threads, for a send that finds the files not yet stored. */
type Deps = { db: Database; clock: Clock; mailer?: Mailer | undefined; renderStatement?: RenderStatement | undefined };
export type DecidedStatement = { statement: StatementView; changed: boolean; cancellation?: StatementView };

async function context(trx: Trx, statementId: string, actor?: Actor | PartnerActor) {
  const statement = await findStatement(trx, actor?.companyId ?? null, statementId, true);
  if (!statement) throw new StatementError(`no statement ${statementId}`, 'not_found');
  const company = (await trx.selectFrom('companies').selectAll().where('id', '=', statement.company_id).executeTakeFirstOrThrow()) as CompanyRow;
  const partner = (await trx
    .selectFrom('commission_partners')
    .selectAll()
    .where('company_id', '=', company.id)
    .where('id', '=', statement.partner_id)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow()) as PartnerRow;
  return { statement, company, partner };
}

async function view(trx: Trx, row: StatementRow): Promise<StatementView> {
  return (await viewsOf(trx, row.company_id, [row]))[0] as StatementView;
}

/** What the audit trail keeps of a statement before and after a step. */
function auditState(row: StatementRow): Record<string, unknown> {
  return { number: row.number, status: row.status, gross: formatCents(BigInt(row.gross_cents)), paid: row.paid_at !== null };
}

async function audit(
  trx: Trx,
  actor: Actor | PartnerActor | undefined,
  now: Date,
  action: string,
  before: StatementRow,
  after: StatementRow,
  more: Record<string, unknown> = {},
) {
  if (!actor) return;
  await recordAudit(trx, actor, now, {
    action,
    subjectType: 'commission_statement',
    subjectId: before.id,
    before: auditState(before),
    after: { ...auditState(after), ...more },
  });
}

/** Moves the statement's entries from one status to another (or back to open) and the balance with them. */
async function moveEntries(trx: Trx, statement: StatementRow, from: 'statemented', to: 'open' | 'paid', now: Date): Promise<void> {
  const moved = await trx
    .updateTable('commission_entries')
    .set({ status: to, ...(to === 'open' ? { statement_id: null } : {}), updated_at: now })
    .where('company_id', '=', statement.company_id)
    .where('statement_id', '=', statement.id)
    .where('status', '=', from)
    .returning(['amount_cents'])
    .execute();
  const total = moved.reduce((sum, row) => sum + BigInt(row.amount_cents), 0n);
  const deltas = new BalanceDeltas();
  deltas.add(statement.partner_id, from, -total);
  deltas.add(statement.partner_id, to, total);
  await applyBalanceDeltas(trx, statement.company_id, deltas);
}

export function issueDraftStatement(deps: Deps, statementId: string, by = 'cli', actor?: Actor): Promise<DecidedStatement> {
  return decide(deps.db, async (trx) => {
    const { statement, company, partner } = await context(trx, statementId, actor);
    if (statement.status !== 'draft') return { statement: await view(trx, statement), changed: false };
    const now = deps.clock.now();
    const issued = await issueStatement(trx, { company, partner, statement, issueDate: deps.clock.today(company.timezone), now, decidedBy: by });
    await audit(trx, actor, now, 'statement.issued', statement, issued);
    // Not read back: the number's range stays locked until commit, and the files come after it (the delivery job).
    return { statement: statementView(issued, { partnerName: partner.name, hasPdf: false, hasXml: false }), changed: true };
  });
}

export async function sendStatement(deps: Deps, statementId: string, actor?: Actor): Promise<DecidedStatement> {
  const statement = await findStatement(deps.db, actor?.companyId ?? null, statementId);
  if (!statement) throw new StatementError(`no statement ${statementId}`, 'not_found');
  if (statement.status === 'draft') throw new StatementError(`statement ${statementId} is a draft: issue it first`, 'draft_not_sendable');
  if (statement.status === 'cancelled' || statement.status === 'objected')
    throw new StatementError(`statement ${statement.number} is ${statement.status} and is not sent`, 'not_sendable');
  const partner = await deps.db.selectFrom('commission_partners').select('email').where('id', '=', statement.partner_id).executeTakeFirstOrThrow();
  if (!partner.email) throw new StatementError(`the partner of statement ${statement.number} has no e-mail address`, 'no_email');
  // The person who sent it is recorded in the transaction that marks it sent.
  const onSent = actor
    ? (trx: Trx, sent: StatementRow, now: Date) => audit(trx, actor, now, 'statement.sent', statement, sent, { sent_to: sent.sent_to })
    : undefined;
  let outcome: Awaited<ReturnType<typeof mailStatement>>;
  try {
    outcome = await mailStatement(
      { db: deps.db, clock: deps.clock, mailer: deps.mailer, renderStatement: deps.renderStatement },
      statement.company_id,
      statementId,
      onSent ? { onSent } : {},
    );
  } catch (error) {
    const sendError = (error as { sendError?: { message: string } } | null)?.sendError;
    if (!sendError) throw error;
    throw new StatementError(`the mail with statement ${statement.number} was not sent: ${sendError.message}`, 'mail_failed', sendError.message);
  }
  const after = (await findStatement(deps.db, null, statementId)) as StatementRow;
  return { statement: (await viewsOf(deps.db, after.company_id, [after]))[0] as StatementView, changed: outcome.outcome === 'sent' };
}

/**
 * Cancels a statement: a draft is discarded; an issued or sent one gets a cancelling
 * statement with its own number, booked as the mirror. Either way its entries are open
 * again. A paid statement is not cancelled (the money has gone).
 */
export function cancelStatement(deps: Deps, statementId: string, by = 'cli', actor?: Actor): Promise<DecidedStatement> {
  return decide(deps.db, async (trx) => {
    const { statement, company, partner } = await context(trx, statementId, actor);
    if (statement.type === 'cancellation')
      throw new StatementError(`statement ${statement.number} cancels another one and cannot be cancelled itself`, 'cancellation_not_cancellable');
    if (statement.status === 'cancelled' || statement.status === 'objected') return { statement: await view(trx, statement), changed: false };
    if (statement.paid_at) throw new StatementError(`statement ${statement.number} is paid and cannot be cancelled`, 'paid_not_cancellable');
    const now = deps.clock.now();
    await moveEntries(trx, statement, 'statemented', 'open', now);
    if (statement.status === 'draft') {
      const discarded = await trx
        .updateTable('commission_statements')
        .set({ status: 'cancelled', decided_by: by, updated_at: now })
        .where('company_id', '=', company.id)
        .where('id', '=', statement.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await audit(trx, actor, now, 'statement.cancelled', statement, discarded as StatementRow);
      return { statement: await view(trx, discarded), changed: true };
    }
    const cancellationId = newId('cst');
    const negated = statement.lines.map((line) => ({ ...line, basis_cents: -line.basis_cents, amount_cents: -line.amount_cents }));
    const draft = (await trx
      .insertInto('commission_statements')
      .values({
        company_id: company.id,
        id: cancellationId,
        partner_id: statement.partner_id,
        kind: statement.kind,
        type: 'cancellation',
        status: 'draft',
        number: null,
        issue_date: null,
        period_start: statement.period_start,
        period_end: statement.period_end,
        net_cents: -statement.net_cents,
        vat_cents: -statement.vat_cents,
        gross_cents: -statement.gross_cents,
        vat_rate: statement.vat_rate,
        tax_note: statement.tax_note,
        lines: JSON.stringify(negated),
        e_invoice_format: statement.e_invoice_format,
        document: null,
        cancels_statement_id: statement.id,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()) as StatementRow;
    // The partner's invoice recorded against the request is booked: its mirror under the
    // cancellation's number settles it (the partner cancels its invoice; the payout sentence asks for it).
    const invoice = statement.kind === 'partner_invoice' ? await findPartnerInvoice(trx, company.id, statement.id) : null;
    const cancellation = await issueStatement(trx, { company, partner, statement: draft, issueDate: deps.clock.today(company.timezone), now, decidedBy: by });
    if (invoice)
      await reversePartnerInvoice(trx, company.id, company.chart, {
        ...partnerInvoiceToBook(statement, partner, invoice, cancellation.issue_date as string),
        cancellationNumber: cancellation.number as string,
      });
    const cancelled = (await trx
      .updateTable('commission_statements')
      .set({ status: 'cancelled', cancelled_by_id: cancellationId, decided_by: by, updated_at: now })
      .where('company_id', '=', company.id)
      .where('id', '=', statement.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as StatementRow;
    const cancelledView = await view(trx, cancelled);
    await recordEvent(trx, { companyId: company.id, type: 'commission_statement.cancelled', subjectId: statement.id, data: cancelledView, createdAt: now });
    await audit(trx, actor, now, 'statement.cancelled', statement, cancelled, { cancelled_by: cancellation.number });
    return { statement: cancelledView, changed: true, cancellation: await view(trx, cancellation) };
  });
}

/**
 * Records the partner's objection to a Gutschrift (§ 14 Abs. 2 Satz 3 UStG: the
 * self-billed invoice loses its effect): the statement is `objected`, its booking reversed,
 * its entries open again, and the partner marked objected, so the next statements ask the
 * partner to invoice.
 */
/**
 * Records the partner's objection to a Gutschrift (§ 14 Abs. 2 Satz 3 UStG): its entries
 * are open again, its booking reversed, the partner gets requests to invoice from now on,
 * and the company is mailed (objection-notice.ts) — whether a person records it or the
 * partner objects in the portal (`actor` a PartnerActor). `reason`: the partner's words.
 */
export function objectToStatement(
  deps: Deps,
  statementId: string,
  by = 'cli',
  actor?: Actor | PartnerActor,
  reason: string | null = null,
): Promise<DecidedStatement> {
  return decide(deps.db, async (trx) => {
    const { statement, company, partner } = await context(trx, statementId, actor);
    if (statement.status === 'objected') return { statement: await view(trx, statement), changed: false };
    if (statement.kind !== 'self_billing' || statement.type !== 'statement')
      throw new StatementError(
        `statement ${statement.number ?? statement.id} is no Gutschrift; only a self-billed invoice can be objected to`,
        'not_self_billing',
      );
    if (statement.status !== 'issued' && statement.status !== 'sent')
      throw new StatementError(
        `statement ${statement.number ?? statement.id} is ${statement.status}; only an issued Gutschrift can be objected to`,
        'not_objectable',
      );
    if (statement.paid_at)
      throw new StatementError(
        `statement ${statement.number} is paid; record the objection with the partner's own invoice and a refund instead`,
        'paid_not_objectable',
      );
    const now = deps.clock.now();
    await moveEntries(trx, statement, 'statemented', 'open', now);
    const doc = statement.document as StatementDocument;
    // The booking is reversed under the statement's number (the mirror of its journal entry).
    await bookStatement(
      trx,
      company.id,
      company.chart,
      {
        ...doc,
        type: 'cancellation',
        precedingStatement: { number: doc.number, issueDate: doc.issueDate },
        issueDate: deps.clock.today(company.timezone),
        totals: { net: negate(doc.totals.net), vat: negate(doc.totals.vat), gross: negate(doc.totals.gross) },
        lines: doc.lines.map((line) => ({ ...line, basis: negate(line.basis), amount: negate(line.amount) })),
      },
      `${statement.id}.objection`,
    );
    const objected = (await trx
      .updateTable('commission_statements')
      .set({ status: 'objected', objected_at: now, decided_by: by, updated_at: now })
      .where('company_id', '=', company.id)
      .where('id', '=', statement.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as StatementRow;
    await trx
      .updateTable('commission_partners')
      .set({ self_billing_objected_at: now, updated_at: now })
      .where('company_id', '=', company.id)
      .where('id', '=', partner.id)
      .execute();
    const objectedView = await view(trx, objected);
    await recordEvent(trx, { companyId: company.id, type: 'commission_statement.objected', subjectId: statement.id, data: objectedView, createdAt: now });
    const notice: ObjectionNoticePayload = {
      statement_id: statement.id,
      by,
      by_partner: actor !== undefined && 'partnerAccountId' in actor,
      reason,
      at: now.toISOString(),
    };
    await enqueueJob(trx, { name: OBJECTION_NOTICE_JOB, companyId: company.id, payload: notice, runAt: now });
    await audit(trx, actor, now, 'statement.objected', statement, objected, reason ? { reason } : {});
    return { statement: objectedView, changed: true };
  });
}

/** Marks an issued statement paid (the payout left): its entries paid, the balance moved from statemented to paid. */
export function markStatementPaid(deps: Deps, statementId: string, by = 'cli', actor?: Actor): Promise<DecidedStatement> {
  return decide(deps.db, (trx) => markStatementPaidIn(trx, deps.clock, statementId, by, actor));
}

/** markStatementPaid inside the caller's transaction (the payout run pays several at once; it keeps its own audit row). */
export async function markStatementPaidIn(trx: Trx, clock: Clock, statementId: string, by: string, actor?: Actor): Promise<DecidedStatement> {
  const { statement, company } = await context(trx, statementId, actor);
  if (statement.paid_at) return { statement: await view(trx, statement), changed: false };
  if (statement.type !== 'statement' || (statement.status !== 'issued' && statement.status !== 'sent'))
    throw new StatementError(
      `statement ${statement.number ?? statement.id} is ${statement.type === 'statement' ? statement.status : 'a cancellation'} and cannot be paid`,
      'not_payable',
    );
  // A request to invoice is paid against the partner's invoice only (issue 24).
  if (statement.kind === 'partner_invoice' && !(await findPartnerInvoice(trx, company.id, statement.id)))
    throw new StatementError(
      `statement ${statement.number} asks the partner to invoice; record the partner's invoice before it is paid`,
      'partner_invoice_missing',
    );
  const now = clock.now();
  await moveEntries(trx, statement, 'statemented', 'paid', now);
  const paid = (await trx
    .updateTable('commission_statements')
    .set({ paid_at: now, decided_by: by, updated_at: now })
    .where('company_id', '=', company.id)
    .where('id', '=', statement.id)
    .returningAll()
    .executeTakeFirstOrThrow()) as StatementRow;
  const paidView = await view(trx, paid);
  await recordEvent(trx, { companyId: company.id, type: 'commission_statement.paid', subjectId: statement.id, data: paidView, createdAt: now });
  await audit(trx, actor, now, 'statement.paid', statement, paid);
  return { statement: paidView, changed: true };
}

function negate(amount: string): string {
  return amount.startsWith('-') ? amount.slice(1) : amount === '0.00' ? amount : `-${amount}`;
}

// For tests and the CLI: statement ids of a company, newest first.
export function statementIds(db: Database, companyId: string) {
  return db.selectFrom('commission_statements').select(['id', 'number', 'status']).where('company_id', '=', companyId).orderBy(sql`seq desc`).execute();
}
