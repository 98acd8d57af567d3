import { inTransaction } from '../../db/transaction.ts';
import { recordEvent } from '../../jobs/index.ts';
import { AppError } from '../../shared/errors.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import type { CustomerRow } from '../customers/customers.repository.ts';
import type { IssuedLine } from './build-document.ts';
import { drawInvoiceNumber } from './draw-invoice-number.ts';
import { nextChangeSeq } from './invoice-changes.ts';
import { storeFiles } from './invoice-files.ts';
import { type InvoiceView, invoiceView } from './invoice-view.ts';
import { findInvoiceViewRow } from './invoices.repository.ts';
import { type InvoicingDeps, renderOrRefuse } from './invoicing-deps.ts';
import { assertPeriodOpen } from './period-lock.ts';
import { issuedDocument, issuingVerdict } from './plan-issue.ts';
import type { ResolvedLine } from './resolve-lines.ts';

// A person issues a draft (the app, `kontor admin invoice issue`); the API never can
// (interface §1). The issuing checks are those of createInvoice. A VAT warning for a
// customer abroad — German VAT on the lines where the verdict expects 0 % — can be
// confirmed by the person: the place of supply is in Germany, so the invoice carries German
// VAT (design §4). The confirmation (the German messages shown, who, when) stays with the
// invoice and in the audit trail. Missing details are never confirmable.

export type DraftCheck = {
  /** German messages that keep the draft from being issued as it is. */
  messages: string[];
  /** The messages go away when the person confirms a place of supply in Germany. */
  confirmable: boolean;
};

export type IssueDraftInput = { confirmDomesticSupply: boolean; actor: Actor & { email: string } };

async function loadDraft(trx: Parameters<Parameters<typeof inTransaction>[1]>[0], companyId: string, invoiceId: string, lock: boolean) {
  let query = trx.selectFrom('invoices').selectAll().where('company_id', '=', companyId).where('id', '=', invoiceId);
  if (lock) query = query.forUpdate();
  const invoice = await query.executeTakeFirst();
  if (!invoice) throw new AppError('invoice_not_found');
  const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  const customer = (await trx
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', invoice.customer_id)
    .executeTakeFirstOrThrow()) as CustomerRow;
  const rows = await trx
    .selectFrom('invoice_lines as l')
    .leftJoin('products as p', (join) => join.onRef('p.company_id', '=', 'l.company_id').onRef('p.id', '=', 'l.product_id'))
    .select([
      'l.description',
      'l.quantity',
      'l.unit',
      'l.unit_price_net',
      'l.vat_rate',
      'l.net_cents',
      'l.tax_exemption_reason',
      'l.product_id',
      'p.product_number',
    ])
    .where('l.company_id', '=', companyId)
    .where('l.invoice_id', '=', invoiceId)
    .orderBy('l.position')
    .execute();
  const lines: ResolvedLine[] = rows.map((row) => ({
    description: row.description,
    quantity: row.quantity,
    unit: row.unit,
    unitPriceNet: row.unit_price_net,
    vatRate: row.vat_rate as IssuedLine['vatRate'],
    netCents: Number(row.net_cents),
    taxExemptionReason: row.tax_exemption_reason,
    productNumber: row.product_number ?? null,
    productId: row.product_id,
  }));
  return { invoice, company, customer, lines };
}

/** What stands between the draft and its issue today (for the app to show before the click). */
export async function checkDraft(deps: Pick<InvoicingDeps, 'db' | 'clock'>, companyId: string, invoiceId: string): Promise<DraftCheck> {
  return inTransaction(deps.db, async (trx) => {
    const { invoice, company, customer, lines } = await loadDraft(trx, companyId, invoiceId, false);
    if (invoice.status !== 'draft') return { messages: ['Die Rechnung ist kein Entwurf mehr.'], confirmable: false };
    return draftProblems(trx, company, customer, lines, deps.clock.today(company.timezone));
  });
}

