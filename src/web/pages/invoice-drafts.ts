import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppDraftError, createAppDraft, replaceAppDraft } from '../../modules/invoicing/index.ts';
import { type Html, html } from '../html.ts';
import { type Flash, page } from '../layout.ts';
import { actorOf, type Member, redirect, sendPage, shell, type WebDeps } from '../web-request.ts';
import { registerInvoiceActions } from './invoice-actions.ts';
import { type DraftForm, draftBody, draftFormMarkup, type FormProblem, formOfDraft, newForm, problemList, problemOf, readForm } from './invoice-form.ts';
import { today } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// Invoices written in the app (issue 15): /app/invoices/new finds the customer (a search
// over thousands, no select of all of them), then takes the service period, a note and the
// lines in German notation, and saves a draft through the invoicing module's own builder
// (create-app-draft.ts). The draft opens on its page, where it is issued, sent and, once
// issued, cancelled (invoice-actions.ts). An app draft can be changed until it is issued.
// Members do this daily work; no admin role needed.

const INVOICE_ID = /^inv_[0-9a-z]{26}$/;
const CUSTOMER_ID = /^cus_[0-9a-z]{26}$/;
const MATCHES = 20;

type CustomerCard = { id: string; name: string; kundennummer: number; city: string | null; email: string | null };

async function findCustomer(deps: WebDeps, member: Member, id: string): Promise<CustomerCard | null> {
  if (!CUSTOMER_ID.test(id)) return null;
  const row = await deps.db
    .selectFrom('customers')
    .select(['id', 'name', 'kundennummer', 'city', 'email'])
    .where('company_id', '=', member.company.id)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

async function companyTerms(deps: WebDeps, member: Member): Promise<number> {
  const row = await deps.db.selectFrom('companies').select('payment_terms_days').where('id', '=', member.company.id).executeTakeFirstOrThrow();
  return row.payment_terms_days;
}

/** Step 1: the customer, by name or number (trigram index on names), or the newest ones. */
async function customerStep(request: FastifyRequest, reply: FastifyReply, deps: WebDeps, member: Member, flash: Flash = null, status = 200) {
  const t = request.t;
  const d = t.drafts;
  const q = String((request.query as { q?: string }).q ?? '')
    .replace(/\p{Cc}/gu, ' ')
    .trim()
    .slice(0, 100);
  let query = deps.db.selectFrom('customers').select(['id', 'name', 'kundennummer', 'city', 'email']).where('company_id', '=', member.company.id);
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = /^\d{5}$/.test(q)
      ? query.where((eb) => eb.or([eb('kundennummer', '=', Number(q)), eb('name', 'ilike', like)]))
      : query.where('name', 'ilike', like);
    query = query.orderBy('name').orderBy('id');
  } else {
    query = query.orderBy('created_at', 'desc').orderBy('id', 'desc');
  }
  const rows = await query.limit(q ? MATCHES + 1 : 10).execute();
  const shown = rows.slice(0, MATCHES);
  const table: Html =
    shown.length === 0
      ? html`<p class="empty">${q ? d.noCustomerFound : d.noCustomersYet}</p>`
      : html`<h2 id="matches-heading">${q ? d.customerMatches(shown.length) : d.recentCustomers}</h2>
${rows.length > MATCHES ? html`<p class="hint">${d.customerMatchesMore}</p>` : ''}
<div class="table-wrap"><table class="table" aria-labelledby="matches-heading">
<thead><tr><th scope="col">${d.customerName}</th><th scope="col">${d.customerNumber}</th><th scope="col">${d.customerCity}</th><th scope="col">${d.customerEmail}</th><th scope="col"><span class="visually-hidden">${d.choose}</span></th></tr></thead>
<tbody>${shown.map(
          (c) =>
            html`<tr><td>${c.name}</td><td>${c.kundennummer}</td><td>${c.city ?? ''}</td><td>${c.email ?? ''}</td><td><a href="/app/invoices/new?customer=${c.id}" aria-label="${d.chooseNamed(c.name)}">${d.choose}</a></td></tr>`,
        )}</tbody></table></div>`;
  const body = html`<h2>${d.chooseCustomer}</h2>
<p class="hint">${d.chooseCustomerHint}</p>
<form method="get" action="/app/invoices/new" class="filters" role="search">
<div><label for="q">${d.customerSearch}</label><input id="q" name="q" type="search" value="${q}" autocomplete="off"></div>
<div class="filter-actions"><button type="submit" class="primary">${d.searchCustomer}</button></div>
</form>
${table}
<p><a href="/app/invoices">← ${t.invoices}</a></p>`;
  return sendPage(reply, page(shell(request, 'invoices'), d.newInvoice, body, flash), status);
}

