import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readFiles } from '../../modules/invoicing/invoice-files.ts';
import type { InvoicingDeps } from '../../modules/invoicing/invoicing-deps.ts';
import { checkDraft, issueDraft } from '../../modules/invoicing/issue-draft.ts';
import { AppError } from '../../shared/errors.ts';
import { formatDecimal } from '../../shared/german-format.ts';
import { type Html, html } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { csrfField, type Flash, page } from '../layout.ts';
import { actorOf, type Member, redirect, sendPage, shell } from '../web-request.ts';
import { date, dateTimeFormat, euro } from './money.ts';
import { memberOrNoCompanyPage } from './require-member.ts';

// One invoice: its head, lines and totals, the PDF (preview and download), the e-invoice,
// its events and bookings; for a draft, the issue button — with the VAT warnings a person
// may confirm, or the problems that keep it from being issued.

type Confirmation = { messages: string[]; email: string; confirmed_at: string };

async function loadInvoice(deps: InvoicingDeps, member: Member, id: string) {
  if (!/^inv_[0-9a-z]{26}$/.test(id)) return null;
  const invoice = await deps.db
    .selectFrom('invoices as i')
    .innerJoin('customers as c', (join) => join.onRef('c.company_id', '=', 'i.company_id').onRef('c.id', '=', 'i.customer_id'))
    .select([
      'i.id',
      'i.number',
      'i.status',
      'i.type',
      'i.issue_date',
      'i.due_date',
      'i.service_period_start',
      'i.service_period_end',
      'i.total_net_cents',
      'i.total_tax_cents',
      'i.total_gross_cents',
      'i.amount_paid_cents',
      'i.vat_verdict',
      'i.e_invoice',
      'i.overdue',
      'i.tax_confirmation',
      'c.name as customer_name',
      'c.kundennummer',
    ])
    .where('i.company_id', '=', member.company.id)
    .where('i.id', '=', id)
    .executeTakeFirst();
  if (!invoice) return null;
  const [lines, events, bookings] = await Promise.all([
    deps.db
      .selectFrom('invoice_lines')
      .select(['position', 'description', 'quantity', 'unit', 'unit_price_net', 'vat_rate', 'net_cents'])
      .where('company_id', '=', member.company.id)
      .where('invoice_id', '=', id)
      .orderBy('position')
      .execute(),
    deps.db
      .selectFrom('events')
      .select(['type', 'created_at'])
      .where('company_id', '=', member.company.id)
      .where('subject_id', '=', id)
      .orderBy('seq')
      .execute(),
    deps.db
      .selectFrom('journal_entries as e')
      .innerJoin('journal_lines as l', (join) => join.onRef('l.company_id', '=', 'e.company_id').onRef('l.entry_id', '=', 'e.id'))
      .select(['e.entry_date', 'e.document_number', 'e.description', 'l.account', 'l.side', 'l.amount_cents', 'l.tax_key'])
      .where('e.company_id', '=', member.company.id)
      .where('e.document_id', '=', id)
      .orderBy('e.entry_date')
      .orderBy('e.id')
      .orderBy('l.position')
      .execute(),
  ]);
  const files = invoice.status === 'draft' ? { pdf: false, xml: false } : await hasFiles(deps, member.company.id, id);
  return { invoice, lines, events, bookings, files };
}

async function hasFiles(deps: InvoicingDeps, companyId: string, invoiceId: string) {
  const rows = await deps.db.selectFrom('invoice_files').select('kind').where('company_id', '=', companyId).where('invoice_id', '=', invoiceId).execute();
  return { pdf: rows.some((r) => r.kind === 'pdf'), xml: rows.some((r) => r.kind === 'xml') };
}

