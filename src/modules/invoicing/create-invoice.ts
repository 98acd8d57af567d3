import { inTransaction, type Trx } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import { addDays } from '../../shared/dates.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { findCustomerByRef } from '../customers/index.ts';
import { findProductByRefOrNumber, productNotFound } from '../products/index.ts';
import { buildInvoiceDocument, type IssuedLine } from './build-document.ts';
import type { InvoiceDocument } from './document.ts';
import { drawInvoiceNumber } from './draw-invoice-number.ts';
import { claimKey, KeyClaimedElsewhere, requestHash, type StoredAnswer, storeAnswer, storedAnswer } from './idempotency.ts';
import { nextChangeSeq } from './invoice-changes.ts';
import { storeFiles } from './invoice-files.ts';
import { invoiceCreatedView, invoiceView, type SendError } from './invoice-view.ts';
import { findInvoiceViewRow, type InvoiceViewRow } from './invoices.repository.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { checkIssuingDetails } from './issuing-checks.ts';
import { assertPeriodOpen } from './period-lock.ts';
import { sendIssuedInvoice } from './send-invoice.ts';
import { invoiceTotals, lineNetCents } from './totals.ts';
import { decideVat } from './vat-verdict.ts';

export type CreateInvoiceLine = {
  description: string;
  quantity: number | string;
  unit?: string | null;
  unit_price_net: string;
  vat_rate: 0 | 7 | 19;
  product_ref?: string;
  product_number?: string;
  tax_exemption_reason?: string | null;
};

export type CreateInvoiceBody = {
  customer: { source: string; external_ref: string };
  external_ref: string;
  lines: CreateInvoiceLine[];
  service_period: { start: string; end: string };
  payment_terms_days?: number;
  issue?: boolean;
  send?: boolean;
  currency?: 'EUR';
  attribution?: { partner_ref: string; agreement_ref: string };
};

export type CreateInvoiceAnswer = StoredAnswer & { replayed: boolean };

/** A mail attempt that does not finish leaves this answer (the invoice is issued). */
const INTERRUPTED: SendError = { code: 'mail_unreachable', message: 'Der Versand wurde unterbrochen; bitte mit POST /invoices/{id}/send wiederholen.' };

/**
 * createInvoice (interface §4): a draft, an issued invoice, or issued and mailed. Runs in
 * one transaction with the idempotency key's claim; the mail goes out after commit.
 */
export async function createInvoice(deps: InvoicingDeps, companyId: string, idempotencyKey: string, body: CreateInvoiceBody): Promise<CreateInvoiceAnswer> {
  const hash = requestHash(body);
  for (let attempt = 0; attempt < 5; attempt++) {
    const earlier = await storedAnswer(deps.db, companyId, idempotencyKey, hash);
    if (earlier) return { ...earlier, replayed: true };
    try {
      return await createOnce(deps, companyId, idempotencyKey, hash, body);
    } catch (error) {
      if (!(error instanceof KeyClaimedElsewhere)) throw error;
      // Another request with this key committed first (or is running): read its answer.
    }
  }
  throw new AppError('conflict_retry');
}

async function createOnce(deps: InvoicingDeps, companyId: string, key: string, hash: string, body: CreateInvoiceBody): Promise<CreateInvoiceAnswer> {
  const issue = body.issue === true;
  const send = issue && body.send === true;
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
    // Revenue-share agreements come with the revenue-share work; until then none exists.
    if (body.attribution) throw new AppError('commission.agreement_not_found');
    const lines = await resolveLines(trx, companyId, body);
    const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const invoiceId = newId('inv');
    const paymentTermsDays = body.payment_terms_days ?? company.payment_terms_days;
    let doc: InvoiceDocument | null = null;
    let files: { pdf: Buffer; xml: Buffer | null } | null = null;
    if (issue) {
      const issueDate = deps.clock.today(company.timezone);
      const verdict = decideVat({
        company: { smallBusiness: company.small_business, euDistanceThresholdExceeded: company.eu_distance_threshold_exceeded },
        customer: { countryCode: customer.country_code ?? '', customerType: customer.customer_type, vatId: customer.vat_id },
        lines,
      });
      const messages = [...checkIssuingDetails(company, customer, verdict.verdict), ...(customer.country_code ? verdict.messages : [])];
      if (messages.length > 0) throw new AppError('invoice_not_issuable', { messages, message: messages.join(' ') });
      await assertPeriodOpen(trx, companyId, issueDate);
      const number = await drawInvoiceNumber(trx, company, issueDate);
      doc = buildInvoiceDocument({
        company,
        customer,
        verdict: verdict.verdict,
        number,
        issueDate,
        dueDate: addDays(issueDate, paymentTermsDays),
        servicePeriod: body.service_period,
        paymentTermsDays,
        lines,
      });
      files = await renderOrRefuse(deps, doc);
    }
    const inserted = await insertInvoice(trx, {
      companyId,
      invoiceId,
      customerId: customer.id,
      body,
      lines,
      paymentTermsDays,
      doc,
      changeSeq: await nextChangeSeq(trx, companyId),
      now: deps.clock.now(),
    });
    if (doc && files) {
      await storeFiles(trx, companyId, invoiceId, files);
      await deps.book(trx, company, doc, invoiceId);
    }
    // Everything the view shows is known here: no read back (a 4-way join costs PGlite ~3 ms).
    const row: InvoiceViewRow = {
      ...inserted,
      customer_external_ref: customer.external_ref,
      cancels_id: null,
      cancels_number: null,
      cancels_external_ref: null,
      cancelled_by_id: null,
      cancelled_by_number: null,
      cancelled_by_external_ref: null,
    };
    if (doc) await recordEvent(trx, { companyId, type: 'invoice.issued', subjectId: invoiceId, data: invoiceView(row), createdAt: deps.clock.now() });
    const answer = JSON.stringify(invoiceCreatedView(row, send ? INTERRUPTED : null));
    await storeAnswer(trx, companyId, key, { status: 201, body: answer, invoiceId, final: !send });
    return { invoiceId, company, doc, files, answer };
  });
  if (!send || !created.doc || !created.files) return { status: 201, body: created.answer, replayed: false };
  const outcome = await sendIssuedInvoice(deps, created.company, created.invoiceId, created.doc, created.files);
  const row = await findInvoiceViewRow(deps.db, companyId, created.invoiceId);
  const answer = JSON.stringify(invoiceCreatedView(row!, outcome.ok ? null : outcome.error));
  await storeAnswer(deps.db, companyId, key, { status: 201, body: answer, invoiceId: created.invoiceId, final: true });
  return { status: 201, body: answer, replayed: false };
}