async function draftProblems(
  trx: Parameters<Parameters<typeof inTransaction>[1]>[0],
  company: Parameters<typeof issuingVerdict>[0]['company'],
  customer: CustomerRow,
  lines: ResolvedLine[],
  issueDate: string,
): Promise<DraftCheck> {
  const plain = issuingVerdict({ company, customer, lines }).messages;
  const confirmed = issuingVerdict({ company, customer, lines }, { domesticSupplyConfirmed: true }).messages;
  const abroad = Boolean(customer.country_code) && customer.country_code !== 'DE' && !company.small_business;
  const messages = [...plain];
  try {
    await assertPeriodOpen(trx, company.id, issueDate);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    messages.push(error.message);
    return { messages, confirmable: false };
  }
  return { messages, confirmable: messages.length > 0 && abroad && confirmed.length === 0 };
}

/**
 * Issues the draft: number, snapshot, files, booking, event invoice.issued, the
 * confirmation if one was needed, and the audit row — in one transaction.
 */
export async function issueDraft(deps: InvoicingDeps, companyId: string, invoiceId: string, input: IssueDraftInput): Promise<InvoiceView> {
  return inTransaction(deps.db, async (trx) => {
    const { invoice, company, customer, lines } = await loadDraft(trx, companyId, invoiceId, true);
    if (invoice.status !== 'draft')
      throw new AppError('invoice_not_issuable', { messages: ['Die Rechnung ist kein Entwurf mehr.'] }, 'The invoice is no draft.');
    const issueDate = deps.clock.today(company.timezone);
    const check = await draftProblems(trx, company, customer, lines, issueDate);
    const confirming = check.messages.length > 0 && check.confirmable && input.confirmDomesticSupply;
    if (check.messages.length > 0 && !confirming) throw new AppError('invoice_not_issuable', { messages: check.messages, message: check.messages.join(' ') });
    const { verdict } = issuingVerdict({ company, customer, lines }, { domesticSupplyConfirmed: confirming });
    const lockedUntil = await assertPeriodOpen(trx, companyId, issueDate);
    const { number } = await drawInvoiceNumber(trx, company, issueDate);
    const doc = issuedDocument(
      {
        company,
        customer,
        lines,
        body: { service_period: { start: invoice.service_period_start, end: invoice.service_period_end }, payment_terms_days: invoice.payment_terms_days },
        issueDate,
      },
      verdict,
      number,
    );
    // The note a person wrote on an app draft is printed with the invoice's notes (BT-22).
    if (invoice.note) doc.notes.push(invoice.note);
    const files = await renderOrRefuse(deps, doc);
    const now = deps.clock.now();
    const confirmation = confirming
      ? { kind: 'domestic_supply', messages: check.messages, user_id: input.actor.userId, email: input.actor.email, confirmed_at: now.toISOString() }
      : null;
    await trx
      .updateTable('invoices')
      .set({
        number,
        status: 'issued',
        issue_date: doc.issueDate,
        due_date: doc.dueDate,
        vat_verdict: doc.verdict,
        e_invoice: doc.eInvoice,
        document: JSON.stringify(doc),
        tax_confirmation: confirmation ? JSON.stringify(confirmation) : null,
        change_seq: await nextChangeSeq(trx, companyId),
        changed_at: now,
      })
      .where('company_id', '=', companyId)
      .where('id', '=', invoiceId)
      .execute();
    await storeFiles(trx, companyId, invoiceId, files);
    await deps.book(trx, company, doc, invoiceId, { newDocument: true, lockedUntil });
    const view = invoiceView((await findInvoiceViewRow(trx, companyId, invoiceId))!);
    await recordEvent(trx, { companyId, type: 'invoice.issued', subjectId: invoiceId, data: view, createdAt: now });
    await recordAudit(trx, input.actor, now, {
      action: 'invoice.issued',
      subjectType: 'invoice',
      subjectId: invoiceId,
      before: { status: 'draft' },
      after: { status: 'issued', number, vat_verdict: doc.verdict, ...(confirmation ? { confirmed_warnings: confirmation.messages } : {}) },
    });
    return view;
  });
}