function issueSection(t: Messages, csrf: string, id: string, check: { messages: string[]; confirmable: boolean }): Html {
  if (check.messages.length === 0) {
    return html`<section class="panel" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.issueDraft}</h2>
<p>${t.issueDraftHint}</p>
<form method="post" action="/app/invoices/${id}/issue">${csrfField(csrf)}<button type="submit" class="primary">${t.issueNow}</button></form></section>`;
  }
  const list = html`<ul class="messages">${check.messages.map((m) => html`<li>${m}</li>`)}</ul>`;
  if (!check.confirmable) {
    return html`<section class="panel warn" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.notIssuable}</h2>${list}<p>${t.notIssuableHint}</p></section>`;
  }
  return html`<section class="panel warn" aria-labelledby="issue-heading"><h2 id="issue-heading">${t.taxWarning}</h2>${list}
<form method="post" action="/app/invoices/${id}/issue" class="form">${csrfField(csrf)}
<label class="check"><input type="checkbox" name="confirm_domestic_supply" value="1" required> ${t.confirmDomesticSupply}</label>
<button type="submit" class="primary">${t.confirmAndIssue}</button></form></section>`;
}

async function renderDetail(request: FastifyRequest, reply: FastifyReply, deps: InvoicingDeps, id: string, flash: Flash = null, status = 200) {
  const member = memberOrNoCompanyPage(request, reply);
  if (!member) return reply;
  const t = request.t;
  const found = await loadInvoice(deps, member, id);
  if (!found) return reply.callNotFound();
  const { invoice, lines, events, bookings, files } = found;
  const time = dateTimeFormat(member.company.timezone);
  const title = invoice.number ? `${invoice.type === 'storno' ? t.storno : t.invoice} ${invoice.number}` : t.draft;
  const confirmation = invoice.tax_confirmation
    ? ((typeof invoice.tax_confirmation === 'string' ? JSON.parse(invoice.tax_confirmation) : invoice.tax_confirmation) as Confirmation)
    : null;
  const check = invoice.status === 'draft' ? await checkDraft(deps, member.company.id, id) : null;
  const body = html`
<dl class="facts">
<div><dt>${t.status}</dt><dd><span class="status status-${invoice.status}">${t.statuses[invoice.status] ?? invoice.status}</span>${invoice.overdue && invoice.status !== 'paid' ? html` <span class="badge warn">${t.overdueBadge}</span>` : ''}</dd></div>
<div><dt>${t.customer}</dt><dd>${invoice.customer_name} <span class="muted">(${invoice.kundennummer})</span></dd></div>
<div><dt>${t.issueDate}</dt><dd>${date(invoice.issue_date)}</dd></div>
<div><dt>${t.dueDate}</dt><dd>${date(invoice.due_date)}</dd></div>
<div><dt>${t.servicePeriod}</dt><dd>${date(invoice.service_period_start)} – ${date(invoice.service_period_end)}</dd></div>
<div><dt>${t.gross}</dt><dd class="strong">${euro(invoice.total_gross_cents)}</dd></div>
</dl>
${check ? issueSection(t, member.session.csrfToken, id, check) : ''}
${confirmation ? html`<section class="panel" aria-labelledby="confirmed-heading"><h2 id="confirmed-heading">${t.confirmedWarning}</h2><ul class="messages">${confirmation.messages.map((m) => html`<li>${m}</li>`)}</ul><p>${t.confirmedBy(confirmation.email, time.format(new Date(confirmation.confirmed_at)))}</p></section>` : ''}
<h2>${t.lines}</h2>
<div class="table-wrap"><table class="table">
<thead><tr><th scope="col">${t.position}</th><th scope="col">${t.description}</th><th scope="col" class="num">${t.quantity}</th><th scope="col">${t.unit}</th><th scope="col" class="num">${t.unitPrice}</th><th scope="col" class="num">${t.vat}</th><th scope="col" class="num">${t.net}</th></tr></thead>
<tbody>${lines.map(
    (l) =>
      html`<tr><td>${l.position}</td><td class="wrap">${l.description}</td><td class="num">${formatDecimal(l.quantity, 0)}</td><td>${l.unit ?? ''}</td><td class="num">${formatDecimal(l.unit_price_net, 2)} €</td><td class="num">${l.vat_rate} %</td><td class="num">${euro(l.net_cents)}</td></tr>`,
  )}</tbody>
<tfoot>
<tr><th scope="row" colspan="6">${t.net}</th><td class="num">${euro(invoice.total_net_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.vat}</th><td class="num">${euro(invoice.total_tax_cents)}</td></tr>
<tr><th scope="row" colspan="6">${t.gross}</th><td class="num strong">${euro(invoice.total_gross_cents)}</td></tr>
</tfoot></table></div>
${
  files.pdf
    ? html`<h2>${t.documents}</h2><p class="actions"><a href="/app/invoices/${id}/pdf" download>${t.downloadPdf}</a>${files.xml ? html` · <a href="/app/invoices/${id}/xml" download>${t.downloadXml}</a>` : ''}</p>
<iframe class="pdf" src="/app/invoices/${id}/pdf" title="${t.pdfPreview}"></iframe>`
    : ''
}
<h2>${t.history}</h2>
${events.length === 0 ? html`<p class="muted">${t.noEvents}</p>` : html`<ul class="timeline">${events.map((e) => html`<li><time>${time.format(e.created_at)}</time> ${t.eventTypes[e.type] ?? e.type}</li>`)}</ul>`}
<h2>${t.bookings}</h2>
${
  bookings.length === 0
    ? html`<p class="muted">${t.noBookings}</p>`
    : html`<div class="table-wrap"><table class="table compact"><thead><tr><th scope="col">${t.issueDate}</th><th scope="col">${t.account}</th><th scope="col">${t.side}</th><th scope="col" class="num">${t.amount}</th><th scope="col">${t.taxKey}</th></tr></thead>
<tbody>${bookings.map((b) => html`<tr><td>${date(b.entry_date)}</td><td>${b.account}</td><td>${b.side === 'S' ? t.debit : t.credit}</td><td class="num">${euro(b.amount_cents)}</td><td>${b.tax_key ?? ''}</td></tr>`)}</tbody></table></div>`
}
<p><a href="/app/invoices">← ${t.invoices}</a></p>`;
  return sendPage(reply, page(shell(request, 'invoices'), title, body, flash), status);
}

