import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../db/connection.ts';
import type { InvoiceStatus, MailAttemptState } from '../../db/schema-invoicing.ts';
import { inTransaction, type Trx } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { invoiceMessageId } from '../mail/index.ts';
import type { CompanyRow } from './build-document.ts';
import { nextChangeSeq } from './invoice-changes.ts';
import { invoiceView, type SendError } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';

// Every attempt to mail an invoice is committed before the mail leaves, with its
// Message-ID and the liveness token of the sending process (db/liveness.ts). A process
// that dies between the mail and the commit of `sent` leaves its attempt `sending` with a
// dead owner; whoever meets it next settles it at once:
// - outbox: the file tells — it is there (the mail left: the invoice is sent now) or not
//   (the attempt failed as `interrupted`; mailing again is safe);
// - SMTP: nobody can know (`unconfirmed`): the invoice is mailed again only when asked
//   explicitly (POST /send with {"resend": true}, or a person in the app).
// The unique index on `sending` attempts lets one mail of an invoice be on its way at a time.

export type MailAttempt = { id: string; messageId: string };

export type AttemptDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'liveness' | 'mailed'>;

/** How long a second request waits for a live process's mail of the same invoice. */
const BUSY_WAIT_MS = 30_000;

export const UNCONFIRMED: SendError = {
  code: 'mail_unconfirmed',
  message:
    'Der Versand wurde unterbrochen; ob die Mail den Mailserver erreicht hat, ist nicht bekannt. Bitte beim Kunden nachfragen; erneut gesendet wird nur auf ausdrücklichen Wunsch (POST /invoices/{id}/send mit {"resend": true}).',
};

export const INTERRUPTED: SendError = {
  code: 'mail_unreachable',
  message: 'Der Versand wurde unterbrochen, bevor die Mail verschickt war. Bitte mit POST /invoices/{id}/send senden.',
};

/** Records a new attempt (state `sending`) in `trx`: committed before the mail leaves. */
export async function insertAttempt(
  trx: Trx,
  deps: AttemptDeps,
  company: Pick<CompanyRow, 'id' | 'smtp'>,
  invoiceId: string,
  invoiceNumber: string,
  resend = false,
  again = false,
): Promise<MailAttempt> {
  const id = newId('mla');
  // A mail again of a sent invoice is a mail of its own: its own Message-ID (send-invoice.ts).
  const attempt = { id, messageId: invoiceMessageId(company.id, again ? `${invoiceNumber}.${id}` : invoiceNumber) };
  await trx
    .insertInto('invoice_mail_attempts')
    .values({
      company_id: company.id,
      id: attempt.id,
      invoice_id: invoiceId,
      message_id: attempt.messageId,
      via: company.smtp ? 'smtp' : 'outbox',
      owner: await deps.liveness.token(),
      state: 'sending',
      resend: resend || again,
      started_at: deps.clock.now(),
    })
    .execute();
  return attempt;
}

/** Who sent the mail (a person in the app or on the command line), for the audit row. */
export type AttemptAudit = { actor: Actor; to: string | null; messageId: string };

/**
 * The attempt's end, and for a mail that left the invoice's `sent` (status, sent_at, event
 * invoice.sent once). A person's attempt is audited in the same transaction: the mail step
 * runs outside any transaction, this is the one that records what became of it.
 */
export async function finishAttempt(
  deps: AttemptDeps,
  companyId: string,
  invoiceId: string,
  attemptId: string,
  outcome: { ok: true } | { ok: false; error: SendError },
  audit?: AttemptAudit,
) {
  await inTransaction(deps.db, async (trx) => {
    const current = await lockInvoice(trx, companyId, invoiceId);
    // A process that looked dead to another one (its lock connection dropped) may find its
    // attempt settled as unconfirmed: what it knows now wins.
    await trx
      .updateTable('invoice_mail_attempts')
      .set(
        outcome.ok
          ? { state: 'sent', error_code: null, error_message: null, finished_at: deps.clock.now() }
          : { state: 'failed', error_code: outcome.error.code, error_message: outcome.error.message.slice(0, 2000), finished_at: deps.clock.now() },
      )
      .where('company_id', '=', companyId)
      .where('id', '=', attemptId)
      .where('state', 'in', ['sending', 'unconfirmed'])
      .execute();
    if (outcome.ok) await markSent(trx, deps, companyId, invoiceId, current);
    if (audit) {
      const status = outcome.ok && current.status === 'issued' ? 'sent' : current.status;
      await recordAudit(trx, audit.actor, deps.clock.now(), {
        action: outcome.ok ? 'invoice.sent' : 'invoice.send_failed',
        subjectType: 'invoice',
        subjectId: invoiceId,
        before: { status: current.status, sent_at: current.sent_at?.toISOString() ?? null },
        after: outcome.ok
          ? { status, to: audit.to, message_id: audit.messageId, mailed_before: current.sent_at !== null }
          : { status, to: audit.to, error: outcome.error.code, message: outcome.error.message },
      });
    }
  });
}

export type AttemptStart =
  | { kind: 'start'; attempt: MailAttempt }
  /** Mailed before (or the outbox shows the interrupted mail left). */
  | { kind: 'sent' }
  /** The last attempt may have left; mail again only with resend. */
  | { kind: 'unconfirmed' };

