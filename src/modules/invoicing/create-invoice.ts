import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { attributeInvoiceCustomer } from '../commissions/index.ts';
import { findCustomerByRef } from '../customers/index.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import type { EarlyRender } from './early-render.ts';
import { claimKey, finalizeAnswer, KeyClaimedElsewhere, requestHash, type StoredAnswer, storeAnswer, storedAnswer } from './idempotency.ts';
import { type InvoiceFiles, storeFiles } from './invoice-files.ts';
import { invoiceCreatedView } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import { type InvoicingDeps, renderedOrRefuse } from './invoicing-deps.ts';
import { INTERRUPTED, insertAttempt, lastSendError, type MailAttempt, settleAfterCrash } from './mail-attempts.ts';
import { invoiceRangeKey } from './numbering.ts';
import { paymentTermsDays } from './plan-issue.ts';
import { resolveLines } from './resolve-lines.ts';
import { mailRecordedAttempt } from './send-invoice.ts';
import { writeInvoice } from './write-invoice.ts';

export type { CreateInvoiceBody, CreateInvoiceLine } from './create-invoice-input.ts';

export type CreateInvoiceAnswer = StoredAnswer & { replayed: boolean };

/**
 * createInvoice (interface §4): a draft, an issued invoice, or issued and mailed. Runs in
 * one transaction with the idempotency key's claim; the mail goes out after commit.
 */
export async function createInvoice(deps: InvoicingDeps, companyId: string, idempotencyKey: string, body: CreateInvoiceBody): Promise<CreateInvoiceAnswer> {
  const hash = requestHash(body);
  let early: EarlyRender | null = null;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      // The early rendering starts first: the key's look-up runs beside it.
      if (body.issue === true && attempt === 0)
        early =
          deps.earlyRenders?.start(
            companyId,
            idempotencyKey,
            body,
            (timeZone) => deps.clock.today(timeZone),
            (doc) => deps.render(doc),
          ) ?? null;
      const earlier = await storedAnswer(deps.db, deps.liveness, companyId, idempotencyKey, hash, (invoiceId) =>
        answerAfterCrash(deps, companyId, idempotencyKey, invoiceId),
      );
      if (earlier) {
        deps.earlyRenders?.answered(companyId, idempotencyKey);
        return { ...earlier, replayed: true };
      }
      try {
        const created = await createOnce(deps, companyId, idempotencyKey, hash, body, early);
        deps.earlyRenders?.answered(companyId, idempotencyKey);
        return created;
      } catch (error) {
        if (!(error instanceof KeyClaimedElsewhere)) throw error;
        // Another request with this key committed first (or is running): read its answer.
      }
    }
  } finally {
    early?.settle();
  }
  throw new AppError('conflict_retry');
}

async function createOnce(
  deps: InvoicingDeps,
  companyId: string,
  key: string,
  hash: string,
  body: CreateInvoiceBody,
  early: EarlyRender | null,
): Promise<CreateInvoiceAnswer> {
  const issue = body.issue === true;
  const send = issue && body.send === true;
  // The process that will mail: its token goes on the attempt and the key's open answer.
  const owner = send ? await deps.liveness.token() : undefined;
  const created = await inTransaction(deps.db, async (trx) => {
    await claimKey(trx, companyId, key, hash);
    const customer = await findCustomerByRef(trx, companyId, body.customer.source, body.customer.external_ref);
    const taken = await trx
      .selectFrom('invoices')
      .select('id')
      .where('company_id', '=', companyId)
      .where('external_source', '=', body.customer.source)
      .where('external_ref', '=', body.external_ref)
      .executeTakeFirst();
    if (taken) throw new AppError('invoice_external_ref_exists', { invoice_id: taken.id });
    if (!customer) throw new AppError('customer_not_found');
    // interface §4 rule 4: in this transaction, so a refusal creates no invoice and leaves the key unused.
    if (body.attribution) {
      await attributeInvoiceCustomer(trx, deps.clock, companyId, {
        customer: { id: customer.id, name: customer.name, source: body.customer.source },
        partnerRef: body.attribution.partner_ref,
        agreementRef: body.attribution.agreement_ref,
        invoiceRef: body.external_ref,
      });
    }
    const lines = await resolveLines(trx, companyId, body);
    const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const invoiceId = newId('inv');
    let rendering: Promise<InvoiceFiles> | null = null;
    const { row, doc } = await writeInvoice(
      trx,
      deps,
      { company, customer, invoiceId, lines, body, externalSource: body.customer.source, paymentTermsDays: paymentTermsDays(company, body), issue },
      (issued, seq) => {
        deps.earlyRenders?.remember(company, customer, invoiceRangeKey(issued.issueDate), seq, early);
        // Rendering (on a render thread when there is one) runs while this transaction
        // writes the invoice, its booking, event and answer; the files are stored when it is
        // done. An early rendering of exactly this document is taken as it is.
        rendering = deps.earlyRenders?.take(early, issued) ?? deps.render(issued);
        rendering.catch(() => {}); // awaited below; a write failing first must not leave it unhandled
      },
    );
    // The mail's attempt commits with the invoice, before the mail leaves (mail-attempts.ts).
    const attempt: MailAttempt | null = send && doc ? await insertAttempt(trx, deps, company, invoiceId, doc.number) : null;
    // While the mail is under way the answer stays open, held by this process (`owner`).
    const answer = JSON.stringify(invoiceCreatedView(row, send ? INTERRUPTED : null));
    await storeAnswer(trx, companyId, key, { status: 201, body: answer, invoiceId, final: !send, ...(owner ? { owner } : {}) });
    const files = rendering && doc ? await renderedOrRefuse(rendering as Promise<InvoiceFiles>, doc) : null;
    if (files) await storeFiles(trx, companyId, invoiceId, files);
    return { invoiceId, company, doc, files, answer, attempt };
  });
  if (!created.attempt || !created.doc || !created.files) return { status: 201, body: created.answer, replayed: false };
  const outcome = await mailRecordedAttempt(deps, created.company, created.invoiceId, created.attempt, created.doc, created.files);
  const row = await findInvoiceViewRow(deps.db, companyId, created.invoiceId);
  const answer = JSON.stringify(invoiceCreatedView(row!, outcome.ok ? null : outcome.error));
  return { ...(await finalizeAnswer(deps.db, companyId, key, { status: 201, body: answer })), replayed: false };
}

/**
 * The answer of a key whose process died while it mailed: the mail is settled (the
 * outbox tells whether it left; over SMTP it is `mail_unconfirmed`), the answer says so
 * and is final from now on. Undefined while a live process mails the invoice.
 */
async function answerAfterCrash(deps: InvoicingDeps, companyId: string, key: string, invoiceId: string): Promise<StoredAnswer | undefined> {
  const company = await deps.db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  if ((await settleAfterCrash(deps, company, invoiceId)) === 'busy') return undefined;
  const row = await findInvoiceViewRow(deps.db, companyId, invoiceId);
  const sendError = row!.sent_at ? null : await lastSendError(deps.db, companyId, invoiceId);
  return finalizeAnswer(deps.db, companyId, key, { status: 201, body: JSON.stringify(invoiceCreatedView(row!, sendError)) });
}