export function registerInvoiceDetailPages(web: FastifyInstance, deps: InvoicingDeps): void {
  web.get('/invoices/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const done = (request.query as { done?: string }).done === 'issued';
    return renderDetail(request, reply, deps, id, done ? { kind: 'ok', text: request.t.issuedDone } : null);
  });

  web.post('/invoices/:id/issue', async (request, reply) => {
    const member = memberOrNoCompanyPage(request, reply);
    if (!member) return reply;
    const { id } = request.params as { id: string };
    if (!/^inv_[0-9a-z]{26}$/.test(id)) return reply.callNotFound();
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    try {
      await issueDraft(deps, member.company.id, id, {
        confirmDomesticSupply: form.confirm_domestic_supply === '1',
        actor: { ...actorOf(member), email: member.session.email },
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'invoice_not_found') return reply.callNotFound();
      if (error instanceof AppError && error.code === 'invoice_not_issuable') {
        const messages = (error.fields.messages as string[] | undefined) ?? [error.message];
        return renderDetail(request, reply, deps, id, { kind: 'error', text: `${request.t.notIssued} ${messages.join(' ')}` }, 422);
      }
      throw error;
    }
    return redirect(reply, `/app/invoices/${id}?done=issued`);
  });

  for (const kind of ['pdf', 'xml'] as const) {
    web.get(`/invoices/:id/${kind}`, async (request, reply) => {
      const member = memberOrNoCompanyPage(request, reply);
      if (!member) return reply;
      const { id } = request.params as { id: string };
      if (!/^inv_[0-9a-z]{26}$/.test(id)) return reply.callNotFound();
      const invoice = await deps.db.selectFrom('invoices').select('number').where('company_id', '=', member.company.id).where('id', '=', id).executeTakeFirst();
      const file = invoice ? (await readFiles(deps.db, member.company.id, id, [kind]))[kind] : null;
      if (!invoice || !file) return reply.callNotFound();
      return (
        reply
          .type(kind === 'pdf' ? 'application/pdf' : 'application/xml')
          .header('content-disposition', `${kind === 'pdf' ? 'inline' : 'attachment'}; filename="${invoice.number}.${kind}"`)
          .header('cache-control', 'private, no-store')
          // The PDF may be shown in the invoice page's preview (same origin only).
          .header('x-frame-options', 'SAMEORIGIN')
          .header('content-security-policy', "default-src 'none'; frame-ancestors 'self'; plugin-types application/pdf")
          .send(file)
      );
    });
  }
}