/**
 * Begins a mail of an issued invoice: settles an attempt a dead process left, waits while
 * a live one mails the same invoice, refuses to mail over an unconfirmed attempt unless
 * `resend`, and otherwise records a new attempt.
 */
export async function beginAttempt(
  deps: AttemptDeps,
  company: CompanyRow,
  invoiceId: string,
  invoiceNumber: string,
  resend: boolean,
  again = false,
): Promise<AttemptStart> {
  const started = Date.now();
  for (;;) {
    const result = await inTransaction(deps.db, async (trx): Promise<AttemptStart | 'busy'> => {
      const invoice = await lockInvoice(trx, company.id, invoiceId);
      if (invoice.sent_at && !again) return { kind: 'sent' };
      const settled = await settleOpen(trx, deps, company, invoiceId, invoice);
      if (settled === 'busy') return 'busy';
      if (settled === 'sent' && !again) return { kind: 'sent' };
      // Asking to mail a sent invoice again is explicit: an unconfirmed last attempt does not stop it.
      const last = await lastAttempt(trx, company.id, invoiceId);
      if (last?.state === 'unconfirmed' && !resend && !again) return { kind: 'unconfirmed' };
      return { kind: 'start', attempt: await insertAttempt(trx, deps, company, invoiceId, invoiceNumber, last?.state === 'unconfirmed', again) };
    });
    if (result !== 'busy') return result;
    if (Date.now() - started > BUSY_WAIT_MS) throw new AppError('conflict_retry');
    await sleep(50);
  }
}

/**
 * Settles the open attempt of a dead process (see the file's head) and says what became
 * of it: 'none' (no open attempt), 'busy' (a live process mails it), or the new state.
 * `current`: the invoice row as the caller locked it.
 */
async function settleOpen(
  trx: Trx,
  deps: AttemptDeps,
  company: CompanyRow,
  invoiceId: string,
  current: LockedInvoice,
): Promise<'none' | 'busy' | MailAttemptState> {
  const open = await trx
    .selectFrom('invoice_mail_attempts')
    .select(['id', 'owner', 'message_id'])
    .where('company_id', '=', company.id)
    .where('invoice_id', '=', invoiceId)
    .where('state', '=', 'sending')
    .executeTakeFirst();
  if (!open) return 'none';
  if (await deps.liveness.isAlive(open.owner)) return 'busy';
  const left = await deps.mailed(company, open.message_id);
  const state: MailAttemptState = left === true ? 'sent' : left === false ? 'failed' : 'unconfirmed';
  await trx
    .updateTable('invoice_mail_attempts')
    .set({ state, error_code: state === 'failed' ? 'interrupted' : null, finished_at: deps.clock.now() })
    .where('company_id', '=', company.id)
    .where('id', '=', open.id)
    .execute();
  if (state === 'sent') await markSent(trx, deps, company.id, invoiceId, current);
  return state;
}

/** Settles, in its own transaction, what a dead process left of the invoice's mail; 'busy' while a live one mails it. */
export async function settleAfterCrash(deps: AttemptDeps, company: CompanyRow, invoiceId: string): Promise<'busy' | 'settled'> {
  return inTransaction(deps.db, async (trx) => {
    const current = await lockInvoice(trx, company.id, invoiceId);
    return (await settleOpen(trx, deps, company, invoiceId, current)) === 'busy' ? 'busy' : 'settled';
  });
}

/** What the last finished attempt says for a createInvoice answer: null when sent. */
export async function lastSendError(db: Database | Trx, companyId: string, invoiceId: string): Promise<SendError | null> {
  const last = await lastAttempt(db, companyId, invoiceId);
  if (!last || last.state === 'sent') return null;
  if (last.state === 'unconfirmed') return UNCONFIRMED;
  if (last.state === 'sending' || last.error_code === 'interrupted') return INTERRUPTED;
  return { code: last.error_code as SendError['code'], message: last.error_message ?? INTERRUPTED.message };
}

async function lastAttempt(db: Database | Trx, companyId: string, invoiceId: string) {
  return db
    .selectFrom('invoice_mail_attempts')
    .select(['state', 'error_code', 'error_message'])
    .where('company_id', '=', companyId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

type LockedInvoice = { status: InvoiceStatus; sent_at: Date | null };

async function lockInvoice(trx: Trx, companyId: string, invoiceId: string): Promise<LockedInvoice> {
  return trx
    .selectFrom('invoices')
    .select(['status', 'sent_at'])
    .where('company_id', '=', companyId)
    .where('id', '=', invoiceId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/**
 * Status `sent` (unless paid or cancelled meanwhile), `sent_at`, and the event invoice.sent
 * — once. `current`: the invoice row locked in `trx`.
 */
async function markSent(trx: Trx, deps: AttemptDeps, companyId: string, invoiceId: string, current: LockedInvoice) {
  if (current.sent_at) return;
  await trx
    .updateTable('invoices')
    .set({
      status: current.status === 'issued' ? 'sent' : current.status,
      sent_at: deps.clock.now(),
      change_seq: await nextChangeSeq(trx, companyId),
      changed_at: deps.clock.now(),
    })
    .where('company_id', '=', companyId)
    .where('id', '=', invoiceId)
    .execute();
  const row = await findInvoiceViewRow(trx, companyId, invoiceId);
  await recordEvent(trx, { companyId, type: 'invoice.sent', subjectId: invoiceId, data: invoiceView(row!), createdAt: deps.clock.now() });
}