async function resolveLines(trx: Trx, companyId: string, body: CreateInvoiceBody): Promise<(IssuedLine & { productId: string | null })[]> {
  const lines: (IssuedLine & { productId: string | null })[] = [];
  for (const line of body.lines) {
    let productId: string | null = null;
    let productNumber: string | null = null;
    if (line.product_ref !== undefined || line.product_number !== undefined) {
      const lookup =
        line.product_number !== undefined ? { productNumber: line.product_number } : { source: body.customer.source, ref: line.product_ref as string };
      const product = await findProductByRefOrNumber(trx, companyId, lookup);
      if (!product) throw productNotFound(lookup);
      productId = product.id;
      productNumber = product.product_number;
    }
    const quantity = String(line.quantity);
    lines.push({
      description: line.description,
      quantity,
      unit: line.unit ?? null,
      unitPriceNet: line.unit_price_net,
      vatRate: line.vat_rate,
      netCents: lineNetCents({ quantity, unitPriceNet: line.unit_price_net, vatRate: line.vat_rate }),
      taxExemptionReason: line.tax_exemption_reason ?? null,
      productNumber,
      productId,
    });
  }
  return lines;
}

async function renderOrRefuse(deps: InvoicingDeps, doc: InvoiceDocument) {
  try {
    return await deps.render(doc);
  } catch (error) {
    throw new AppError('invoice_render_failed', { cause_hint: (error as Error).name });
  }
}

async function insertInvoice(
  trx: Trx,
  input: {
    companyId: string;
    invoiceId: string;
    customerId: string;
    body: CreateInvoiceBody;
    lines: (IssuedLine & { productId: string | null })[];
    paymentTermsDays: number;
    doc: InvoiceDocument | null;
    changeSeq: number;
    now: Date;
  },
) {
  const { companyId, invoiceId, doc, lines } = input;
  // A draft's totals use the rates sent; at issue the verdict has confirmed them.
  const totals = invoiceTotals(lines);
  const invoice = await trx
    .insertInto('invoices')
    .values({
      company_id: companyId,
      id: invoiceId,
      number: doc?.number ?? null,
      status: doc ? 'issued' : 'draft',
      type: 'invoice',
      external_source: input.body.customer.source,
      external_ref: input.body.external_ref,
      customer_id: input.customerId,
      contract_external_ref: null,
      issue_date: doc?.issueDate ?? null,
      due_date: doc?.dueDate ?? null,
      service_period_start: input.body.service_period.start,
      service_period_end: input.body.service_period.end,
      payment_terms_days: input.paymentTermsDays,
      total_net_cents: totals.netCents,
      total_tax_cents: totals.taxCents,
      total_gross_cents: totals.grossCents,
      vat_verdict: doc?.verdict ?? null,
      e_invoice: doc?.eInvoice ?? null,
      document: doc ? JSON.stringify(doc) : null,
      sent_at: null,
      paid_at: null,
      dunning_level: null,
      cancels_invoice_id: null,
      cancelled_by_invoice_id: null,
      change_seq: input.changeSeq,
      changed_at: input.now,
      created_at: input.now,
    })
    .returning([
      'id',
      'number',
      'status',
      'type',
      'external_source',
      'external_ref',
      'contract_external_ref',
      'total_net_cents',
      'total_tax_cents',
      'total_gross_cents',
      'amount_paid_cents',
      'currency',
      'issue_date',
      'due_date',
      'service_period_start',
      'service_period_end',
      'sent_at',
      'paid_at',
      'overdue',
      'dunning_level',
      'change_seq',
    ])
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('invoice_lines')
    .values(
      lines.map((line, i) => ({
        company_id: companyId,
        invoice_id: invoiceId,
        position: i + 1,
        description: line.description,
        quantity: line.quantity,
        unit: line.unit,
        unit_price_net: line.unitPriceNet,
        vat_rate: line.vatRate,
        net_cents: line.netCents,
        product_id: line.productId,
        tax_exemption_reason: line.taxExemptionReason,
      })),
    )
    .execute();
  return invoice;
}