async function formPage(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: WebDeps,
  member: Member,
  options: { form: DraftForm; action: string; title: string; problems?: FormProblem[]; status?: number; otherCustomer: boolean },
) {
  const t = request.t;
  const customer = await findCustomer(deps, member, options.form.customerId);
  const problems = [...(options.problems ?? [])];
  if (options.form.customerId && !customer && !problems.some((p) => p.key === 'customer'))
    problems.unshift({ key: 'customer', text: t.drafts.errors.customerGone });
  const markup = draftFormMarkup(t, member.session.csrfToken, {
    action: options.action,
    form: options.form,
    customer,
    problems,
    companyTerms: await companyTerms(deps, member),
    submit: t.drafts.saveDraft,
    otherCustomer: options.otherCustomer,
  });
  const flash: Flash = problems.length > 0 ? { kind: 'error', text: t.drafts.notSaved } : null;
  return sendPage(reply, page(shell(request, 'invoices'), options.title, html`${problemList(problems)}${markup}`, flash), options.status ?? 200);
}

/** Saves the form (new or changed draft) or gives it back: with more rows, or with the problems (422). */
async function save(request: FastifyRequest, reply: FastifyReply, deps: WebDeps, member: Member, invoiceId: string | null) {
  const t = request.t;
  const { form, more } = readForm((request.body ?? {}) as Record<string, string | undefined>);
  const action = invoiceId ? `/app/invoices/${invoiceId}/edit` : '/app/invoices/new';
  const title = invoiceId ? t.drafts.editDraftTitle : t.drafts.newInvoice;
  const otherCustomer = invoiceId === null;
  if (invoiceId) {
    const own = await deps.db.selectFrom('invoices').select('id').where('company_id', '=', member.company.id).where('id', '=', invoiceId).executeTakeFirst();
    if (!own) return reply.callNotFound();
  }
  if (more) return formPage(request, reply, deps, member, { form, action, title, otherCustomer });
  const { body, problems } = draftBody(t, form);
  if (problems.length > 0) return formPage(request, reply, deps, member, { form, action, title, problems, status: 422, otherCustomer });
  try {
    const actor = actorOf(member);
    const view = invoiceId
      ? await replaceAppDraft(deps.invoicing, member.company.id, invoiceId, body, actor)
      : await createAppDraft(deps.invoicing, member.company.id, body, actor);
    return redirect(reply, `/app/invoices/${view.id}?done=${invoiceId ? 'changed' : 'draft'}`);
  } catch (error) {
    if (!(error instanceof AppDraftError)) throw error;
    if (error.code === 'invoice_not_found') return reply.callNotFound();
    const found: FormProblem[] =
      error.code === 'validation_failed'
        ? error.issues.map((issue) => problemOf(t, issue))
        : error.code === 'customer_not_found'
          ? [{ key: 'customer', text: t.drafts.errors.customerGone }]
          : error.code === 'product_not_found'
            ? [{ key: 'other', text: t.drafts.errors.product }]
            : [{ key: 'other', text: error.code === 'not_a_draft' ? t.drafts.notEditable : error.message }];
    return formPage(request, reply, deps, member, { form, action, title, problems: found, status: 422, otherCustomer });
  }
}

export function registerInvoiceDraftPages(web: FastifyInstance, deps: WebDeps): void {
  web.get('/invoices/new', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const customerId = String((request.query as { customer?: string }).customer ?? '');
    const customer = customerId ? await findCustomer(deps, member, customerId) : null;
    if (!customer) return customerStep(request, reply, deps, member, customerId ? { kind: 'error', text: request.t.drafts.errors.customerGone } : null);
    const form = newForm(customer.id, today(deps.clock.now(), member.company.timezone));
    return formPage(request, reply, deps, member, { form, action: '/app/invoices/new', title: request.t.drafts.newInvoice, otherCustomer: true });
  });

  web.post('/invoices/new', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    return save(request, reply, deps, member, null);
  });

  web.get('/invoices/:id/edit', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!INVOICE_ID.test(id)) return reply.callNotFound();
    const draft = await deps.db
      .selectFrom('invoices')
      .select(['customer_id', 'service_period_start', 'service_period_end', 'payment_terms_days', 'note', 'status', 'origin'])
      .where('company_id', '=', member.company.id)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!draft) return reply.callNotFound();
    if (draft.status !== 'draft' || draft.origin !== 'app') return redirect(reply, `/app/invoices/${id}`);
    const lines = await deps.db
      .selectFrom('invoice_lines')
      .select(['description', 'quantity', 'unit', 'unit_price_net', 'vat_rate', 'tax_exemption_reason'])
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .orderBy('position')
      .execute();
    const form = formOfDraft(draft, lines, await companyTerms(deps, member));
    return formPage(request, reply, deps, member, { form, action: `/app/invoices/${id}/edit`, title: request.t.drafts.editDraftTitle, otherCustomer: false });
  });

  web.post('/invoices/:id/edit', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!INVOICE_ID.test(id)) return reply.callNotFound();
    return save(request, reply, deps, member, id);
  });

  registerInvoiceActions(web, deps);
}
