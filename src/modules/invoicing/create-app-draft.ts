import { inTransaction, type Trx } from '../../db/transaction.ts';
import { AppError, type ValidationIssue } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type Actor, recordAudit } from '../audit/audit-log.ts';
import { type CustomerRow, findCustomerByRef } from '../customers/customers.repository.ts';
import { type AppDraftBody, appDraftIssues } from './app-draft-input.ts';
import type { CreateInvoiceBody } from './create-invoice-input.ts';
import { type InvoiceView, invoiceView } from './invoice-view.ts';
import type { InvoicingDeps } from './invoicing-deps.ts';
import { paymentTermsDays } from './plan-issue.ts';
import { resolveLines } from './resolve-lines.ts';
import { centsToDecimal } from './totals.ts';
import { writeInvoice } from './write-invoice.ts';

// A draft a person writes in the app (issue 15): built by the code that builds the drafts
// of POST /invoices (resolveLines, writeInvoice with issue false), marked origin 'app' —
// invisible to the API (migration 0026) — with the audit row in the same transaction. It is
// issued like any draft (issue-draft.ts). A draft the app wrote may be written anew
// (replaceAppDraft) or discarded (discard-app-draft.ts) until it is issued: it never had a
// number, so neither leaves a gap.

export type AppDraftErrorCode = 'validation_failed' | 'customer_not_found' | 'product_not_found' | 'reference_exists' | 'invoice_not_found' | 'not_a_draft';

/** Why no draft was written; `issues` for validation_failed (as the API's `errors`). */
export class AppDraftError extends Error {
  readonly code: AppDraftErrorCode;
  readonly issues: ValidationIssue[];
  readonly invoiceId: string | null;
  constructor(code: AppDraftErrorCode, message: string, options: { issues?: ValidationIssue[]; invoiceId?: string } = {}) {
    super(message);
    this.code = code;
    this.issues = options.issues ?? [];
    this.invoiceId = options.invoiceId ?? null;
  }
}

type DraftDeps = Pick<InvoicingDeps, 'db' | 'clock' | 'bookingWrites'>;

/** Writes a new app draft; returns it as the API would show it (the API itself never does). */
export async function createAppDraft(deps: DraftDeps, companyId: string, body: unknown, actor: Actor): Promise<InvoiceView> {
  const draft = checked(body);
  return inTransaction(deps.db, (trx) => writeDraft(trx, deps, companyId, newId('inv'), draft, actor, null));
}

/** Writes an app draft anew under its id (the person changed it); refused once it is issued. */
export async function replaceAppDraft(deps: DraftDeps, companyId: string, invoiceId: string, body: unknown, actor: Actor): Promise<InvoiceView> {
  const draft = checked(body);
  return inTransaction(deps.db, async (trx) => {
    const before = await lockAppDraft(trx, companyId, invoiceId);
    await trx.deleteFrom('invoice_lines').where('company_id', '=', companyId).where('invoice_id', '=', invoiceId).execute();
    await trx.deleteFrom('invoices').where('company_id', '=', companyId).where('id', '=', invoiceId).execute();
    return writeDraft(trx, deps, companyId, invoiceId, draft, actor, before);
  });
}

/** The app draft, locked; refused when it is none (another company's, the API's, or issued). */
export async function lockAppDraft(trx: Trx, companyId: string, invoiceId: string) {
  const row = await trx
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select(['i.status', 'i.origin', 'i.total_gross_cents', 'c.name as customer'])
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', invoiceId)
    .forUpdate('i')
    .executeTakeFirst();
  if (!row) throw new AppDraftError('invoice_not_found', `no invoice ${invoiceId}`);
  if (row.status !== 'draft' || row.origin !== 'app')
    throw new AppDraftError('not_a_draft', 'Nur ein in der App geschriebener Entwurf lässt sich ändern oder verwerfen; diese Rechnung ist keiner.');
  return { status: row.status, customer: row.customer, total: centsToDecimal(row.total_gross_cents) };
}

function checked(body: unknown): AppDraftBody {
  const issues = appDraftIssues(body);
  if (issues.length > 0) throw new AppDraftError('validation_failed', issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; '), { issues });
  return body as AppDraftBody;
}

async function findCustomer(trx: Trx, companyId: string, named: AppDraftBody['customer']): Promise<CustomerRow | undefined> {
  if ('id' in named) return trx.selectFrom('customers').selectAll().where('company_id', '=', companyId).where('id', '=', named.id).executeTakeFirst();
  return findCustomerByRef(trx, companyId, named.source, named.external_ref);
}

async function writeDraft(
  trx: Trx,
  deps: DraftDeps,
  companyId: string,
  invoiceId: string,
  draft: AppDraftBody,
  actor: Actor,
  before: Awaited<ReturnType<typeof lockAppDraft>> | null,
): Promise<InvoiceView> {
  const customer = await findCustomer(trx, companyId, draft.customer);
  if (!customer) throw new AppDraftError('customer_not_found', 'Den Kunden gibt es in dieser Firma nicht.');
  const reference = draft.external_ref ?? null;
  if (reference !== null) {
    const taken = await trx
      .selectFrom('invoices')
      .select('id')
      .where('company_id', '=', companyId)
      .where('origin', '=', 'app')
      .where('external_ref', '=', reference)
      .where('id', '!=', invoiceId)
      .executeTakeFirst();
    if (taken) throw new AppDraftError('reference_exists', `Die Referenz ${reference} trägt schon die Rechnung ${taken.id}.`, { invoiceId: taken.id });
  }
  // Products named by reference live in the customer's source, as on POST /invoices.
  const asApiBody: CreateInvoiceBody = { ...draft, customer: { source: customer.external_source, external_ref: customer.external_ref }, external_ref: '' };
  let lines: Awaited<ReturnType<typeof resolveLines>>;
  try {
    lines = await resolveLines(trx, companyId, asApiBody);
  } catch (error) {
    if (error instanceof AppError && error.code === 'product_not_found')
      throw new AppDraftError('product_not_found', 'Ein genanntes Produkt gibt es in dieser Firma nicht.');
    throw error;
  }
  const company = await trx.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  const { row } = await writeInvoice(trx, deps, {
    company,
    customer,
    invoiceId,
    lines,
    body: { external_ref: reference, service_period: draft.service_period, payment_terms_days: draft.payment_terms_days },
    externalSource: null,
    paymentTermsDays: paymentTermsDays(company, draft),
    issue: false,
    app: { note: draft.note ?? null },
  });
  const view = invoiceView(row);
  const after = { status: 'draft', number: null, customer: customer.name, total: view.total_gross, lines: lines.length };
  await recordAudit(trx, actor, deps.clock.now(), {
    action: before ? 'invoice.draft_changed' : 'invoice.draft_created',
    subjectType: 'invoice',
    subjectId: invoiceId,
    before,
    after,
  });
  return view;
}
